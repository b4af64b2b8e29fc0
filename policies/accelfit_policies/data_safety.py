"""Data-safety rules: checkpoint buckets versioned and protected, clusters and file systems that cannot be
deleted by accident in prod, and FSx for Lustre whose data survives the file system."""

from __future__ import annotations

from collections.abc import Sequence

from pulumi_policy import Policy, EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from .framework import Settings, resource_policy, stack_policy
from .security import GCS_BUCKET, S3_BUCKET
from .usage import EKS_CLUSTER, GKE_CLUSTER
from .view import ResourceView, fmt, get, number, truthy

S3_VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
FILESTORE = "gcp:filestore/instance:Instance"
LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
LUSTRE_LINK = "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation"


# ---- checkpoint-bucket-versioned ----------------------------------------------------------------------------

def check_versioned(view: ResourceView, settings: Settings) -> list[str]:
    if view.type == GCS_BUCKET and not truthy(get(view.props, "versioning.enabled")):
        return [f"{view.label} is not versioned (versioning.enabled is {get(view.props, 'versioning.enabled', 'unset')}"
                "); allowed: true. Fix: set versioning.enabled: true so an overwritten or deleted checkpoint can be "
                "restored (storage.bucket_versioning in the plan)."]
    if view.type == S3_VERSIONING:
        status = get(view.props, "versioningConfiguration.status", "unset")
        if status != "Enabled":
            return [f"{view.label} sets versioning to {status}; allowed: Enabled. Fix: set "
                    "versioningConfiguration.status: Enabled."]
    return []


def versioned_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("checkpoint-bucket-versioned", "Data and checkpoint buckets keep old object versions.",
                           check_versioned, None, enforcement_level)


# ---- checkpoint-bucket-protected ----------------------------------------------------------------------------

def check_bucket_protected(view: ResourceView, settings: Settings) -> list[str]:
    if view.type not in (GCS_BUCKET, S3_BUCKET):
        return []
    problems = []
    if not view.protect:
        problems.append("protect is false (allowed: true)")
    if truthy(get(view.props, "forceDestroy")):
        problems.append("forceDestroy is true (allowed: false)")
    if not problems:
        return []
    return [f"{view.label} can be deleted with its checkpoints: {'; '.join(problems)}. Fix: create it with "
            "ResourceOptions(protect=True) and forceDestroy: false (the components do in prod)."]


def bucket_protected_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("checkpoint-bucket-protected", "Checkpoint buckets cannot be deleted by a stack update.",
                           check_bucket_protected, None, enforcement_level)


# ---- deletion-protection ------------------------------------------------------------------------------------

def check_deletion_protection(view: ResourceView, settings: Settings) -> list[str]:
    # GKE defaults deletionProtection to true, EKS to false (reference 3.2, 3.4): unset only passes on GKE.
    flag = {GKE_CLUSTER: ("deletionProtection", True), EKS_CLUSTER: ("deletionProtection", False),
            FILESTORE: ("deletionProtectionEnabled", False)}.get(view.type)
    if flag is None:
        return []
    key, default = flag
    value = get(view.props, key, default)
    if truthy(value) or view.protect:
        return []
    return [f"{view.label} has {key} {value if key in view.props else f'unset (defaults to {default})'}; allowed: "
            f"true. Fix: set {key}: true (environment prod does through the plan) or protect the resource."]


def deletion_protection_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("deletion-protection", "Clusters and shared file systems refuse deletion.",
                           check_deletion_protection, None, enforcement_level)


# ---- lustre-data-durable (stack) ----------------------------------------------------------------------------

LUSTRE_OPTIONS = {
    "requireProtect": {"type": "boolean", "default": False,
                       "description": "Also require Pulumi protect on the file system (prod)."},
}


def check_lustre(views: Sequence[ResourceView], settings: Settings) -> list[tuple[str, str | None]]:
    """FSx for Lustre holds the only copy of what is written to it unless it has backups or is linked to a bucket
    through a data repository association (which exports new files)."""
    linked_parents = {view.parent for view in views if view.type == LUSTRE_LINK and view.parent}
    out: list[tuple[str, str | None]] = []
    for view in views:
        if view.type != LUSTRE:
            continue
        backups = number(get(view.props, "automaticBackupRetentionDays")) or 0
        linked = bool(view.parent and view.parent in linked_parents)
        if backups <= 0 and not linked and not get(view.props, "exportPath"):
            out.append((f"{view.label} has no backups (automaticBackupRetentionDays {fmt(backups)}) and no linked "
                        "bucket; allowed: either. Fix: link it to the data bucket (DataRepositoryAssociation) or set "
                        "automaticBackupRetentionDays >= 1.", view.urn or None))
        if settings.get("requireProtect") and not view.protect:
            out.append((f"{view.label} is not protected; allowed: protect=True. Fix: create it with "
                        "ResourceOptions(protect=True).", view.urn or None))
    return out


def lustre_policy(enforcement_level: EnforcementLevel | None = None) -> StackValidationPolicy:
    return stack_policy("lustre-data-durable", "FSx for Lustre data is backed up or exported to a bucket.",
                        check_lustre, LUSTRE_OPTIONS, enforcement_level)


def policies() -> list[Policy]:
    return [versioned_policy(), bucket_protected_policy(), deletion_protection_policy(), lustre_policy()]
