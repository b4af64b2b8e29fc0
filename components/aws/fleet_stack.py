"""One EKS cluster for several workloads (a fleet's shared cluster): the VPC with its NAT gateways, the IAM roles,
the EKS control plane, the system node group, the Pod Identity agent and the Cluster Autoscaler's identity are built
once, named after the cluster; each workload adds its GPU node groups (planned and standby), its bucket (and FSx
for Lustre when it asks) and its Pod Identity role, named after the workload. Several managed node groups of
different instance types and AMIs on one cluster is the shape of terraform-aws-eks's `eks_managed_node_groups`
map (terraform-aws-modules/terraform-aws-eks @bef29c4d9523523e57fe898643fde2895106b339
tests/eks-managed-node-group/main.tf: AL2023, Bottlerocket and ARM groups on one cluster); ai-on-eks keeps a
core node group and adds GPU capacity (g5, g6 node pools) to the same cluster (awslabs/ai-on-eks
@41a979ee7614a59e5337768b1bddec76ad6653e0 infra/base/terraform/eks.tf core_node_group, addons.tf g6-gpu-karpenter).

Every workload's plan and the cluster-wide rules are checked before anything is created."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.catalog import Catalog
from accelfit.errors import InputError, Problem, problem
from accelfit.planner.model import Plan
from accelfit.cloudrules.aws.addressing import subnet_layout
from components.aws.cluster_access import ClusterAccess, read_cluster_access
from components.aws.data_bucket import DataBucket
from components.aws.eks_cluster import EksCluster, EksClusterArgs
from components.aws.eks_roles import EksRoles, EksRolesArgs
from accelfit.cloudrules.aws.eks_versions import eks_version
from components.aws.iam_documents import cluster_autoscaler_policy
from components.aws.lustre import LustreFileSystem
from components.aws.network import AwsNetwork, AwsNetworkArgs
from components.aws.node_group import ManagedNodeGroup
from accelfit.cloudrules.aws.plan_checks import validate_eks_plan
from components.aws.pod_identity_role import PodIdentityRole, PodIdentityRoleArgs
from components.aws.stack import (
    AUTOSCALER_NAMESPACE, AUTOSCALER_SERVICE_ACCOUNT, FSX_CSI_ADDON, PROTECTED_ENVIRONMENTS,
    build_workload_storage, node_group_args,
)
from components.aws.workload_identity import WorkloadIdentity, pod_identity_agent
from components.aws.zone_offerings import account_zone_ids, zone_offering_problems
from components.common import child_name
from components.fleet import FILE, SharedClusterBuild, accelerator_pools, cluster_problems, prefixed
from components.fleet_groups import SharedClusterGroup, WorkloadGroup
from accelfit.cloudrules.shared_cluster import pool_count_problems


def cluster_zones(plans: tuple[Plan, ...]) -> tuple[str, ...]:
    """The zones the VPC gets a subnet pair in: every zone any workload's plan uses, in order of first use."""
    return tuple(dict.fromkeys(zone for plan in plans for zone in plan.zones))


def shared_cluster_problems(cluster: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    problems = cluster_problems(cluster, "aws")
    zone_ids: dict[str, str] | None = None  # looked up once for the cluster's zones (one EC2 call per zone)
    for index, plan in enumerate(cluster.plans):
        own = validate_eks_plan(plan, catalog)
        if not own:
            if zone_ids is None:
                zone_ids = account_zone_ids(cluster.zones or cluster_zones(cluster.plans), plan.region)
            own = zone_offering_problems(plan, zone_ids, catalog)
        problems += prefixed(index, own)
    with_lustre = [plan.workload for plan in cluster.plans if plan.storage.shared_filesystem == "fsx-lustre"]
    if len(with_lustre) > 1:
        # The Kubernetes layer mounts one FSx volume per cluster (eks_addons.LustreVolume).
        problems.append(problem(FILE, "workloads", "more than one workload of the shared cluster asks for FSx for "
                                "Lustre; the cluster mounts one file system", "give one of them a cluster of its "
                                "own, or set its shared_filesystem to none", with_lustre))
    zones = cluster.zones or cluster_zones(cluster.plans)
    try:
        subnet_layout(cluster.basis.network.cidr, zones)  # the VPC spans every member's zones
    except ValueError as error:
        problems.append(problem(FILE, "network.cidr", f"the shared VPC over {len(zones)} zones: {error}",
                                "use a /16 such as 10.0.0.0/16, or fewer zones across the workloads",
                                cluster.basis.network.cidr))
    system = [pool for pool in cluster.basis.node_pools if pool.role == "system"]
    pools = len(system) + sum(len(accelerator_pools(plan)) for plan in cluster.plans)
    return problems + pool_count_problems("aws", cluster.name, pools)


@dataclass(frozen=True)
class EksSharedClusterArgs:
    cluster: SharedClusterBuild
    access: ClusterAccess


class EksSharedCluster(pulumi.ComponentResource):
    """The shared items of one EKS cluster (see the module docstring)."""

    network: AwsNetwork
    roles: EksRoles
    cluster: EksCluster
    node_groups: dict[str, ManagedNodeGroup]
    agent: aws.eks.Addon
    autoscaler_identity: PodIdentityRole | None

    def __init__(self, name: str, args: EksSharedClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:aws:EksSharedCluster", name, None, opts)
        build = args.cluster
        basis = build.basis
        child = pulumi.ResourceOptions(parent=self)
        tags = build.ownership.aws_tags()
        region = basis.region
        self.protect = basis.environment in PROTECTED_ENVIRONMENTS
        self.network = AwsNetwork(child_name(name, "network"), AwsNetworkArgs(
            region=region, zones=build.zones or cluster_zones(build.plans), cidr=basis.network.cidr, tags=tags),
            opts=child)
        self.roles = EksRoles(child_name(name, "roles"), EksRolesArgs(tags=tags, region=region), opts=child)
        self.cluster = EksCluster(child_name(name, "cluster"), EksClusterArgs(
            role_arn=self.roles.cluster_role_arn, role_name=self.roles.cluster_role_name,
            subnet_ids=list(self.network.private_subnet_ids.values()), version=eks_version(basis.eks_version),
            service_cidr=basis.network.services_cidr, access=args.access, deletion_protection=self.protect,
            tags=tags, region=region), opts=pulumi.ResourceOptions(parent=self, depends_on=[self.roles]))
        self.node_groups = {
            pool.name: ManagedNodeGroup(child_name(name, f"pool-{pool.name}"),
                                        node_group_args(pool, self.network, self.roles, self.cluster, tags, region),
                                        opts=pulumi.ResourceOptions(parent=self, depends_on=[self.roles]))
            for pool in basis.node_pools if pool.role == "system"}
        # One Pod Identity agent per cluster: an add-on is installed once per cluster (CreateAddon of an installed
        # add-on fails with ResourceInUseException: https://docs.aws.amazon.com/eks/latest/APIReference/
        # API_CreateAddon.html, as of 2026-11-23); every workload's Pod Identity association waits for it.
        self.agent = pod_identity_agent(child_name(name, "pod-identity-agent"), self.cluster.cluster_name, region,
                                        tags, child)
        self.autoscaler_identity = None
        if any(pool.min_nodes < pool.max_nodes for plan in build.plans for pool in plan.node_pools):
            self.autoscaler_identity = PodIdentityRole(child_name(name, "autoscaler"), PodIdentityRoleArgs(
                cluster_name=self.cluster.cluster_name, namespace=AUTOSCALER_NAMESPACE,
                service_account=AUTOSCALER_SERVICE_ACCOUNT,
                policy=self.cluster.cluster_name.apply(cluster_autoscaler_policy), after=[self.agent],
                tags=tags, region=region), opts=child)
        self.register_outputs({"cluster_name": self.cluster.cluster_name, "cluster_endpoint": self.cluster.endpoint,
                               "vpc_id": self.network.vpc_id})


class EksWorkload(pulumi.ComponentResource):
    """One workload's part of a shared EKS cluster: its accelerator node groups, bucket, file system, identity."""

    node_groups: dict[str, ManagedNodeGroup]
    bucket: DataBucket
    filesystem: LustreFileSystem | None
    identity: WorkloadIdentity

    def __init__(self, name: str, plan: Plan, tags: dict[str, str], shared: EksSharedCluster,
                 opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:aws:EksWorkload", name, None, opts)
        self.node_groups = {
            pool.name: ManagedNodeGroup(child_name(name, f"pool-{pool.name}"), node_group_args(
                pool, shared.network, shared.roles, shared.cluster, tags, plan.region),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[shared.roles]))
            for pool in accelerator_pools(plan)}
        self.bucket, self.filesystem, self.identity = build_workload_storage(
            self, name, plan, shared.network, shared.cluster, tags, shared.protect, agent=shared.agent)
        self.register_outputs({"node_groups": {pool: group.node_group_name
                                               for pool, group in self.node_groups.items()},
                               "bucket_name": self.bucket.bucket_name, "workload_role_arn": self.identity.role_arn})


@dataclass
class EksSharedStack:
    name: str
    group: SharedClusterGroup
    shared: EksSharedCluster
    workloads: dict[str, EksWorkload] = field(default_factory=dict)
    groups: dict[str, WorkloadGroup] = field(default_factory=dict)
    cluster_addons: list[pulumi.Resource] = field(default_factory=list)


def build_shared_cluster(build: SharedClusterBuild, catalog: Catalog, access: ClusterAccess | None = None,
                         *, checked: bool = False) -> EksSharedStack:
    """`checked`: the caller has already checked `build` (shared_cluster_problems) and found nothing."""
    problems = [] if checked else shared_cluster_problems(build, catalog)
    if problems:
        raise InputError(problems)
    access = access if access is not None else read_cluster_access()
    group = SharedClusterGroup(build.name)
    shared = EksSharedCluster(build.name, EksSharedClusterArgs(cluster=build, access=access),
                              pulumi.ResourceOptions(parent=group))
    stack = EksSharedStack(name=build.name, group=group, shared=shared)
    for workload in build.workloads:
        workload_group = WorkloadGroup(workload.name)
        stack.groups[workload.name] = workload_group
        stack.workloads[workload.name] = EksWorkload(workload.name, workload.plan, workload.ownership.aws_tags(),
                                                     shared, pulumi.ResourceOptions(parent=workload_group))
    if any(item.filesystem is not None for item in stack.workloads.values()):
        # Add-ons run pods, so they wait for the node groups (an add-on without nodes never becomes ACTIVE).
        groups = [*shared.node_groups.values(), *(group for item in stack.workloads.values()
                                                  for group in item.node_groups.values())]
        stack.cluster_addons.append(aws.eks.Addon(
            child_name(build.name, "fsx-csi"), cluster_name=shared.cluster.cluster_name, addon_name=FSX_CSI_ADDON,
            region=build.basis.region, tags=build.ownership.aws_tags(),
            opts=pulumi.ResourceOptions(parent=shared, depends_on=groups)))
    return stack
