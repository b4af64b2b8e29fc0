"""The planner: workload spec + catalog + environment -> an explained, costed Plan. Pure: no Pulumi, no I/O."""

from accelfit.planner.model import (
    Alternative, CostLine, Estimate, NetworkPlan, NodePool, Plan, PlanAccelerator, PlanCloud, Platform, Rejection,
    StoragePlan, Taint, TpuVmSlice,
)

__all__ = [
    "Alternative", "CostLine", "Estimate", "NetworkPlan", "NodePool", "Plan", "PlanAccelerator", "PlanCloud",
    "Platform", "Rejection", "StoragePlan", "Taint", "TpuVmSlice",
]
