"""A stack planned as its Pulumi program plans it, whichever its form: each workload under the stack's environment
(its own inventory, the team's calibration, the environment's policy constraints, the stack's region) with its own
lock, then the fleet (of one, for `accelfit:workload`), then every stack rule that needs the plan
(accelfit.stackrules.AFTER_PLAN). `check`, `plan --stack`, `lock`, `cost`, `preflight` and the Pulumi program (so
`preview` and `pulumi up`) all plan a stack here, so none accepts a stack another refuses."""

from __future__ import annotations

from typing import Any


def plan_stack_fleet(stack: Any, catalog: Any, *, fresh: bool = False, top: int = 8,
                     require_lock: bool = False) -> tuple[Any, Any]:
    """(FleetPlan, {workload: LockStatus}); `fresh` ignores the locks (what `accelfit lock --fresh` plans). A
    single-form stack (`stack.fleet` None) is planned as its fleet of one. Raises NoFeasiblePlan, LockRequired
    (`require_lock` and no valid lock), or InputError with every stack rule the plan breaks."""
    from accelfit.planner import plan_fleet
    from accelfit.policy_config import stack_environment
    from accelfit.stackrules import require_sound

    environments = [stack_environment(stack, catalog, loaded) for loaded in stack.workloads]
    fleet, locks = plan_fleet(stack.specs, catalog, environments, None if fresh else stack.selections,
                              fleet_name=stack.fleet, top=top, require_lock=require_lock, stack=stack.name)
    require_sound(stack, fleet, catalog)
    return fleet, locks


def plan_spec_fleet(spec: Any, catalog: Any, environment: Any, *, top: int = 8) -> Any:
    """The FleetPlan of a spec file: the fleet of one a stack of it builds (its fallback chain and standby serving
    steps included), so `plan SPEC`, `simulate SPEC` and `tco SPEC` answer for what `plan --stack` and the program
    would build. A spec file has no stack, so no lock. Raises NoFeasiblePlan."""
    from accelfit.planner import plan_fleet

    fleet, _ = plan_fleet([spec], catalog, environment, None, fleet_name=None, top=top)
    return fleet


def single_view(fleet: Any, locks: Any) -> tuple[Any, Any]:
    """(Plan, LockStatus) of a fleet of one: what the single form's reports show."""
    (member,) = fleet.workloads
    return member.shown_plan(), locks[member.name]
