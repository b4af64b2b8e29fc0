"""The planner: workload spec + catalog + environment -> an explained, costed Plan. Pure: no Pulumi, no I/O."""

from accelfit.planner.choose import NoFeasiblePlan
from accelfit.planner.model import (
    Alternative, CostLine, Estimate, NetworkPlan, NodePool, Plan, PlanAccelerator, PlanCloud, Platform, Rejection,
    StoragePlan, Taint, TpuVmSlice,
)
from accelfit.planner.planner import Environment, evaluate_spec, plan
from accelfit.planner.fleet import FallbackStep, FleetPlan, FleetWorkload, SharedCluster, plan_fleet

__all__ = [
    "Alternative", "CostLine", "Environment", "Estimate", "FallbackStep", "FleetPlan", "FleetWorkload", "NetworkPlan",
    "NoFeasiblePlan", "NodePool", "Plan", "PlanAccelerator", "PlanCloud", "Platform", "Rejection", "SharedCluster",
    "StoragePlan", "Taint", "TpuVmSlice", "evaluate_spec", "plan", "plan_fleet",
]
