"""DataBucket: the S3 bucket for datasets and checkpoints.

Private (all four public-access blocks on, ACLs disabled), versioned, encrypted with SSE-KMS and a bucket key,
TLS-only, and with a lifecycle that ages out old checkpoints and abandoned multipart uploads. Uses the separate
bucket-configuration resources: the inline `Bucket` settings are deprecated in pulumi-aws 7 (reference 3.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.errors import Problem
from components.aws.checks import args_problem, raise_if_any
from components.aws.iam_documents import deny_insecure_transport_policy
from components.common import child_name

_COMPONENT = "DataBucket"

CHECKPOINT_PREFIX = "checkpoints/"
DATASET_PREFIX = "datasets/"
# Parts of uploads that never completed are billed until removed; a week covers any real upload
# (https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpu-abort-incomplete-mpu-lifecycle-config.html).
ABORT_MULTIPART_DAYS = 7


@dataclass(frozen=True)
class DataBucketArgs:
    checkpoint_retention_days: int = field(
        default=30, metadata={"doc": "Checkpoints older than this expire; replaced versions are kept as long."})
    versioning: bool = True
    protect: bool = field(default=False, metadata={"doc": "Pulumi protect: refuse to delete the bucket (prod)."})
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None


def validate_bucket_args(args: DataBucketArgs) -> list[Problem]:
    if args.checkpoint_retention_days < 1:
        return [args_problem(_COMPONENT, "checkpoint_retention_days", "must be at least 1 day",
                             "keep checkpoints for 1 day or more", args.checkpoint_retention_days)]
    return []


class DataBucket(pulumi.ComponentResource):
    bucket_name: pulumi.Output[str]
    bucket_arn: pulumi.Output[str]

    def __init__(self, name: str, args: DataBucketArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_bucket_args(args))
        super().__init__("accelfit:aws:DataBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)

        bucket = aws.s3.Bucket(child_name(name, "bucket"), force_destroy=False, region=args.region, tags=tags,
                               opts=pulumi.ResourceOptions(parent=self, protect=args.protect))
        aws.s3.BucketPublicAccessBlock(child_name(name, "public-access"), bucket=bucket.id, block_public_acls=True,
                                       block_public_policy=True, ignore_public_acls=True,
                                       restrict_public_buckets=True, region=args.region, opts=child)
        # BucketOwnerEnforced disables ACLs: access is decided by policies alone.
        aws.s3.BucketOwnershipControls(child_name(name, "ownership"), bucket=bucket.id,
                                       rule=aws.s3.BucketOwnershipControlsRuleArgs(
                                           object_ownership="BucketOwnerEnforced"),
                                       region=args.region, opts=child)
        versioning = aws.s3.BucketVersioning(
            child_name(name, "versioning"), bucket=bucket.id, region=args.region,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(
                status="Enabled" if args.versioning else "Suspended"), opts=child)
        # A bucket key cuts KMS requests (and their cost) for the many small reads training does
        # (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-key.html).
        aws.s3.BucketServerSideEncryptionConfiguration(
            child_name(name, "encryption"), bucket=bucket.id, region=args.region,
            rules=[aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.
                BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms"),
                bucket_key_enabled=True)], opts=child)
        retention = args.checkpoint_retention_days
        aws.s3.BucketLifecycleConfiguration(
            child_name(name, "lifecycle"), bucket=bucket.id, region=args.region,
            rules=[
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="checkpoints-age-out", status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=CHECKPOINT_PREFIX),
                    expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(days=retention)),
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="replaced-versions-and-stale-uploads", status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                    noncurrent_version_expiration=aws.s3.
                    BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(noncurrent_days=retention),
                    abort_incomplete_multipart_upload=aws.s3.
                    BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                        days_after_initiation=ABORT_MULTIPART_DAYS)),
            ],
            # Noncurrent-version rules only make sense once versioning is on
            # (https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-and-other-bucket-config.html).
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]))
        aws.s3.BucketPolicy(child_name(name, "tls-only"), bucket=bucket.id, region=args.region,
                            policy=bucket.arn.apply(deny_insecure_transport_policy), opts=child)

        self.bucket_name = bucket.bucket
        self.bucket_arn = bucket.arn
        self.register_outputs({"bucket_name": self.bucket_name, "bucket_arn": self.bucket_arn})
