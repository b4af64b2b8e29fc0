"""The Pulumi program: stack config -> the stack's workloads -> their plans (locks respected), placed -> components.

There is one way through, for both forms of a stack: `accelfit:workload` is a fleet of one, `accelfit:workloads`
a fleet; both are planned by `accelfit.planner.plan_fleet` and built by `components.build.build_fleet`.
`__main__.py` calls `run()`; `accelfit preview` calls it too, under mocks, so both build exactly the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pulumi

from accelfit.catalog import load_catalog
from accelfit.errors import InputError, problem
from accelfit.environments import is_protected
from accelfit.stack_plan import plan_stack_fleet
from accelfit.planner import FleetPlan, Plan
from accelfit.lock_setting import lock_required as parse_lock_required
from accelfit.planner.lock import LockStatus
from accelfit.stackfile import known_project_keys, load_stack_file, read_project, secret_named, stack_path, \
    unknown_key_problems
from components.build import build_fleet
from components.common import Ownership


@dataclass(frozen=True)
class ProgramResult:
    fleet: FleetPlan
    """The stack's plan: every workload's plan, placement, fallback chain and cost (a fleet of one, single form)."""
    locks: Mapping[str, LockStatus]
    """Lock status per workload."""
    single: bool = False
    """The single form (`accelfit:workload`): reports show its one workload's plan and lock."""

    @property
    def plan(self) -> Plan | None:
        """The single form's plan (its fleet's one workload); None for a fleet stack."""
        return self.fleet.workloads[0].shown_plan() if self.single else None

    @property
    def lock(self) -> LockStatus | None:
        return self.locks[self.fleet.workloads[0].name] if self.single else None


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
        if is_protected(environment, project_dir):
            raise InputError([problem(str(source), f"config.{key}", "a secret is set in plain text, which "
                                      f"{environment} refuses (a protected environment)",
                                      f"run `pulumi config set --secret {key} ...`")])
        pulumi.log.warn(f"{key} is set in plain text; encrypt it: pulumi config set --secret {key} ...")
    return _run_stack(project_dir, stack, source, config, environment)


def lock_required(config: pulumi.Config) -> bool:
    """A CI that must build only what was reviewed sets ACCELFIT_LOCKED=1 (or the stack sets accelfit:requireLock):
    then a missing or stale lock fails the update instead of building a fresh plan."""
    return parse_lock_required(config.get("requireLock"), "stack", f"{pulumi.get_project()}:requireLock")


def _run_stack(project_dir: Path, stack_name: str, source: Path, config: pulumi.Config,
               environment: str) -> ProgramResult:
    """Every workload planned (its own lock), placed (shared clusters in the fleet form; the single form's
    workload in a cluster of its own), then built: each shared cluster once with each workload's pools, and each
    workload placed alone (the single form's, TPU VMs, bare metal) as a stack of its own."""
    stack = load_stack_file(source, stack_name, project_dir)
    catalog = load_catalog()
    # Planned as every stack command plans it (the environment's policies and the stack's region constrain each
    # plan), then checked by the same stack rules `accelfit check` runs, before anything is created.
    fleet, locks = plan_stack_fleet(stack, catalog, require_lock=lock_required(config))
    for lock in locks.values():
        if lock.state == "stale":
            pulumi.log.warn(lock.message)
    from accelfit.expiry import expiry_label

    ownership = Ownership(team=config.require("team"), cost_center=config.require("costCenter"),
                          environment=environment, workload=fleet.name,
                          expires_at=expiry_label(config.get("expiresAt"), str(source)))
    build_fleet(fleet, ownership, catalog, {loaded.spec.name: (loaded.inventory, str(loaded.inventory_path)
                                                               if loaded.inventory_path else "inventory")
                                            for loaded in stack.workloads}, single=not stack.is_fleet)
    if not stack.is_fleet:
        plan = fleet.workloads[0].shown_plan()
        pulumi.export("plan", {"option": plan.option, "platform": plan.platform.value, "region": plan.region,
                               "accelerator": plan.accelerator.name, "count": plan.accelerator.count,
                               "monthly_usd": plan.estimate.monthly_usd, "total_usd": plan.estimate.total_usd})
        return ProgramResult(fleet=fleet, locks=locks, single=True)
    pulumi.export("fleet", {"name": fleet.name, "clusters": [cluster.name for cluster in fleet.clusters],
                            "monthly_usd": fleet.monthly_usd, "full_scale_monthly_usd": fleet.full_scale_monthly_usd,
                            "run_total_usd": fleet.run_total_usd, "saves_monthly_usd": fleet.saves_monthly_usd})
    pulumi.export("workloads", {member.name: {
        "option": member.plan.option, "platform": member.plan.platform.value, "region": member.plan.region,
        "accelerator": member.plan.accelerator.name, "count": member.plan.accelerator.count,
        "cluster": member.cluster, "monthly_usd": member.monthly_usd, "run_total_usd": member.run_total_usd}
        for member in fleet.workloads})
    return ProgramResult(fleet=fleet, locks=locks)


__all__ = ["ProgramResult", "run"]
