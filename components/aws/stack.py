"""EksGpuStack: everything an eks-gpu Plan needs, composed from the AWS components.

Network -> IAM roles -> EKS cluster (API access from stack config: cluster_access.py) -> one managed node group
per plan pool -> data bucket (+ FSx for Lustre linked to it, and the FSx CSI driver add-on, when the plan asks) ->
Pod Identity for the workload's pods and for the Cluster Autoscaler. The whole plan is checked first
(`plan_checks.validate_eks_plan`), so a bad plan creates nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.catalog import Catalog
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

PROTECTED_ENVIRONMENTS = frozenset({"prod"})
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
        service_account=plan.workload, tags=tags, region=region, agent=agent), opts=child)
    return bucket, filesystem, identity


class EksGpuStack(pulumi.ComponentResource):
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
        child = pulumi.ResourceOptions(parent=self)
        tags = args.ownership.aws_tags()
        region = plan.region
        protect = plan.environment in PROTECTED_ENVIRONMENTS

        self.network = AwsNetwork(child_name(name, "network"), AwsNetworkArgs(
            region=region, zones=tuple(plan.zones), cidr=plan.network.cidr, tags=tags), opts=child)
        roles = EksRoles(child_name(name, "roles"), EksRolesArgs(tags=tags, region=region), opts=child)
        self.cluster = EksCluster(child_name(name, "cluster"), EksClusterArgs(
            role_arn=roles.cluster_role_arn, role_name=roles.cluster_role_name,
            subnet_ids=list(self.network.private_subnet_ids.values()), version=eks_version(plan.eks_version),
            service_cidr=plan.network.services_cidr, access=args.access, deletion_protection=protect, tags=tags,
            region=region),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[roles]))

        # Nodes join only once their role carries its policies, hence the dependency on the roles component.
        self.node_groups = {
            pool.name: ManagedNodeGroup(child_name(name, f"pool-{pool.name}"),
                                        node_group_args(pool, self.network, roles, self.cluster, tags, region),
                                        opts=pulumi.ResourceOptions(parent=self, depends_on=[roles]))
            for pool in plan.node_pools}

        self.bucket, self.filesystem, self.identity = build_workload_storage(
            self, name, plan, self.network, self.cluster, tags, protect)

        self.autoscaler_identity = None
        if any(pool.min_nodes < pool.max_nodes for pool in plan.node_pools):
            self.autoscaler_identity = PodIdentityRole(child_name(name, "autoscaler"), PodIdentityRoleArgs(
                cluster_name=self.cluster.cluster_name, namespace=AUTOSCALER_NAMESPACE,
                service_account=AUTOSCALER_SERVICE_ACCOUNT,
                policy=self.cluster.cluster_name.apply(cluster_autoscaler_policy), after=[self.identity.agent],
                tags=tags, region=region), opts=child)

        # Add-ons run pods, so they wait for the node groups (an add-on without nodes never becomes ACTIVE).
        self.cluster_addons = []
        if self.filesystem is not None:
            self.cluster_addons.append(aws.eks.Addon(
                child_name(name, "fsx-csi"), cluster_name=self.cluster.cluster_name, addon_name=FSX_CSI_ADDON,
                region=region, tags=tags,
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.node_groups.values()))))

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
