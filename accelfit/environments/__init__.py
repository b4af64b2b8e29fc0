"""Environments as data: an environment is its policy configuration, `policies/config/<name>.json`, and nothing
else. The file holds the cost caps (stack-monthly-budget), the allowed pricing and accelerators, the level of every
rule ("all" and each policy's enforcementLevel) and, in the `environment-label-matches-stack` entry (the one policy
whose config is the environment itself), the lock requirement (`requireLock`) and deploy approvals
(`requiredReviewers`: the GitHub environment of the same name must have required reviewers) and whether the
environment is protected (`protected`: deletion protection on its clusters, buckets and file systems, secrets only
encrypted, GPU drivers pinned), which the stack loader, the cloud rules and the components read through
`is_protected` instead of comparing the environment's name with "prod".

Every consumer discovers environments here instead of listing them: the stack loader (`accelfit:environment`),
`plan --environment`, the spec budget's level, `accelfit env list --json` (which the workflows read) and
`accelfit env new NAME --from ENV`, which writes one. Pure apart from reading and writing those files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.inputfile import is_regular_file
from accelfit.jsonio import read_json

CONFIG_DIR = Path("policies") / "config"
# The entry that names the environment; its extra settings are the environment's own (policies/accelfit_policies/
# tagging.py ENVIRONMENT_OPTIONS describes them).
ENVIRONMENT_ENTRY = "environment-label-matches-stack"
# An environment's name is a GitHub environment, a label value and a stack-name part: a DNS label, short.
ENVIRONMENT_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,30}[a-z0-9])?\Z")
# When no project is at hand (the stack-file schema printed outside a project): the environments shipped.
SHIPPED_ENVIRONMENTS = ("dev", "staging", "prod")
# ... and the protected one among them (policies/config/prod.json says `protected: true`).
SHIPPED_PROTECTED = frozenset({"prod"})


@dataclass(frozen=True)
class EnvironmentSettings:
    name: str
    file: str
    default_level: str  # the "all" entry: the level of every rule without its own
    max_monthly_usd: float | None  # stack-monthly-budget's cap
    budget_level: str
    require_lock: bool
    required_reviewers: bool
    protected: bool = False

    @property
    def spec_budget_mandatory(self) -> bool:
        """The spec's own budget binds as the environment's policy budget does (prod: mandatory)."""
        return self.budget_level == "mandatory"

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "file": self.file, "defaultLevel": self.default_level,
                "maxMonthlyUsd": self.max_monthly_usd, "budgetLevel": self.budget_level,
                "requireLock": self.require_lock, "requiredReviewers": self.required_reviewers,
                "protected": self.protected}


def nearest_project_dir() -> Path | None:
    """The folder with Pulumi.yaml here or above (as accelfit.stackfile.find_project_dir finds it); None outside
    a project. Here so that the stack-key table can list environments without importing the stack loader."""
    here = Path.cwd().resolve()
    return next((folder for folder in (here, *here.parents) if (folder / "Pulumi.yaml").is_file()), None)


def config_dir(project_dir: Path) -> Path:
    return project_dir / CONFIG_DIR


def policy_config_path(project_dir: Path, environment: str) -> Path:
    return config_dir(project_dir) / f"{environment}.json"


def read_policy_config(project_dir: Path, environment: str, *, required: bool = True) -> dict[str, Any] | None:
    path = policy_config_path(project_dir, environment)
    if not is_regular_file(path):
        if not required:
            return None
        raise InputError([problem(str(path), "", "no policy configuration for this environment",
                                  "add policies/config/<environment>.json (see policies/README.md)")])
    config = read_json(path, "fix the JSON syntax (see policies/README.md)")
    if not isinstance(config, dict):
        raise InputError([problem(str(path), "", "expected a JSON object of policy settings",
                                  "see policies/README.md")])
    return config


def environment_names(project_dir: Path | None) -> tuple[str, ...]:
    """The environments of the project: one per policies/config/<name>.json with a valid name, sorted."""
    if project_dir is None or not config_dir(project_dir).is_dir():
        return SHIPPED_ENVIRONMENTS
    return tuple(sorted(path.stem for path in config_dir(project_dir).glob("*.json")
                        if path.is_file() and ENVIRONMENT_NAME.match(path.stem)))


def _level(entry: Any, default: str) -> str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict) and isinstance(entry.get("enforcementLevel"), str):
        return str(entry["enforcementLevel"])
    return default


def environment_settings(project_dir: Path, name: str) -> EnvironmentSettings:
    config = read_policy_config(project_dir, name) or {}
    default = str(config.get("all") or "advisory")
    budget = config.get("stack-monthly-budget")
    cap = budget.get("maxMonthlyUsd") if isinstance(budget, dict) else None
    own = config.get(ENVIRONMENT_ENTRY)
    own = own if isinstance(own, dict) else {}
    return EnvironmentSettings(name, str(CONFIG_DIR / f"{name}.json"), default,
                               float(cap) if isinstance(cap, (int, float)) else None, _level(budget, default),
                               own.get("requireLock") is True, own.get("requiredReviewers") is True,
                               protected_in(config))


def is_protected(name: str, project_dir: Path | None = None) -> bool:
    """Whether environment NAME is protected (its policy configuration's environment entry says `protected: true`):
    its stateful resources get deletion protection, a plain-text secret is refused and the GPU driver must not float.
    Read from the project's file (the nearest project when none is given), so `accelfit env new qa --from prod`
    makes a protected qa and a prod whose file says otherwise is not; outside a project, the shipped prod is."""
    folder = project_dir or nearest_project_dir()
    if folder is None or not (config_dir(folder) / f"{name}.json").is_file():
        return name in SHIPPED_PROTECTED
    return protected_in(read_policy_config(folder, name) or {})


def protected_in(config: dict[str, Any]) -> bool:
    """The `protected` setting of a policy configuration's environment entry."""
    own = config.get(ENVIRONMENT_ENTRY)
    return isinstance(own, dict) and own.get("protected") is True


def list_environments(project_dir: Path) -> list[EnvironmentSettings]:
    return [environment_settings(project_dir, name) for name in environment_names(project_dir)]


def new_environment_config(project_dir: Path, name: str, source: str) -> dict[str, Any]:
    """The policy configuration of a new environment NAME copied from SOURCE, its environment entry renamed.
    InputError (exit 2) naming the argument and the fix for a bad name, an existing one or an unknown source."""
    known = environment_names(project_dir)
    if not ENVIRONMENT_NAME.match(name or ""):
        raise InputError([problem(None, "NAME", "not an environment name: a lowercase letter, then up to 31 "
                                  "lowercase letters, digits or '-' (not ending in '-')", "e.g. qa or prod-eu", name)])
    if name in known:
        raise InputError([problem(str(config_dir(project_dir) / f"{name}.json"), "NAME", "this environment exists",
                                  "choose another name, or edit its policy configuration", name)])
    if source not in known:
        raise InputError([problem(None, "--from", "unknown environment", f"use one of: {', '.join(known)}", source)])
    config = dict(read_policy_config(project_dir, source) or {})
    own = config.get(ENVIRONMENT_ENTRY)
    config[ENVIRONMENT_ENTRY] = {**(own if isinstance(own, dict) else {}), "environment": name}
    return config


def write_environment(project_dir: Path, name: str, config: dict[str, Any]) -> Path:
    from accelfit.atomicwrite import write_atomically

    path = config_dir(project_dir) / f"{name}.json"
    lines = ",\n".join(f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in config.items())
    return write_atomically(path, ("{\n" + lines + "\n}\n").encode(), what="the environment's policy configuration")


def deploy_targets(project_dir: Path) -> list[dict[str, Any]]:
    """What deploy.yml deploys on a merge to main, in order: each environment that has a stack of its own name
    (stacks/Pulumi.<env>.yaml), the less guarded first (no lock, then lock, then reviewed), so an environment
    copied from staging deploys after dev and before prod. Each row: stack, locked, reviewed."""
    found = [item for item in list_environments(project_dir)
             if (project_dir / "stacks" / f"Pulumi.{item.name}.yaml").is_file()]
    found.sort(key=lambda item: (item.required_reviewers, item.require_lock, item.name))
    return [{"stack": item.name, "locked": item.require_lock, "reviewed": item.required_reviewers}
            for item in found]
