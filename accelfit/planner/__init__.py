"""The planner: workload spec + catalog + environment -> an explained, costed Plan. Pure: no Pulumi, no I/O.

`plan` answers one spec (`accelfit plan SPEC`); `plan_fleet` plans a stack, whichever its form: each workload's
plan (its lock respected), its placement, its fallback chain with standby pools, and the cost per workload and for
the stack. A single-workload stack is a fleet of one; the Pulumi program and the CLI go through `plan_fleet` for
every stack. The cost model (`costing.py`, over `accelfit.pricing.figures`) is a leaf the sizing calls."""

from typing import Any

from accelfit.planner.choose import NoFeasiblePlan
from accelfit.planner.model import (
    Alternative, CostLine, Estimate, NetworkPlan, NodePool, Plan, PlanAccelerator, PlanCloud, Platform, Rejection,
    StoragePlan, Taint, TpuVmSlice,
)
from accelfit.planner.planner import Environment, evaluate_spec, plan

# The fleet planner (stacks) is imported on first use, so `accelfit plan SPEC` does not pay for it.
_FLEET = {"FallbackStep", "FleetPlan", "FleetWorkload", "SharedCluster", "plan_fleet"}


def __getattr__(name: str) -> Any:  # the lazily imported names are of several types
    if name in _FLEET:
        from accelfit.planner import fleet

        return getattr(fleet, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Alternative", "CostLine", "Environment", "Estimate", "FallbackStep", "FleetPlan", "FleetWorkload", "NetworkPlan",
    "NoFeasiblePlan", "NodePool", "Plan", "PlanAccelerator", "PlanCloud", "Platform", "Rejection", "SharedCluster",
    "StoragePlan", "Taint", "TpuVmSlice", "evaluate_spec", "plan", "plan_fleet",
]
