"""The Pulumi program: stack config -> workload spec -> plan (locked selection respected) -> components.

`__main__.py` calls `run()`; `accelfit preview` calls it too, under mocks, so both build exactly the same thing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pulumi

from accelfit.calibration.store import load_team_efficiency
from accelfit.catalog import load_catalog
from accelfit.planner import Environment, Plan
from accelfit.errors import InputError, problem
from accelfit.planner.lock import LOCKED_ENV, TRUE_WORDS, LockStatus, plan_with_lock
from accelfit.policy_config import plan_constraints
from accelfit.spec import WorkloadSpec
from accelfit.spec.loader import WORKLOAD_KEY, with_inventory
from accelfit.stackfile import (
    known_project_keys, read_project, read_selection, secret_named, stack_path, unknown_key_problems,
)
from accelfit.validation import validate
from components.build import build
from components.common import Ownership


@dataclass(frozen=True)
class ProgramResult:
    plan: Plan
    lock: LockStatus


def run(project_dir: Path | None = None) -> ProgramResult:
    project_dir = project_dir or Path.cwd()
    stack = pulumi.get_stack()
    source = stack_path(stack, project_dir)
    try:
        return _run(project_dir, stack, source)
    except InputError as error:
        # Components name the stack generically; the user needs the file to open.
        raise error.naming_file(str(source)) from None


def _run(project_dir: Path, stack: str, source: Path) -> ProgramResult:
    config = pulumi.Config()  # the project's namespace: accelfit:<key>
    project = pulumi.get_project()
    keys = set(pulumi.runtime.config.CONFIG.get()) | set(pulumi.runtime.config.get_config_env())
    typos = unknown_key_problems(sorted(keys), project, known_project_keys(read_project(project_dir)), str(source))
    if typos:
        raise InputError(typos)
    environment = config.get("environment") or stack
    plain = sorted(key for key in keys if secret_named(key) and not pulumi.runtime.config.is_config_secret(key))
    for key in plain:
        if environment == "prod":
            raise InputError([problem(str(source), f"config.{key}", "a secret is set in plain text, which prod "
                                      "refuses", f"run `pulumi config set --secret {key} ...`")])
        pulumi.log.warn(f"{key} is set in plain text; encrypt it: pulumi config set --secret {key} ...")
    prefix = f"config.{WORKLOAD_KEY}"
    spec = validate(WorkloadSpec, config.require_object("workload"), str(source), prefix)
    loaded = with_inventory(spec, source, prefix)
    raw_selection = config.get_object("selection")
    selection = read_selection(raw_selection, str(source), f"config.{project}:selection") \
        if raw_selection is not None else None
    catalog = load_catalog()
    # A CI that must build only what was reviewed sets ACCELFIT_LOCKED=1 (or the stack sets accelfit:requireLock):
    # then a missing or stale lock fails the update instead of building a fresh plan.
    require_lock = bool(config.get_bool("requireLock")) or os.environ.get(LOCKED_ENV, "").lower() in TRUE_WORDS
    # The environment's policy configuration constrains the plan, so it never chooses what the policies flag.
    constraints = plan_constraints(project_dir, environment, catalog)
    plan, lock = plan_with_lock(spec, catalog, Environment(environment, loaded.inventory, load_team_efficiency(),
                                                           constraints), selection, require_lock=require_lock)
    if lock.state == "stale":
        pulumi.log.warn(lock.message)
    ownership = Ownership(team=config.require("team"), cost_center=config.require("costCenter"),
                          environment=environment, workload=spec.name)
    build(plan, ownership, catalog, inventory=loaded.inventory,
          inventory_source=str(loaded.inventory_path) if loaded.inventory_path else "inventory")
    pulumi.export("plan", {"option": plan.option, "platform": plan.platform.value, "region": plan.region,
                           "accelerator": plan.accelerator.name, "count": plan.accelerator.count,
                           "monthly_usd": plan.estimate.monthly_usd, "total_usd": plan.estimate.total_usd})
    return ProgramResult(plan=plan, lock=lock)


__all__ = ["ProgramResult", "run"]
