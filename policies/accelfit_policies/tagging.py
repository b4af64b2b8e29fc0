"""Tagging rules: every labellable resource says who owns it (team, cost-center, environment, workload), and
its environment is the stack's. Costs are split by these labels, so a missing one is an unallocated bill."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import Policy, EnforcementLevel, ResourceValidationPolicy

from .framework import Settings, resource_policy
from .nodes import node_group
from .view import ResourceView, get

# Where each type keeps its labels. GCP networks, firewalls, routers, NAT and IAM bindings take none. Node pools and
# node groups, of every cloud, are read through their cloud's node paths (nodes.py: GKE pools label their VMs
# through nodeConfig.resourceLabels, nodeConfig.labels being Kubernetes node labels).
GCP_LABELS = {
    "gcp:container/cluster:Cluster": "resourceLabels",
    "gcp:tpu/v2Vm:V2Vm": "labels",
    "gcp:storage/bucket:Bucket": "labels",
    "gcp:filestore/instance:Instance": "labels",
    "gcp:compute/disk:Disk": "labels",
    "gcp:compute/instance:Instance": "labels",
    "gcp:compute/instanceTemplate:InstanceTemplate": "labels",  # the labels of the VMs a GPU VM's group makes
}
# AWS types the components create that accept tags (associations, attachments and bucket sub-configurations
# do not).
AWS_TAGGED = frozenset({
    "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/internetGateway:InternetGateway",
    "aws:ec2/natGateway:NatGateway", "aws:ec2/eip:Eip", "aws:ec2/routeTable:RouteTable",
    "aws:ec2/securityGroup:SecurityGroup", "aws:ec2/vpcEndpoint:VpcEndpoint", "aws:ec2/placementGroup:PlacementGroup",
    "aws:ec2/launchTemplate:LaunchTemplate", "aws:ec2/instance:Instance", "aws:ebs/volume:Volume",
    "aws:eks/cluster:Cluster", "aws:eks/addon:Addon",
    "aws:eks/podIdentityAssociation:PodIdentityAssociation", "aws:eks/accessEntry:AccessEntry",
    "aws:s3/bucket:Bucket", "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "aws:iam/role:Role", "aws:kms/key:Key",
    "aws:iam/instanceProfile:InstanceProfile",
})

OWNERSHIP_KEYS = ["team", "cost-center", "environment", "workload"]


def _where(view: ResourceView) -> str | None:
    """The input path of the resource's labels or tags; None when its type takes none."""
    node = node_group(view)
    if node is not None:
        return node.paths.tags
    if view.type in GCP_LABELS:
        return GCP_LABELS[view.type]
    return "tags" if view.type in AWS_TAGGED else None


def labels_of(view: ResourceView) -> Mapping[str, Any] | None:
    """The resource's labels or tags, {} when it takes them but has none, None when its type takes none."""
    node = node_group(view)
    if node is not None:
        return node.tags
    where = _where(view)
    if where is None:
        return None
    found = get(view.props, where, {})
    return found if isinstance(found, Mapping) else {}


# ---- required-ownership-labels ------------------------------------------------------------------------------

OWNERSHIP_OPTIONS = {
    "requiredKeys": {"type": "array", "items": {"type": "string"}, "default": OWNERSHIP_KEYS,
                     "description": "Label/tag keys every labellable resource must carry, non-empty."},
}


def check_ownership_labels(view: ResourceView, settings: Settings) -> list[str]:
    labels = labels_of(view)
    if labels is None:
        return []
    required = [str(key) for key in settings.get("requiredKeys") or OWNERSHIP_KEYS]
    missing = [key for key in required if not str(labels.get(key) or "").strip()]
    if not missing:
        return []
    where = _where(view)
    return [f"{view.label} lacks ownership label(s) {', '.join(missing)} in {where}; required: "
            f"{', '.join(required)}. Fix: set accelfit:team, accelfit:costCenter and accelfit:environment in the "
            "stack config (the components label everything from them), or add the labels to this resource."]


def ownership_labels_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("required-ownership-labels", "Resources carry team, cost-center, environment and "
                           "workload labels.", check_ownership_labels, OWNERSHIP_OPTIONS, enforcement_level)


# ---- environment-label-matches-stack ------------------------------------------------------------------------

ENVIRONMENT_OPTIONS = {
    "environment": {"type": "string",
                    "description": "The stack's environment (dev, staging, prod); else the stack tag "
                                   "accelfit:environment. Unset: the rule does not apply."},
    # The environment's own settings (accelfit.environments reads them; `accelfit env list --json` gives them to
    # the workflows): they hold for the stacks, not for a resource, so this rule ignores them.
    "requireLock": {"type": "boolean", "description": "Deploys build only the committed lock (ACCELFIT_LOCKED=1)."},
    "requiredReviewers": {"type": "boolean", "description": "The GitHub environment of this name must have "
                                                            "required reviewers before anything deploys."},
    "protected": {"type": "boolean", "description": "Deletion protection on clusters, buckets and file systems; "
                                                    "secrets only encrypted; the GPU driver pinned (not LATEST)."},
}


def check_environment_label(view: ResourceView, settings: Settings) -> list[str]:
    expected = str(settings.get("environment") or "").strip().lower()
    labels = labels_of(view)
    if not expected or labels is None or not labels.get("environment"):
        return []  # a missing label is required-ownership-labels' finding, not this rule's
    actual = str(labels["environment"]).strip().lower()
    if actual == expected:
        return []
    return [f"{view.label} is labelled environment={actual} in a {expected} stack; allowed: {expected}. Fix: set "
            f"accelfit:environment: {expected} in stacks/Pulumi.{expected}.yaml, or deploy with the matching "
            "policy config."]


def environment_label_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("environment-label-matches-stack", "A resource's environment label is the stack's.",
                           check_environment_label, ENVIRONMENT_OPTIONS, enforcement_level)


def policies() -> list[Policy]:
    return [ownership_labels_policy(), environment_label_policy()]
