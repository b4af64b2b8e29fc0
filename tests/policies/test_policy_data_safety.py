"""Data-safety rules: passing and failing case each, called directly."""

from __future__ import annotations

from policy_resources import aws, edit, filestore, gcs_bucket, gke_cluster, resource_args, stack_args, violations

from policies.accelfit_policies import data_safety


def test_versioning_passes_and_fails():
    assert violations(data_safety.versioned_policy(), resource_args(gcs_bucket())) == []
    assert violations(data_safety.versioned_policy(), resource_args(aws("llm-pretrain-data-versioning"))) == []
    off = edit(gcs_bucket(), lambda p: p.update(versioning={"enabled": False}))
    assert "versioning.enabled: true" in violations(data_safety.versioned_policy(), resource_args(off))[0]
    suspended = edit(aws("llm-pretrain-data-versioning"),
                     lambda p: p["versioningConfiguration"].update(status="Suspended"))
    assert "Suspended" in violations(data_safety.versioned_policy(), resource_args(suspended))[0]


def test_bucket_protection_passes_when_protected_and_fails_otherwise():
    protected = {**gcs_bucket(), "protect": True}
    assert violations(data_safety.bucket_protected_policy(), resource_args(protected)) == []
    [message] = violations(data_safety.bucket_protected_policy(), resource_args(gcs_bucket()))
    assert "protect is false" in message and "protect=True" in message


def test_deletion_protection_passes_and_fails():
    on = edit(gke_cluster(), lambda p: p.update(deletionProtection=True))
    assert violations(data_safety.deletion_protection_policy(), resource_args(on)) == []
    for resource in (gke_cluster(), aws("llm-pretrain-cluster-eks"), filestore()):
        assert violations(data_safety.deletion_protection_policy(), resource_args(resource)), resource["name"]


def test_lustre_passes_when_linked_to_the_bucket_and_fails_alone():
    fs, link = aws("llm-pretrain-lustre-fs"), aws("llm-pretrain-lustre-bucket-link")
    assert violations(data_safety.lustre_policy(), stack_args([fs, link])) == []
    [message] = violations(data_safety.lustre_policy(), stack_args([fs]))
    assert "no backups" in message and "automaticBackupRetentionDays" in message
    backed_up = edit(fs, lambda p: p.update(automaticBackupRetentionDays=7))
    assert violations(data_safety.lustre_policy(), stack_args([backed_up])) == []
    assert violations(data_safety.lustre_policy(), stack_args([fs, link], {"requireProtect": True}))
