"""The environment's policy configuration (`policies/config/<env>.json`), read once for both of its uses: the
policy pack's settings in a preview, and the planner's constraints (`accelfit.planner.constraints`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem


def policy_config_path(project_dir: Path, environment: str) -> Path:
    return project_dir / "policies" / "config" / f"{environment}.json"


def read_policy_config(project_dir: Path, environment: str, *, required: bool = True) -> dict[str, Any] | None:
    path = policy_config_path(project_dir, environment)
    if not path.is_file():
        if not required:
            return None
        raise InputError([problem(str(path), "", "no policy configuration for this environment",
                                  "add policies/config/<environment>.json (see policies/README.md)")])
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InputError([problem(str(path), f"line {error.lineno}", "not valid JSON", "fix the JSON syntax")]) \
            from None
    if not isinstance(document, dict):
        raise InputError([problem(str(path), "", "expected a JSON object", "map policy names to their settings")])
    return document


def plan_constraints(project_dir: Path, environment: str, catalog: Any, *, required: bool = False) -> Any:
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
