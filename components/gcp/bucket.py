"""DataBucket: the GCS bucket for datasets and checkpoints: uniform access, public access prevented,
versioning, soft delete, and lifecycle rules that keep a checkpoint's bytes no longer than the retention rule.

A checkpoint's bytes outlive its deletion twice: a versioned bucket keeps the replaced (noncurrent) version, and
soft delete keeps a deleted object for its retention (7 days by default). Before, a 30-day rule kept checkpoints
about 60 days (30 live + 30 noncurrent + 7 soft-deleted). Now the live checkpoint is deleted early enough that
live + noncurrent + soft-deleted + the lifecycle's own lag fits in `checkpoint_retention_days`.
Sources: https://cloud.google.com/storage/docs/lifecycle (conditions; Cloud Storage may take up to 24 hours to
act on a rule), https://cloud.google.com/storage/docs/soft-delete (7-day default, 7-90 days or 0 to disable),
https://cloud.google.com/storage/docs/object-versioning."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import storage

from accelfit.errors import InputError, problem
from accelfit.cloudrules.gcp.retention import (
    NONCURRENT_CHECKPOINT_DAYS,
    SOFT_DELETE_DAYS,
    live_checkpoint_days,
    retention_problem,
)

CHECKPOINT_PREFIX = "checkpoints/"
@dataclass(frozen=True)
class DataBucketArgs:
    location: str
    """Region of the accelerators, so reads never cross regions (no egress, low latency)."""
    versioning: bool = True
    checkpoint_retention_days: int = 30
    """The longest a checkpoint's bytes are kept, counting its replaced version, soft delete and lifecycle lag.
    Replaced versions of other objects (datasets) are kept this long too."""
    protect: bool = False
    """Pulumi `protect` (prod): the bucket cannot be deleted by a stack update."""
    readers_writers: tuple[pulumi.Input[str], ...] = ()
    """IAM members (serviceAccount:...) given object read/write on this bucket only."""
    labels: dict[str, str] = field(default_factory=dict)


class DataBucket(pulumi.ComponentResource):
    bucket: storage.Bucket

    def __init__(self, name: str, args: DataBucketArgs, opts: pulumi.ResourceOptions | None = None):
        reason = retention_problem(args.checkpoint_retention_days)
        if reason:
            raise InputError([problem(f"DataBucket {name}", "checkpoint_retention_days", *reason,
                                      args.checkpoint_retention_days)])
        super().__init__("accelfit:gcp:DataBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        days = args.checkpoint_retention_days

        # https://cloud.google.com/storage/docs/lifecycle#conditions
        rules = [storage.BucketLifecycleRuleArgs(
            action=storage.BucketLifecycleRuleActionArgs(type="Delete"),
            condition=storage.BucketLifecycleRuleConditionArgs(age=live_checkpoint_days(days),
                                                               matches_prefixes=[CHECKPOINT_PREFIX]))]
        if args.versioning:
            # Versioning keeps overwritten/deleted objects: a replaced checkpoint goes after a day, a replaced
            # dataset object after the retention.
            rules.append(storage.BucketLifecycleRuleArgs(
                action=storage.BucketLifecycleRuleActionArgs(type="Delete"),
                condition=storage.BucketLifecycleRuleConditionArgs(
                    days_since_noncurrent_time=NONCURRENT_CHECKPOINT_DAYS, with_state="ARCHIVED",
                    matches_prefixes=[CHECKPOINT_PREFIX])))
            rules.append(storage.BucketLifecycleRuleArgs(
                action=storage.BucketLifecycleRuleActionArgs(type="Delete"),
                condition=storage.BucketLifecycleRuleConditionArgs(days_since_noncurrent_time=days,
                                                                   with_state="ARCHIVED")))

        self.bucket = storage.Bucket(
            f"{name}-bucket", location=args.location.upper(), storage_class="STANDARD",
            uniform_bucket_level_access=True, public_access_prevention="enforced",
            versioning=storage.BucketVersioningArgs(enabled=args.versioning),
            lifecycle_rules=rules, force_destroy=False, labels=args.labels,
            soft_delete_policy=storage.BucketSoftDeletePolicyArgs(
                retention_duration_seconds=SOFT_DELETE_DAYS * 24 * 3600),
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect))
        for index, member in enumerate(args.readers_writers):
            storage.BucketIAMMember(f"{name}-object-user-{index}", bucket=self.bucket.name,
                                    role="roles/storage.objectUser", member=member, opts=child)

        self.bucket_name = self.bucket.name
        self.url = self.bucket.url
        self.register_outputs({"bucket_name": self.bucket.name, "url": self.bucket.url})
