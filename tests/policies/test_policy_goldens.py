"""Every component golden file (the real recorded inputs) under its own environment's config: no mandatory
violation, except the budget where an example is bigger than that environment's budget (documented below)."""

from __future__ import annotations

import pytest
from policy_resources import GOLDEN_FILES, config, golden

from policies.runner import mandatory, run_policies

# The staging-labelled examples are full-size training runs (200-300k USD/month), far above the staging budget
# in policies/config/staging.json; the budget rule is exercised on its own in test_policy_cost.py.
BUDGET_EXEMPT = {"stack-monthly-budget"}


def environment_of(resources) -> str:
    envs = {str(labels["environment"]) for r in resources
            for labels in [r["props"].get("labels") or r["props"].get("tags") or {}] if "environment" in labels}
    assert len(envs) == 1, envs
    return envs.pop()


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[path.stem for path in GOLDEN_FILES])
def test_golden_examples_have_no_mandatory_violation_in_their_environment(path):
    resources = golden(path)
    env = environment_of(resources)
    found = [v for v in mandatory(run_policies(resources, config(env))) if v.policy not in BUDGET_EXEMPT]
    assert found == [], [(v.policy, v.name, v.message) for v in found]


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[path.stem for path in GOLDEN_FILES])
def test_golden_examples_are_clean_on_security_and_accelerator_rules_even_under_prod(path):
    # Data safety (protect, deletion protection) is what separates prod from staging; everything else holds.
    found = {v.policy for v in mandatory(run_policies(golden(path), config("prod")))}
    assert found <= {"stack-monthly-budget", "environment-label-matches-stack", "checkpoint-bucket-protected",
                     "deletion-protection", "lustre-data-durable"}, found
