"""A fleet stack planned as its Pulumi program plans it: each workload under the stack's environment (its own
inventory, the team's calibration, the environment's policy constraints) with its own lock, then the fleet."""

from __future__ import annotations

from typing import Any


def plan_stack_fleet(stack: Any, catalog: Any, *, fresh: bool = False, top: int = 8) -> tuple[Any, Any]:
    """(FleetPlan, {workload: LockStatus}); `fresh` ignores the locks (what `accelfit lock --fresh` plans)."""
    from accelfit.planner import plan_fleet
    from accelfit.policy_config import stack_environment

    environments = [stack_environment(stack, catalog, loaded) for loaded in stack.workloads]
    return plan_fleet(stack.specs, catalog, environments, None if fresh else stack.selections,
                      fleet_name=stack.fleet, top=top)
