"""`accelfit preview --stack ENV`: the stack's program run in-process under mocks, every resource recorded,
priced and checked by the real policy pack, as one stable document (consumed by `accelfit diff` and CI)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelfit.clouds import all_clouds, cloud_of_platform
from accelfit.errors import InputError, problem
from accelfit.policy_config import read_policy_config
from accelfit.preview.budgets import budget_lines, spec_budget_violations
from accelfit.pricing import PricingContext
from accelfit.stackfile import SECRET_PLACEHOLDER, StackFile, load_stack

PREVIEW_SCHEMA_VERSION = 1


@dataclass
class Timings:
    imports_s: float = 0.0
    program_s: float = 0.0
    pricing_s: float = 0.0
    policies_s: float = 0.0


@dataclass
class PreviewResult:
    document: dict[str, Any]
    mandatory_violations: int
    timings: Timings = field(default_factory=Timings)


def pricing_context(stack: StackFile, plan: Any, spec: Any = None) -> PricingContext:
    """What the resources cannot say, from the plan: regions, the bucket's size, the pricing model, the training
    run's length (with its platform's stated overheads) and the spec's egress. `spec` is the plan's workload spec
    (default: the stack's one workload)."""
    from accelfit.planner.serving.route_plan import route_gb
    from accelfit.pricing.overheads import run_window

    spec = spec if spec is not None else stack.spec
    dataset, checkpoints = plan.storage.dataset_tb, plan.storage.checkpoint_tb
    gib = (dataset + checkpoints) * 1e12 / 2**30
    training = spec.training is not None
    # Each provider's region: the plan's for the cloud it runs on, the stack's region key for the others.
    regions = {**{cloud.name: stack.get(cloud.region_key) for cloud in all_clouds() if cloud.region_key},
               plan.cloud.value: plan.region}
    return PricingContext(
        regions=regions,
        bucket_gib=gib, bucket_basis=f"the spec's {dataset:g} TB dataset + {checkpoints:g} TB of checkpoints",
        pricing=plan.pricing, run=run_window(plan.platform.value, plan.estimate.hours) if training else None,
        egress_tb_per_month=spec.data.egress_tb_per_month, egress_cloud=plan.cloud.value,
        egress_region=plan.region, serving_gb_per_month={plan.workload: route_gb(spec)} if plan.route is not None else {})


def policy_config(stack: StackFile) -> dict[str, Any]:
    return read_policy_config(stack.project_dir, stack.environment) or {}  # required: None never comes back


UNSET_SECRET = "[unset]"


def with_unset_secrets(stack: StackFile) -> tuple[dict[str, str], dict[str, str]]:
    """The stack's config for the mocks, with a placeholder for each host-access secret that is not set, and the
    command that sets each one. Offline, an unset secret is no reason to stop (as an encrypted one is not);
    `pulumi up` still requires them, and the preview says which are missing."""
    from components.baremetal.access import SECRET_KEYS

    config = stack.pulumi_config()
    unset = {f"{stack.project}:{key}": command for key, command in SECRET_KEYS.items()
             if f"{stack.project}:{key}" not in config}
    # A hybrid workload's MultiKueue manager (placement.overflow), same treatment.
    if any(spec.placement.overflow is not None for spec in stack.specs):
        from accelfit.planner.fleet.hybrid import MANAGER_FIX, MANAGER_KEY

        key = f"{stack.project}:{MANAGER_KEY}"
        if key not in config:
            unset[key] = MANAGER_FIX
    # hf:// model weights: the token a model server downloads them with (model.weights_token), same treatment.
    unset.update({spec.model.weights_token: f"pulumi config set --secret {spec.model.weights_token} hf_..."
                  for spec in stack.specs if spec.model.weights_token and spec.model.weights_token not in config})
    return {**config, **dict.fromkeys(unset, UNSET_SECRET)}, unset


def blind_secrets(value: Any, secrets: tuple[str, ...]) -> Any:
    """`value` with every occurrence of a secret's text replaced by [secret], wherever a resource copied it."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, SECRET_PLACEHOLDER)
        return value
    if isinstance(value, dict):
        return {key: blind_secrets(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [blind_secrets(item, secrets) for item in value]
    return value


def preview_stack(name: str, project_dir: Path | None = None, *, locked: bool = False) -> PreviewResult:
    """`locked`: build only the stack's locked selection; a missing or stale lock raises `LockRequired`."""
    from accelfit.preview.collection import collection_paused

    with collection_paused():
        return _preview_stack(name, project_dir, locked=locked)


def _preview_stack(name: str, project_dir: Path | None, *, locked: bool) -> PreviewResult:
    timings = Timings()
    started = time.perf_counter()
    stack = load_stack(name, project_dir)
    from accelfit.preview.recorder import record
    from components.program import run

    from accelfit.preview.policy_bridge import run_pack
    timings.imports_s = time.perf_counter() - started

    started = time.perf_counter()
    outcome: dict[str, Any] = {}
    config, unset = with_unset_secrets(stack)
    if locked:
        config[f"{stack.project}:requireLock"] = "true"
    recording = record(lambda: outcome.setdefault("result", run(stack.project_dir)), project=stack.project,
                       stack=stack.name, config=config, secret_keys=[*stack.secret_keys(), *unset])
    if recording.duplicate_urns:
        raise InputError([problem(str(stack.path), "resources", "two resources share a name",
                                  "give each resource its own name", sorted(set(recording.duplicate_urns)))])
    result = outcome["result"]
    timings.program_s = time.perf_counter() - started

    # One pricing path for both forms: the stack's fleet (a fleet of one in the single form) priced workload by
    # workload (accelfit/preview/fleet_document.py); the one-workload document is a view of it.
    started = time.perf_counter()
    from accelfit.catalog import load_catalog
    from accelfit.preview.fleet_document import fleet_costs

    # Registration order under mocks varies from run to run (executor threads): order by URN, so the document
    # (its assumptions, its violations) is the same every time.
    recorded = sorted(recording.resources, key=lambda resource: resource.urn)
    costs, owners = fleet_costs(recorded, stack, result.fleet, load_catalog(),
                                lambda spec, plan: pricing_context(stack, plan, spec))
    timings.pricing_s = time.perf_counter() - started

    started = time.perf_counter()
    policies = policy_config(stack)
    # The one-workload document lists violations in registration order, as it always has (its goldens); the
    # fleet document in URN order.
    checked = recording.resources if result.single else recorded
    pack = run_pack(checked, policies, stack, price=lambda resources, _catalog: costs.report())
    view = _one_workload_document if result.single else _fleet_document
    document = view(stack, result, recorded, costs, owners, policies, pack)
    timings.policies_s = time.perf_counter() - started
    on_metal = any(cloud_of_platform(member.plan.platform).owned for member in result.fleet.workloads)
    tokens = {spec.model.weights_token for spec in stack.specs if spec.model.weights_token}
    shown = unset if on_metal else {key: command for key, command in unset.items() if key in tokens}
    return _finished(document, stack, shown, pack, timings)


def _one_workload_document(stack: StackFile, result: Any, recorded: list[Any], costs: Any, owners: dict[str, str],
                           policies: dict[str, Any], pack: dict[str, Any]) -> dict[str, Any]:
    """The single form's document (`accelfit:workload`): its fleet of one shown as that one workload's spec, plan,
    lock, budget and cost, the shapes `accelfit diff` and the PR comment read."""
    report = costs.own[result.fleet.workloads[0].name]
    budgets = budget_lines(stack.spec.budget, stack.environment, report.figures_json(), policies,
                           f"policies/config/{stack.environment}.json")
    pack["violations"] = pack["violations"] + spec_budget_violations(budgets)
    return {
        "schema_version": PREVIEW_SCHEMA_VERSION,
        "stack": stack.name,
        "environment": stack.environment,
        "spec": stack.spec.model_dump(mode="json"),
        "plan": result.fleet.workloads[0].shown_json(),  # as `plan --stack --json` prints it: with its chain
        "lock": result.lock.to_json_dict(),
        "budget": {"max_monthly_usd": stack.spec.budget.max_monthly_usd,
                   "max_total_usd": stack.spec.budget.max_total_usd, "lines": budgets},
        "resources": _resource_rows(recorded, costs.by_urn()),
        "cost": {**report.figures_json(),
                 "usage": [{"item": item.name, "monthly_usd": item.monthly_usd,
                            "full_scale_monthly_usd": item.full_scale_monthly_usd, "run_usd": item.run_usd,
                            "basis": item.basis} for item in report.usage],
                 "assumptions": list(report.assumptions) + list(result.plan.estimate.cost_assumptions)},
        "policies": pack,
    }


def _resource_rows(recorded: list[Any], by_urn: dict[str, Any], owners: dict[str, str] | None = None
                   ) -> list[dict[str, Any]]:
    names = {r.urn: r.name for r in recorded}
    rows = []
    for r in recorded:
        cost = by_urn.get(r.urn)
        row = {"type": r.type, "name": r.name, "urn": r.urn, "parent": names.get(r.parent) if r.parent else None,
               "custom": r.custom, "inputs": r.inputs, "protect": r.protect,
               # What the engine orders this resource after (accelfit/ordering checks these against the clouds'
               # rules): every dependency, the inputs each one flows into, and the provider that creates it.
               "dependencies": sorted(set(r.dependencies)),
               "input_dependencies": {key: sorted(set(urns)) for key, urns in sorted(r.input_dependencies.items())},
               "provider": r.provider_urn,
               "monthly_usd": cost.monthly_usd if cost else 0.0,
               "full_scale_monthly_usd": cost.full_scale_monthly_usd if cost else 0.0,
               "run_usd": cost.run_usd if cost else None, "cost_basis": cost.basis if cost else None}
        if owners is not None:
            row["workload"] = owners.get(r.urn) or None
        if r.ignore_changes:
            # Inputs the engine keeps from the state on an update: `accelfit diff` must not call them changes.
            row["ignore_changes"] = list(r.ignore_changes)
        rows.append(row)
    return sorted(rows, key=lambda item: item["urn"])


def _fleet_document(stack: StackFile, result: Any, recorded: list[Any], costs: Any, owners: dict[str, str],
                    policies: dict[str, Any], pack: dict[str, Any]) -> dict[str, Any]:
    """A fleet stack's document (accelfit/preview/fleet_document.py): cost per workload and for the fleet."""
    from accelfit.preview.fleet_document import (
        FORM, fleet_budget_lines, fleet_cost_section, workload_budget_violations,
    )

    fleet = result.fleet
    budgets = fleet_budget_lines(stack, fleet, costs, policies)
    pack["violations"] = pack["violations"] + workload_budget_violations(budgets)
    assumptions = list(dict.fromkeys([*costs.report().assumptions, *(
        line for member in fleet.workloads for line in member.plan.estimate.cost_assumptions)]))
    return {
        "schema_version": PREVIEW_SCHEMA_VERSION,
        "stack": stack.name,
        "environment": stack.environment,
        "form": FORM,
        "fleet": fleet.name,
        "specs": [spec.model_dump(mode="json") for spec in stack.specs],
        "plan": fleet.to_json_dict(),
        "lock": {"workloads": {name: lock.to_json_dict() for name, lock in result.locks.items()}},
        "budget": {"lines": budgets},
        "resources": _resource_rows(recorded, costs.by_urn(), owners),
        "cost": fleet_cost_section(fleet, costs, assumptions, stack.specs),
        "policies": pack,
    }


def _finished(document: dict[str, Any], stack: StackFile, unset: dict[str, str], pack: dict[str, Any],
              timings: Timings) -> PreviewResult:
    """The document's closing parts (host secrets still to set, the stack's warnings), every secret blinded, and
    the count of mandatory violations the exit code follows."""
    if unset:
        document["unset_secrets"] = [{"key": key, "set_with": unset[key]} for key in sorted(unset)]
    if stack.warnings:
        document["warnings"] = list(stack.warnings)
    document = blind_secrets(document, stack.secret_values())
    mandatory = sum(1 for violation in pack["violations"] if violation["level"] == "mandatory")
    return PreviewResult(document=document, mandatory_violations=mandatory, timings=timings)
