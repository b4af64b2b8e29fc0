"""The Pulumi program: stack config -> workload spec -> plan (locked selection respected) -> components.

`__main__.py` calls `run()`; `accelfit preview` calls it too, under mocks, so both build exactly the same thing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    plan: Plan | None
    lock: LockStatus | None
    fleet: Any = None
    """The FleetPlan of a fleet stack (`accelfit:workloads`); then `plan` and `lock` are None."""
    locks: Mapping[str, LockStatus] = field(default_factory=dict)
    """A fleet's lock status per workload."""


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
    if config.get_object("workloads") is not None:
        return _run_fleet(project_dir, stack, source, config, environment)
    prefix = f"config.{WORKLOAD_KEY}"
    spec = validate(WorkloadSpec, config.require_object("workload"), str(source), prefix)
    loaded = with_inventory(spec, source, prefix)
    raw_selection = config.get_object("selection")
    selection = read_selection(raw_selection, str(source), f"config.{project}:selection") \
        if raw_selection is not None else None
    catalog = load_catalog()
    require_lock = lock_required(config)
    # The environment's policy configuration constrains the plan, so it never chooses what the policies flag.
    constraints = plan_constraints(project_dir, environment, catalog)
    plan, lock = plan_with_lock(spec, catalog, Environment(environment, loaded.inventory, load_team_efficiency(),
                                                           constraints), selection, require_lock=require_lock,
                              stack=stack)
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


def lock_required(config: pulumi.Config) -> bool:
    """A CI that must build only what was reviewed sets ACCELFIT_LOCKED=1 (or the stack sets accelfit:requireLock):
    then a missing or stale lock fails the update instead of building a fresh plan."""
    return bool(config.get_bool("requireLock")) or os.environ.get(LOCKED_ENV, "").lower() in TRUE_WORDS


def _run_fleet(project_dir: Path, stack_name: str, source: Path, config: pulumi.Config,
               environment: str) -> ProgramResult:
    """The fleet form: every workload planned (its own lock), the fleet placed (shared clusters), then built: each
    shared cluster once with each workload's pools, and the workloads placed alone on their own."""
    from accelfit.planner import plan_fleet
    from accelfit.policy_config import stack_environment
    from accelfit.stackfile import load_stack_file
    from components.build import build_fleet

    stack = load_stack_file(source, stack_name, project_dir)
    catalog = load_catalog()
    require_lock = lock_required(config)
    environments = [stack_environment(stack, catalog, loaded) for loaded in stack.workloads]
    fleet, locks = plan_fleet(stack.specs, catalog, environments, stack.selections, fleet_name=stack.fleet,
                              require_lock=require_lock, stack=stack_name)
    for lock in locks.values():
        if lock.state == "stale":
            pulumi.log.warn(lock.message)
    ownership = Ownership(team=config.require("team"), cost_center=config.require("costCenter"),
                          environment=environment, workload=fleet.name)
    build_fleet(fleet, ownership, catalog, {loaded.spec.name: (loaded.inventory, str(loaded.inventory_path)
                                                               if loaded.inventory_path else "inventory")
                                            for loaded in stack.workloads})
    pulumi.export("fleet", {"name": fleet.name, "clusters": [cluster.name for cluster in fleet.clusters],
                            "monthly_usd": fleet.monthly_usd, "full_scale_monthly_usd": fleet.full_scale_monthly_usd,
                            "run_total_usd": fleet.run_total_usd, "saves_monthly_usd": fleet.saves_monthly_usd})
    pulumi.export("workloads", {member.name: {
        "option": member.plan.option, "platform": member.plan.platform.value, "region": member.plan.region,
        "accelerator": member.plan.accelerator.name, "count": member.plan.accelerator.count,
        "cluster": member.cluster, "monthly_usd": member.monthly_usd, "run_total_usd": member.run_total_usd}
        for member in fleet.workloads})
    return ProgramResult(plan=None, lock=None, fleet=fleet, locks=locks)


__all__ = ["ProgramResult", "run"]
