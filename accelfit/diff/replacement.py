"""Which input changes make the engine replace a resource (delete and create it again) instead of updating it.

Pulumi decides this from the provider's schema at `pulumi preview` time; the offline preview has no provider, so
this table says it for the types accelfit creates. It is data: one row per (type token, input path), each with
the reason a reviewer needs ("the TPU API cannot resize a VM"). Only rows we can justify are listed; a change to
any other input is reported as an in-place update, so the real `pulumi preview` in CI stays the authority and
this table only ever under-reports.

A path matches the changed input itself and everything under it (`nodeConfig.guestAccelerators` covers
`nodeConfig.guestAccelerators[0].count`). The path "*" means every input change replaces the resource.

How to add a row: find the input in the provider's documentation (a Terraform-bridged provider marks it
"Changing this forces a new resource to be created", ForceNew in its schema), add it under the type token with
the reason in words a reviewer acts on, and add a case to tests/diff/test_diff_replacement.py.

Deliberately absent: GKE `nodeConfig.machineType`, `diskSizeGb` and `diskType` are updated in place by current
providers (GKE rolls the nodes through a surge upgrade; the node pool itself stays), and EKS `scalingConfig` or
GKE `autoscaling` only resize.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ANY_INPUT = "*"


@dataclass(frozen=True)
class ReplacementRule:
    path: str
    reason: str


def _rules(*rows: tuple[str, str]) -> tuple[ReplacementRule, ...]:
    return tuple(ReplacementRule(path, reason) for path, reason in rows)


_GKE_POOL_NODES = "GKE cannot change this on existing nodes; the node pool is deleted and created again"

REPLACEMENT_RULES: Mapping[str, tuple[ReplacementRule, ...]] = {
    "gcp:container/nodePool:NodePool": _rules(
        ("initialNodeCount", "the provider recreates a node pool whose initial node count changes "
                             "(pulumi_gcp NodePool docs)"),
        ("nodeConfig.spot", f"spot vs on-demand: {_GKE_POOL_NODES}"),
        ("nodeConfig.preemptible", f"preemptible vs standard: {_GKE_POOL_NODES}"),
        ("nodeConfig.guestAccelerators", f"attached GPUs: {_GKE_POOL_NODES}"),
        ("nodeConfig.reservationAffinity", f"reservation affinity: {_GKE_POOL_NODES}"),
        ("nodeConfig.serviceAccount", f"node service account: {_GKE_POOL_NODES}"),
        ("nodeConfig.oauthScopes", f"node OAuth scopes: {_GKE_POOL_NODES}"),
        ("nodeConfig.localSsdCount", f"local SSDs: {_GKE_POOL_NODES}"),
        ("nodeConfig.ephemeralStorageLocalSsdConfig", f"local SSD ephemeral storage: {_GKE_POOL_NODES}"),
        ("placementPolicy", "TPU topology and compact placement are fixed when a node pool is created"),
        ("location", "a node pool cannot move to another location"),
        ("cluster", "a node pool cannot move to another cluster"),
        ("name", "the node pool's name is its identity in GKE"),
    ),
    "gcp:container/cluster:Cluster": _rules(
        ("location", "a GKE cluster cannot move between regions or zones"),
        ("network", "a GKE cluster cannot move to another VPC"),
        ("subnetwork", "a GKE cluster cannot move to another subnet"),
        ("ipAllocationPolicy", "pod and service IP ranges are fixed when the cluster is created"),
        ("privateClusterConfig.masterIpv4CidrBlock", "the control plane's private range is fixed at creation"),
        ("name", "the cluster's name is its identity in GKE"),
    ),
    # GPU VMs (gce-gpu-vm, ec2-gpu-vm). machineType / instanceType are updated in place (the VM is stopped and
    # started: allowStoppingForUpdate on GCE), so they are deliberately absent.
    "gcp:compute/instance:Instance": _rules(
        ("zone", "a Compute Engine VM cannot move between zones; it is deleted and created again"),
        ("bootDisk", "the boot disk (its image, size at creation, type) is fixed when the VM is created; a new one "
                     "means a new VM and a fresh disk"),
        ("name", "the VM's name is its identity in Compute Engine"),
    ),
    # A gce-gpu-vm's group and template: a template cannot be edited, so every change creates a new one, and the
    # group then restarts its VM on it in place (the boot disk is stateful: kept).
    "gcp:compute/instanceTemplate:InstanceTemplate": _rules(
        (ANY_INPUT, "an instance template cannot be changed; a new one is created and the VM's managed instance "
                    "group restarts its VM on it, keeping the VM's (stateful) boot disk"),
    ),
    "gcp:compute/instanceGroupManager:InstanceGroupManager": _rules(
        ("zone", "a zonal managed instance group cannot move between zones; it is deleted with its VM and disk"),
        ("name", "the group's name is its identity in Compute Engine"),
    ),
    "aws:ec2/instance:Instance": _rules(
        ("availabilityZone", "an EC2 instance cannot move between availability zones; it is terminated and "
                             "launched again"),
        ("subnetId", "an EC2 instance's primary network interface stays in the subnet it was launched in"),
    ),
    "gcp:tpu/v2Vm:V2Vm": _rules(
        ("acceleratorType", "the TPU API cannot resize or retype a TPU VM; it is deleted and created again"),
        ("acceleratorConfig", "the TPU API cannot change a TPU VM's type or topology; it is deleted and created "
                              "again"),
        ("runtimeVersion", "a TPU VM's software version is chosen at creation"),
        ("schedulingConfig", "spot/preemptible/reserved is chosen when a TPU VM is created"),
        ("networkConfig", "a TPU VM's network is fixed at creation"),
        ("zone", "a TPU VM cannot move between zones"),
        ("name", "the TPU VM's name is its identity"),
    ),
    # Queued resources have no update method in the TPU API: any change is a new request, back in the queue.
    "gcp:tpu/v2QueuedResource:V2QueuedResource": _rules(
        (ANY_INPUT, "a queued TPU request cannot be updated; it is deleted and queued again (capacity is not kept)"),
    ),
    "gcp:storage/bucket:Bucket": _rules(
        ("location", "a Cloud Storage bucket's location cannot change; a new bucket means copying the data"),
        ("name", "bucket names are global identities"),
        ("project", "a bucket cannot move between projects"),
    ),
    "gcp:compute/network:Network": _rules(
        ("autoCreateSubnetworks", "auto vs custom subnet mode is fixed when the VPC is created"),
        ("description", "the provider recreates a network whose description changes (pulumi_gcp Network docs)"),
        ("name", "the network's name is its identity"),
    ),
    "gcp:compute/subnetwork:Subnetwork": _rules(
        ("network", "a subnet cannot move to another VPC"),
        ("region", "a subnet cannot move between regions"),
        ("name", "the subnet's name is its identity"),
    ),
    "gcp:serviceaccount/account:Account": _rules(
        ("accountId", "changing the account id creates a new service account (pulumi_gcp Account docs)"),
    ),
    "gcp:filestore/instance:Instance": _rules(
        ("tier", "a Filestore instance's tier is fixed at creation; a new instance means copying the data"),
        ("location", "a Filestore instance cannot move"),
        ("networks", "a Filestore instance's network is fixed at creation"),
        ("name", "the Filestore instance's name is its identity; a new instance means copying the data"),
    ),
    # Names are identities in the Compute API: a new name is a new resource (Terraform google provider: name
    # "Changing this forces a new resource to be created" on each of these).
    "gcp:compute/firewall:Firewall": _rules(("name", "the firewall rule's name is its identity"),),
    "gcp:compute/router:Router": _rules(("name", "the Cloud Router's name is its identity"),),
    "gcp:compute/routerNat:RouterNat": _rules(
        ("name", "the Cloud NAT's name is its identity"),
        ("router", "a Cloud NAT cannot move to another router"),
    ),
    "aws:eks/nodeGroup:NodeGroup": _rules(
        ("instanceTypes", "EKS cannot change a managed node group's instance types; it is replaced"),
        ("amiType", "EKS cannot change a managed node group's AMI type; it is replaced"),
        ("capacityType", "spot vs on-demand is fixed when an EKS node group is created"),
        ("diskSize", "the node disk size is fixed when an EKS node group is created"),
        ("subnetIds", "an EKS node group's subnets are fixed at creation"),
        ("nodeRoleArn", "an EKS node group's IAM role is fixed at creation"),
        ("remoteAccess", "SSH access settings are fixed at creation"),
        ("clusterName", "a node group cannot move to another cluster"),
        ("nodeGroupName", "the node group's name is its identity"),
    ),
    "aws:eks/cluster:Cluster": _rules(
        ("name", "the cluster's name is its identity"),
        ("roleArn", "an EKS cluster's IAM role is fixed at creation"),
        ("kubernetesNetworkConfig", "service IP ranges are fixed when the cluster is created"),
        ("accessConfig.bootstrapClusterCreatorAdminPermissions",
         "the creator's bootstrap admin entry is chosen at creation; the provider replaces the cluster when the flag "
         "changes (pulumi/pulumi-aws issue 3997)"),
    ),
    "aws:s3/bucket:Bucket": _rules(
        ("bucket", "bucket names are global identities"),
        ("bucketPrefix", "the bucket name is derived from it at creation"),
    ),
    "aws:s3/bucketV2:BucketV2": _rules(
        ("bucket", "bucket names are global identities"),
        ("bucketPrefix", "the bucket name is derived from it at creation"),
    ),
    "aws:fsx/lustreFileSystem:LustreFileSystem": _rules(
        ("deploymentType", "an FSx for Lustre deployment type is fixed at creation; a new file system loses data "
                           "not exported to S3"),
        ("storageType", "SSD vs HDD is fixed when the file system is created"),
        ("subnetIds", "the file system's subnet is fixed at creation"),
        ("efaEnabled", "EFA must be set at creation and cannot be changed (pulumi_aws docs)"),
        ("importPath", "the linked S3 import path is fixed at creation"),
    ),
    "aws:ec2/placementGroup:PlacementGroup": _rules(
        ("strategy", "a placement group's strategy is fixed at creation"),
        ("name", "the placement group's name is its identity"),
    ),
    "aws:ec2/vpc:Vpc": _rules(("cidrBlock", "a VPC's primary CIDR block is fixed at creation"),),
    "aws:ec2/subnet:Subnet": _rules(
        ("vpcId", "a subnet cannot move to another VPC"),
        ("cidrBlock", "a subnet's CIDR block is fixed at creation"),
        ("availabilityZone", "a subnet cannot move between availability zones"),
    ),
}


_BY_TYPE: Mapping[str, Mapping[str, str]] = {
    type_token: {rule.path: rule.reason for rule in rules} for type_token, rules in REPLACEMENT_RULES.items()}


def replacement_reason(type_token: str, path: str) -> str | None:
    """Why changing `path` on a resource of this type replaces it, or None for an in-place update."""
    rules = _BY_TYPE.get(type_token)
    if not rules:
        return None
    if ANY_INPUT in rules:
        return rules[ANY_INPUT]
    # The path itself and each enclosing path: "a.b[0].c" -> "a", "a.b", "a.b[0]", "a.b[0].c".
    for end, char in enumerate(path):
        if char in ".[" and path[:end] in rules:
            return rules[path[:end]]
    return rules.get(path)
