"""The environment's policy configuration constrains the plan: the planner never chooses what its own
environment's policies flag, and a rejection names the policy (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, NoFeasiblePlan, plan
from accelfit.planner.constraints import PolicyConstraints
from accelfit.policy_config import plan_constraints
from accelfit.preview.run import preview_stack
from accelfit.spec import WorkloadSpec

ROOT = Path(__file__).parents[2]
STACKS = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                for path in (ROOT / "stacks").glob("Pulumi.*.yaml") if "onprem" not in path.name)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def spec(**overrides) -> WorkloadSpec:
    document = {
        "name": "pretrain", "kind": "training", "framework": "pytorch", "maturity": "stable",
        "model": {"parameters": "7B", "precision": "bf16"}, "training": {"tokens": "5B", "deadline_days": 10},
        "placement": {"clouds": ["gcp", "aws"], "orchestration": "kubernetes"},
        "budget": {"pricing": "on-demand"}}
    document.update(overrides)
    return WorkloadSpec.model_validate(document)


def test_constraints_read_the_policy_config_as_data():
    config = json.loads((ROOT / "policies" / "config" / "dev.json").read_text())
    constraints = PolicyConstraints.from_policy_config(config, "policies/config/dev.json")
    assert "h100-80gb" not in constraints.allowed_accelerators and "l4" in constraints.allowed_accelerators
    assert constraints.max_accelerators == 16 and constraints.max_nodes_per_pool == 4
    assert constraints.spot_advised and not constraints.spot_only
    rule, reason = constraints.accelerator_rejection("h100-80gb")
    assert rule == "policy:accelerator-allow-list" and "policies/config/dev.json" in reason
    # A disabled rule constrains nothing; a mandatory spot rule rejects on-demand.
    off = PolicyConstraints.from_policy_config({"accelerator-allow-list": "disabled",
                                                "spot-outside-prod": "mandatory"}, "x.json")
    assert off.accelerator_rejection("h100-80gb") is None
    assert off.pricing_rejection("on-demand")[0] == "policy:spot-outside-prod"


def test_the_planner_never_chooses_an_accelerator_its_environment_rejects(catalog):
    workload = spec(placement={"clouds": ["gcp", "aws"], "orchestration": "kubernetes",
                               "accelerators": ["h100-80gb", "a100-80gb"]})
    free = plan(workload, catalog, Environment("dev"))
    constraints = plan_constraints(ROOT, "dev", catalog)
    constrained = plan(workload, catalog, Environment("dev", constraints=constraints))
    assert constrained.accelerator.name in constraints.allowed_accelerators
    assert constrained.accelerator.count <= 16
    rules = {rejection.rule for rejection in constrained.rejected}
    assert "policy:accelerator-allow-list" in rules or free.accelerator.name != "h100-80gb"


def test_a_rejection_names_the_policy_when_nothing_passes(catalog):
    workload = spec(placement={"clouds": ["aws"], "orchestration": "kubernetes", "accelerators": ["h100-80gb"]})
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(workload, catalog, Environment("dev", constraints=plan_constraints(ROOT, "dev", catalog)))
    assert failure.value.binding == "policy"
    assert "accelerator-allow-list" in failure.value.message and "policies/config/dev.json" in failure.value.message


def test_limits_reject_options_over_the_environment_limit(catalog):
    constraints = PolicyConstraints(source="limits.json", max_accelerators=8)
    workload = spec(training={"tokens": "100B", "deadline_days": 30})
    chosen = plan(workload, catalog, Environment("staging", constraints=constraints))
    assert chosen.accelerator.count <= 8
    assert any(r.rule == "policy:max-accelerators" and "limits.json" in r.reason for r in chosen.rejected)
    # When the limit leaves nothing, the error names the policy, not the deadline.
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(spec(training={"tokens": "2T", "deadline_days": 30}), catalog,
             Environment("staging", constraints=constraints))
    assert failure.value.binding == "policy" and "max-accelerators" in failure.value.message


@pytest.mark.parametrize("stack", STACKS)
def test_every_repo_stack_previews_without_an_allow_list_violation(stack):
    violations = preview_stack(stack, ROOT).document["policies"]["violations"]
    assert [v for v in violations if v["policy"] == "accelerator-allow-list"] == []


def test_a_pricing_preference_list_takes_the_cheapest_that_meets_the_deadline(catalog):
    both = spec(budget={"pricing": ["spot", "on-demand"]}, placement={"clouds": ["gcp"], "orchestration": "kubernetes"})
    chosen = plan(both, catalog, Environment("dev"))
    spot_only = plan(spec(budget={"pricing": "spot"}, placement=both.placement.model_dump()), catalog)
    on_demand = plan(spec(budget={"pricing": "on-demand"}, placement=both.placement.model_dump()), catalog)
    assert chosen.estimate.total_usd == min(spot_only.estimate.total_usd, on_demand.estimate.total_usd)
    assert any(reason.startswith("Pricing: spot, the cheapest of budget.pricing [spot, on-demand]")
               for reason in chosen.reasons)
    # A spot plan for deadline work states the interruption assumption it uses.
    assert any(reason.startswith("Spot interruptions: the run time assumes preemptions cost 15% extra")
               for reason in chosen.reasons)
    assert any(alternative.pricing == "on-demand" for alternative in chosen.alternatives)


def test_a_pricing_list_is_validated():
    with pytest.raises(ValueError, match="at most once"):
        spec(budget={"pricing": ["spot", "spot"]})
    assert spec(budget={"pricing": ["on-demand"]}).budget.pricing.value == "on-demand"
