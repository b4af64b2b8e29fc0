"""A stack planned as its Pulumi program plans it, whichever its form: each workload under the stack's environment
(its own inventory, the team's calibration, the environment's policy constraints) with its own lock, then the
fleet (of one, for `accelfit:workload`)."""

from __future__ import annotations

from typing import Any


def plan_stack_fleet(stack: Any, catalog: Any, *, fresh: bool = False, top: int = 8) -> tuple[Any, Any]:
    """(FleetPlan, {workload: LockStatus}); `fresh` ignores the locks (what `accelfit lock --fresh` plans). A
    single-form stack (`stack.fleet` None) is planned as its fleet of one."""
    from accelfit.planner import plan_fleet
    from accelfit.policy_config import stack_environment

    environments = [stack_environment(stack, catalog, loaded) for loaded in stack.workloads]
    return plan_fleet(stack.specs, catalog, environments, None if fresh else stack.selections,
                      fleet_name=stack.fleet, top=top)


def single_view(fleet: Any, locks: Any) -> tuple[Any, Any]:
    """(Plan, LockStatus) of a fleet of one: what the single form's reports show."""
    (member,) = fleet.workloads
    return member.shown_plan(), locks[member.name]
