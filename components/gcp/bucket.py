"""DataBucket: the GCS bucket for datasets and checkpoints: uniform access, public access prevented,
versioning, and lifecycle rules that age old checkpoints out."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import storage

from accelfit.errors import InputError, problem

CHECKPOINT_PREFIX = "checkpoints/"


@dataclass(frozen=True)
class DataBucketArgs:
    location: str
    """Region of the accelerators, so reads never cross regions (no egress, low latency)."""
    versioning: bool = True
    checkpoint_retention_days: int = 30
    """Objects under checkpoints/ older than this are deleted; so are replaced versions after this long."""
    protect: bool = False
    """Pulumi `protect` (prod): the bucket cannot be deleted by a stack update."""
    readers_writers: tuple[pulumi.Input[str], ...] = ()
    """IAM members (serviceAccount:...) given object read/write on this bucket only."""
    labels: dict[str, str] = field(default_factory=dict)


class DataBucket(pulumi.ComponentResource):
    bucket: storage.Bucket

    def __init__(self, name: str, args: DataBucketArgs, opts: pulumi.ResourceOptions | None = None):
        if args.checkpoint_retention_days < 1:
            raise InputError([problem(f"DataBucket {name}", "checkpoint_retention_days", "must be at least 1",
                                      "keep checkpoints for 1 day or more", args.checkpoint_retention_days)])
        super().__init__("accelfit:gcp:DataBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        days = args.checkpoint_retention_days

        # https://cloud.google.com/storage/docs/lifecycle#conditions
        rules = [storage.BucketLifecycleRuleArgs(
            action=storage.BucketLifecycleRuleActionArgs(type="Delete"),
            condition=storage.BucketLifecycleRuleConditionArgs(age=days, matches_prefixes=[CHECKPOINT_PREFIX]))]
        if args.versioning:
            # Versioning keeps overwritten/deleted objects; drop those versions after the same retention.
            rules.append(storage.BucketLifecycleRuleArgs(
                action=storage.BucketLifecycleRuleActionArgs(type="Delete"),
                condition=storage.BucketLifecycleRuleConditionArgs(days_since_noncurrent_time=days,
                                                                   with_state="ARCHIVED")))

        self.bucket = storage.Bucket(
            f"{name}-bucket", location=args.location.upper(), storage_class="STANDARD",
            uniform_bucket_level_access=True, public_access_prevention="enforced",
            versioning=storage.BucketVersioningArgs(enabled=args.versioning),
            lifecycle_rules=rules, force_destroy=False, labels=args.labels,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect))
        for index, member in enumerate(args.readers_writers):
            storage.BucketIAMMember(f"{name}-object-user-{index}", bucket=self.bucket.name,
                                    role="roles/storage.objectUser", member=member, opts=child)

        self.bucket_name = self.bucket.name
        self.url = self.bucket.url
        self.register_outputs({"bucket_name": self.bucket.name, "url": self.bucket.url})
