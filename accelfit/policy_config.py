"""The environment's policy configuration (`policies/config/<env>.json`), read once for both of its uses: the
policy pack's settings in a preview, and the planner's constraints (`accelfit.planner.constraints`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

# Reading the file is the environment's own job (accelfit.environments); here for the callers that read it by name.
from accelfit.environments import policy_config_path, read_policy_config

if TYPE_CHECKING:
    from accelfit.catalog.models import Catalog

__all__ = ["plan_constraints", "policy_config_path", "read_policy_config"]


def plan_constraints(project_dir: Path, environment: str, catalog: Catalog, *, required: bool = False) -> Any:
    """The planner's constraints from the environment's policy configuration; None when there is none."""
    from accelfit.planner.constraints import PolicyConstraints

    config = read_policy_config(project_dir, environment, required=required)
    if config is None:
        return None

    def canonical(name: str) -> str:
        try:
            return catalog.canonical(name)
        except Exception:  # an unknown name in the allow-list matches nothing, as in the policy
            return name

    return PolicyConstraints.from_policy_config(config, f"policies/config/{environment}.json", canonical)


def stack_environment(stack: Any, catalog: Any, loaded: Any = None) -> Any:
    """The planner's Environment for a stack, as its Pulumi program builds it: the stack's environment and
    inventory (of `loaded`, one of a fleet's workloads, when given), the team's calibration, the environment's
    policy configuration as constraints, and the stack's region (and zone) per cloud: where it places."""
    from accelfit.calibration.store import load_team_efficiency
    from accelfit.planner import Environment
    from accelfit.stackrules.regions import stack_placement

    return Environment(stack.environment, (loaded or stack.workload).inventory, load_team_efficiency(),
                       plan_constraints(stack.project_dir, stack.environment, catalog), stack_placement(stack.config))
