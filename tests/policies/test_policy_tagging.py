"""Tagging rules: passing and failing case each, called directly."""

from __future__ import annotations

from policy_resources import aws, edit, gcs_bucket, gke_gpu_pool, iap_firewall, resource_args, violations

from policies.accelfit_policies import tagging


def test_ownership_labels_pass_on_labelled_resources_and_skip_unlabellable_ones():
    for resource in (gcs_bucket(), gke_gpu_pool(), aws("llm-pretrain-pool-gpu-ng"), iap_firewall()):
        assert violations(tagging.ownership_labels_policy(), resource_args(resource)) == []


def test_ownership_labels_fail_naming_the_missing_keys():
    pool = edit(gke_gpu_pool(), lambda p: p["nodeConfig"]["resourceLabels"].pop("cost-center"))
    [message] = violations(tagging.ownership_labels_policy(), resource_args(pool))
    assert "cost-center" in message and "nodeConfig.resourceLabels" in message and "llm-train-gpu-pool" in message
    untagged = edit(aws("llm-pretrain-pool-gpu-ng"), lambda p: p.pop("tags"))
    assert "team, cost-center, environment, workload" in violations(
        tagging.ownership_labels_policy(), resource_args(untagged))[0]


def test_environment_label_passes_when_it_matches():
    assert violations(tagging.environment_label_policy(), resource_args(gcs_bucket(), {"environment": "staging"})) == []


def test_environment_label_fails_on_mismatch_and_reads_the_stack_tag():
    [message] = violations(tagging.environment_label_policy(), resource_args(gcs_bucket(), {"environment": "prod"}))
    assert "environment=staging in a prod stack" in message
    args = resource_args(gcs_bucket(), None, {"accelfit:environment": "dev"})
    assert violations(tagging.environment_label_policy(), args)
