"""The planner: workload spec + catalog + environment -> an explained, costed Plan. Pure: no Pulumi, no I/O.

`plan` answers one spec (`accelfit plan SPEC`); `plan_fleet` plans a stack, whichever its form: each workload's
plan (its lock respected), its placement, its fallback chain with standby pools, and the cost per workload and for
the stack. A single-workload stack is a fleet of one; the Pulumi program and the CLI go through `plan_fleet` for
every stack. The cost model (`costing/option_costs.py`, over `accelfit.pricing.figures`) is a leaf the sizing calls.

Layout, by role (each subpackage's `__init__` says what it may import; tests/architecture/test_planner_layout.py
checks it):
- here, the shared core: the values every part reads (model.py: the Plan; options.py: offers; sizes.py,
  memory.py, preferences.py, constraints.py, limits.py, software.py, team_efficiency.py, gpu_vms.py, balance.py,
  stack_placement.py) and the search that puts the parts together (planner.py: `plan`; candidates.py,
  eligibility.py, evaluate.py, choose.py, build.py, lock.py, missing_prices.py);
- training/: how many accelerators a training run needs and how fast it runs;
- serving/: the serving replica model, its sizing, the plan's serving section and route;
- costing/: what an option costs and how its capacity is bought;
- fleet/: a stack's plan (`plan_fleet`): placement in shared clusters, each workload's fallback chain, the stack's
  costs and policy limits, a dedicated workload's cloud overflow.
Data files (sourced, dated) stay together in data/."""

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
        from accelfit.planner.fleet import stack as fleet
        return getattr(fleet, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Alternative", "CostLine", "Environment", "Estimate", "FallbackStep", "FleetPlan", "FleetWorkload", "NetworkPlan",
    "NoFeasiblePlan", "NodePool", "Plan", "PlanAccelerator", "PlanCloud", "Platform", "Rejection", "SharedCluster",
    "StoragePlan", "Taint", "TpuVmSlice", "evaluate_spec", "plan", "plan_fleet",
]
