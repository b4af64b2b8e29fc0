"""EksGpuStack (the single form): everything an eks-gpu Plan needs, composed from the AWS components, and the
builders every EKS cluster is made with, in either form of a stack.

Network -> IAM roles -> EKS cluster (API access from stack config: cluster_access.py) -> one managed node group
per plan pool -> data bucket (+ FSx for Lustre linked to it, and the FSx CSI driver add-on, when the plan asks) ->
Pod Identity for the workload's pods and for the Cluster Autoscaler. The whole plan is checked first
(`plan_checks.validate_eks_plan`), so a bad plan creates nothing.

One build path: `build_cluster_items` (VPC, roles, control plane, system pool), `build_node_groups` (a pool as a
managed node group), `build_workload_storage`, `build_autoscaler_identity` and `build_fsx_addon` build the single
form's cluster of its own here and a fleet's shared cluster in fleet_stack.py, whose `build_eks_cluster` is the one
entry for both (components.build.build_cluster calls it); the forms differ only in the components the resources sit
under (which keeps every URN a stack of either form was created with, so nothing moves and no alias is needed) and
in where the Pod Identity agent sits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.engines import builds_server
from accelfit.environments import is_protected
from accelfit.catalog import Catalog
from accelfit.planner.fleet.capacity_groups import with_group_labels
from accelfit.planner.model import NodePool, Plan
from components.aws.checks import raise_if_any
from components.aws.cluster_access import ClusterAccess
from components.aws.data_bucket import DataBucket, DataBucketArgs
from components.aws.eks_cluster import EksCluster, EksClusterArgs
from components.aws.eks_roles import EksRoles, EksRolesArgs
from accelfit.cloudrules.aws.eks_versions import eks_version
from components.aws.iam_documents import cluster_autoscaler_policy
from components.aws.lustre import LustreFileSystem, LustreFileSystemArgs
from components.aws.network import AwsNetwork, AwsNetworkArgs
from components.aws.node_group import ManagedNodeGroup, ManagedNodeGroupArgs, NodeTaint
from accelfit.cloudrules.aws.plan_checks import filesystem_zone, validate_eks_plan
from components.aws.pod_identity_role import PodIdentityRole, PodIdentityRoleArgs
from components.aws.workload_identity import WorkloadIdentity, WorkloadIdentityArgs
from components.common import Ownership, child_name
from components.fleet import accelerator_pools

# The Cluster Autoscaler's service account (the Helm values in components/kubernetes/eks_addons.py name it).
AUTOSCALER_NAMESPACE = "kube-system"
AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
# The Cluster Autoscaler's AWS provider treats nodes with this label as GPU nodes (waits for the device plugin
# before judging them unready): kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_cloud_provider.go.
GPU_NODE_LABEL = "k8s.amazonaws.com/accelerator"
# EKS add-on of the FSx for Lustre CSI driver (https://docs.aws.amazon.com/eks/latest/userguide/fsx-csi.html).
FSX_CSI_ADDON = "aws-fsx-csi-driver"


@dataclass(frozen=True)
class EksGpuStackArgs:
    plan: Plan
    ownership: Ownership
    catalog: Catalog = field(metadata={"doc": "Read to check the plan (types offered, EFA limits)."})
    access: ClusterAccess = field(metadata={"doc": "Who reaches the API (stack config, cluster_access.py)."})


def node_group_args(pool: NodePool, network: AwsNetwork, roles: EksRoles, cluster: EksCluster,
                    tags: dict[str, str], region: str) -> ManagedNodeGroupArgs:
    """A plan pool as node-group args: a field-by-field translation, nothing decided here."""
    labels = dict(pool.labels)
    if pool.role == "gpu" and pool.accelerator:
        labels[GPU_NODE_LABEL] = pool.accelerator
    return ManagedNodeGroupArgs(
        cluster_name=cluster.cluster_name,
        node_role_arn=roles.node_role_arn,
        subnet_ids=[network.private_subnet_ids[zone] for zone in pool.zones],
        security_group_ids=[network.node_security_group_id, cluster.cluster_security_group_id],
        instance_type=pool.machine_type,
        min_size=pool.min_nodes, max_size=pool.max_nodes, desired_size=pool.initial_nodes,
        accelerated=pool.role == "gpu",
        spot=pool.spot,
        capacity_reservation_id=pool.reservation,
        capacity_block=pool.capacity_block,
        avoid_reservations=pool.avoid_reservations,
        taints=tuple(NodeTaint(key=taint.key, value=taint.value, effect=taint.effect) for taint in pool.taints),
        labels=labels,
        efa_interfaces=pool.efa_interfaces,
        placement_group=pool.compact_placement,
        root_volume_gb=pool.disk_size_gb,
        local_nvme_scratch=pool.local_nvme_gb > 0,
        local_nvme_gb=pool.local_nvme_gb,
        autoscaled=pool.min_nodes < pool.max_nodes,
        scheduled=pool.serving_start_utc is not None,
        tags={**tags, "accelfit-pool": pool.name},
        region=region)


def build_workload_storage(owner: pulumi.Resource, name: str, plan: Plan, network: AwsNetwork, cluster: EksCluster,
                           tags: dict[str, str], protect: bool, agent: aws.eks.Addon | None = None
                           ) -> tuple[DataBucket, LustreFileSystem | None, WorkloadIdentity]:
    """The workload's data bucket, its FSx for Lustre file system linked to it (when the plan asks), and the Pod
    Identity its pods (service account <workload> in namespace <workload>) read and write the bucket with."""
    child = pulumi.ResourceOptions(parent=owner)
    region, storage = plan.region, plan.storage
    bucket = DataBucket(child_name(name, "data"), DataBucketArgs(
        checkpoint_retention_days=storage.checkpoint_retention_days, versioning=storage.bucket_versioning,
        protect=protect, tags=tags, region=region), opts=child)
    filesystem = None
    if storage.shared_filesystem == "fsx-lustre":
        filesystem = LustreFileSystem(child_name(name, "lustre"), LustreFileSystemArgs(
            vpc_id=network.vpc_id, subnet_id=network.private_subnet_ids[filesystem_zone(plan)],
            client_security_group_ids=[network.node_security_group_id, cluster.cluster_security_group_id],
            capacity_gib=storage.filesystem_capacity_gib,
            throughput_mbps_per_tib=storage.filesystem_throughput_mbps_per_tib,
            bucket_name=bucket.bucket_name, protect=protect, tags=tags, region=region), opts=child)
    identity = WorkloadIdentity(child_name(name, "identity"), WorkloadIdentityArgs(
        cluster_name=cluster.cluster_name, bucket_arn=bucket.bucket_arn, namespace=plan.workload,
        service_account=plan.workload, tags=tags, region=region, agent=agent, weights=s3_weights(plan)),
        opts=child)
    return bucket, filesystem, identity


def s3_weights(plan: Plan) -> str | None:
    """The plan's s3:// model weights when the stack builds its server."""
    serving = plan.serving
    if serving is None or not builds_server(serving.server) or not (serving.weights or "").startswith("s3://"):
        return None
    return serving.weights


@dataclass
class ClusterItems:
    """What one EKS cluster holds once, whatever runs on it: the VPC, the IAM roles, the control plane and the
    system node group(s)."""

    network: AwsNetwork
    roles: EksRoles
    cluster: EksCluster
    node_groups: dict[str, ManagedNodeGroup]


def build_cluster_items(owner: pulumi.Resource, name: str, basis: Plan, zones: tuple[str, ...],
                        access: ClusterAccess, tags: dict[str, str], protect: bool) -> ClusterItems:
    """The cluster's own items, named after the cluster, children of `owner` (the single form's EksGpuStack, or a
    fleet's EksSharedCluster): both forms build their cluster here."""
    child = pulumi.ResourceOptions(parent=owner)
    region = basis.region
    network = AwsNetwork(child_name(name, "network"), AwsNetworkArgs(
        region=region, zones=zones, cidr=basis.network.cidr, tags=tags), opts=child)
    roles = EksRoles(child_name(name, "roles"), EksRolesArgs(tags=tags, region=region), opts=child)
    cluster = EksCluster(child_name(name, "cluster"), EksClusterArgs(
        role_arn=roles.cluster_role_arn, role_name=roles.cluster_role_name,
        subnet_ids=list(network.private_subnet_ids.values()), version=eks_version(basis.eks_version),
        service_cidr=basis.network.services_cidr, access=access, deletion_protection=protect, tags=tags,
        region=region),
        opts=pulumi.ResourceOptions(parent=owner, depends_on=[roles]))
    items = ClusterItems(network=network, roles=roles, cluster=cluster, node_groups={})
    items.node_groups = build_node_groups(owner, name, [pool for pool in basis.node_pools if pool.role == "system"],
                                          items, tags, region)
    return items


def build_node_groups(owner: pulumi.Resource, name: str, pools: list[NodePool], items: ClusterItems,
                      tags: dict[str, str], region: str) -> dict[str, ManagedNodeGroup]:
    """One managed node group per pool, named `<name>-pool-<pool>`: the one place a pool becomes a node group, for
    the system pool and every workload's planned and standby pools alike. Nodes join only once their role
    carries its policies, hence the dependency on the roles component."""
    return {pool.name: ManagedNodeGroup(child_name(name, f"pool-{pool.name}"),
                                        node_group_args(pool, items.network, items.roles, items.cluster, tags, region),
                                        opts=pulumi.ResourceOptions(parent=owner, depends_on=[items.roles]))
            for pool in pools}


def build_autoscaler_identity(owner: pulumi.Resource, name: str, plans: tuple[Plan, ...], cluster: EksCluster,
                              agent: aws.eks.Addon, tags: dict[str, str], region: str) -> PodIdentityRole | None:
    """The Cluster Autoscaler's Pod Identity, when any pool of the cluster scales."""
    if not any(pool.min_nodes < pool.max_nodes for plan in plans for pool in plan.node_pools):
        return None
    return PodIdentityRole(child_name(name, "autoscaler"), PodIdentityRoleArgs(
        cluster_name=cluster.cluster_name, namespace=AUTOSCALER_NAMESPACE, service_account=AUTOSCALER_SERVICE_ACCOUNT,
        policy=cluster.cluster_name.apply(cluster_autoscaler_policy), after=[agent], tags=tags, region=region),
        opts=pulumi.ResourceOptions(parent=owner))


def build_fsx_addon(owner: pulumi.Resource, name: str, cluster: EksCluster, groups: list[ManagedNodeGroup],
                    tags: dict[str, str], region: str) -> aws.eks.Addon:
    """The FSx for Lustre CSI driver add-on. Add-ons run pods, so it waits for the node groups (an add-on without
    nodes never becomes ACTIVE)."""
    return aws.eks.Addon(child_name(name, "fsx-csi"), cluster_name=cluster.cluster_name, addon_name=FSX_CSI_ADDON,
                         region=region, tags=tags, opts=pulumi.ResourceOptions(parent=owner, depends_on=groups))


class EksGpuStack(pulumi.ComponentResource):
    """The single form: a cluster of its own holding one workload, built by the same functions as a fleet's shared
    cluster (build_cluster_items, build_node_groups, build_workload_storage, build_autoscaler_identity,
    build_fsx_addon) under one component named after the workload, so a stack created by an earlier release keeps
    every URN. The workload's Pod Identity agent sits under its identity (a shared cluster's under the cluster)."""

    network: AwsNetwork
    cluster: EksCluster
    node_groups: dict[str, ManagedNodeGroup]
    bucket: DataBucket
    filesystem: LustreFileSystem | None
    identity: WorkloadIdentity
    autoscaler_identity: PodIdentityRole | None
    cluster_addons: list[pulumi.Resource]
    """EKS add-ons the Kubernetes layer's objects rely on (the FSx CSI driver)."""

    def __init__(self, name: str, args: EksGpuStackArgs, opts: pulumi.ResourceOptions | None = None):
        plan = args.plan
        raise_if_any(validate_eks_plan(plan, args.catalog))
        super().__init__("accelfit:aws:EksGpuStack", name, None, opts)
        tags = args.ownership.aws_tags()
        region = plan.region
        protect = is_protected(plan.environment)

        items = build_cluster_items(self, name, plan, tuple(plan.zones), args.access, tags, protect)
        self.network, self.cluster = items.network, items.cluster
        self.node_groups = {**items.node_groups,
                            **build_node_groups(self, name, with_group_labels(plan, accelerator_pools(plan)), items,
                                               tags, region)}
        self.bucket, self.filesystem, self.identity = build_workload_storage(
            self, name, plan, self.network, self.cluster, tags, protect)
        self.autoscaler_identity = build_autoscaler_identity(self, name, (plan,), self.cluster, self.identity.agent,
                                                             tags, region)
        self.cluster_addons = []
        if self.filesystem is not None:
            self.cluster_addons.append(build_fsx_addon(self, name, self.cluster, list(self.node_groups.values()),
                                                       tags, region))

        outputs = {
            "cluster_name": self.cluster.cluster_name,
            "cluster_endpoint": self.cluster.endpoint,
            "vpc_id": self.network.vpc_id,
            "node_groups": {pool: group.node_group_name for pool, group in self.node_groups.items()},
            "bucket_name": self.bucket.bucket_name,
            "workload_role_arn": self.identity.role_arn,
        }
        if self.filesystem is not None:
            outputs["filesystem_dns_name"] = self.filesystem.dns_name
            outputs["filesystem_mount_name"] = self.filesystem.mount_name
        self.register_outputs(outputs)
