"""Storage rules checked before anything is created: checkpoint retention that holds with versioning and soft
delete, and Filestore sizes on the tier's steps (the components used by hand, without a plan)."""

from __future__ import annotations

import pytest

from accelfit.errors import InputError
from accelfit.preview.recorder import record
from components.gcp.bucket import DataBucket, DataBucketArgs, live_checkpoint_days
from components.gcp.filestore import SharedFilestore, SharedFilestoreArgs


def _bucket(days: int) -> dict:
    recording = record(lambda: DataBucket("ckpt", DataBucketArgs(location="us-central1",
                                                                   checkpoint_retention_days=days)))
    return recording.named("ckpt-bucket").inputs


def _longest_checkpoint_lifetime_days(bucket: dict) -> int:
    """Live age + replaced-version days + soft delete + up to a day of lifecycle lag for each of the two rules."""
    rules = [rule["condition"] for rule in bucket["lifecycleRules"]
             if rule["condition"].get("matchesPrefixes") == ["checkpoints/"]]
    live = next(rule["age"] for rule in rules if "age" in rule)
    noncurrent = min(rule["daysSinceNoncurrentTime"] for rule in rules if "daysSinceNoncurrentTime" in rule)
    soft_delete = bucket["softDeletePolicy"]["retentionDurationSeconds"] // 86400
    return live + noncurrent + soft_delete + 2


@pytest.mark.parametrize("days", [11, 14, 30, 60])
def test_a_checkpoints_bytes_are_gone_within_the_retention_rule(days):
    assert _longest_checkpoint_lifetime_days(_bucket(days)) == days
    assert live_checkpoint_days(days) >= 1


def test_a_retention_shorter_than_soft_delete_allows_is_refused():
    with pytest.raises(InputError) as caught:
        _bucket(7)
    [item] = caught.value.problems
    assert item.field == "checkpoint_retention_days" and "soft delete" in item.message and "11 days" in item.fix


def _filestore(tier: str, gib: int) -> dict:
    recording = record(lambda: SharedFilestore("fs", SharedFilestoreArgs(
        tier=tier, capacity_gib=gib, network="vpc", region="us-central1", zone="us-central1-a")))
    return recording.named("fs-filestore").inputs


def test_filestore_on_the_tiers_steps_is_created():
    assert _filestore("ZONAL", 20480)["fileShares"]["capacityGb"] == 20480
    assert _filestore("REGIONAL", 100)["location"] == "us-central1"


@pytest.mark.parametrize(("tier", "gib", "fix"), [("ZONAL", 19456, "20480"), ("ZONAL", 1000, "1024"),
                                                  ("BASIC_SSD", 1024, "2560")])
def test_filestore_off_the_tiers_steps_is_refused_with_the_next_size(tier, gib, fix):
    with pytest.raises(InputError) as caught:
        _filestore(tier, gib)
    [item] = caught.value.problems
    assert item.field == "capacity_gib" and fix in item.fix
