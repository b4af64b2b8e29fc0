"""One EKS cluster for several workloads (a fleet's shared cluster): the VPC with its NAT gateways, the IAM roles,
the EKS control plane, the system node group, the Pod Identity agent and the Cluster Autoscaler's identity are built
once, named after the cluster; each workload adds its GPU node groups (planned and standby), its bucket (and FSx
for Lustre when it asks) and its Pod Identity role, named after the workload. Several managed node groups of
different instance types and AMIs on one cluster is the shape of terraform-aws-eks's `eks_managed_node_groups`
map (terraform-aws-modules/terraform-aws-eks @bef29c4d9523523e57fe898643fde2895106b339
tests/eks-managed-node-group/main.tf: AL2023, Bottlerocket and ARM groups on one cluster); ai-on-eks keeps a
core node group and adds GPU capacity (g5, g6 node pools) to the same cluster (awslabs/ai-on-eks
@41a979ee7614a59e5337768b1bddec76ad6653e0 infra/base/terraform/eks.tf core_node_group, addons.tf g6-gpu-karpenter).

Every workload's plan and the cluster-wide rules are checked before anything is created. `build_eks_cluster` is the
one entry for every EKS cluster: a fleet's shared cluster here, the single form's cluster of its own as the one
EksGpuStack (stack.py), both returned as an `EksClusterBuilt` the Kubernetes layer reads the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.catalog import Catalog
from accelfit.environments import is_protected
from accelfit.errors import InputError, Problem, problem
from accelfit.planner.fleet.capacity_groups import with_group_labels
from accelfit.planner.model import Plan
from accelfit.cloudrules.aws.addressing import subnet_layout
from components.aws.cluster_access import ClusterAccess, read_cluster_access
from components.aws.data_bucket import DataBucket
from components.aws.eks_cluster import EksCluster
from components.aws.eks_roles import EksRoles
from components.aws.lustre import LustreFileSystem
from components.aws.network import AwsNetwork
from components.aws.node_group import ManagedNodeGroup
from accelfit.cloudrules.aws.plan_checks import validate_eks_plan
from components.aws.pod_identity_role import PodIdentityRole
from components.aws.stack import (
    ClusterItems, EksGpuStack, build_autoscaler_identity, build_cluster_items, build_fsx_addon,
    build_node_groups, build_workload_storage,
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


def cluster_build_problems(build: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    """What `build_eks_cluster` refuses before it creates anything: a cluster of its own, its one plan's problems
    (the account's zones are read when it is built, components.aws.build); a shared cluster, every workload's
    (under workloads[i]) and the cluster-wide rules."""
    if build.own:
        return validate_eks_plan(build.basis, catalog)
    return shared_cluster_problems(build, catalog)


@dataclass(frozen=True)
class EksSharedClusterArgs:
    cluster: SharedClusterBuild
    access: ClusterAccess


class EksSharedCluster(pulumi.ComponentResource):
    """The shared items of one EKS cluster (see the module docstring)."""

    items: ClusterItems
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
        self.protect = is_protected(basis.environment)
        items = build_cluster_items(self, name, basis, build.zones or cluster_zones(build.plans), args.access, tags,
                                    self.protect)
        self.items = items
        self.network, self.roles, self.cluster, self.node_groups = (items.network, items.roles, items.cluster,
                                                                    items.node_groups)
        # One Pod Identity agent per cluster: an add-on is installed once per cluster (CreateAddon of an installed
        # add-on fails with ResourceInUseException: https://docs.aws.amazon.com/eks/latest/APIReference/
        # API_CreateAddon.html, as of 2026-11-23); every workload's Pod Identity association waits for it.
        self.agent = pod_identity_agent(child_name(name, "pod-identity-agent"), self.cluster.cluster_name, region,
                                        tags, child)
        self.autoscaler_identity = build_autoscaler_identity(self, name, build.plans, self.cluster, self.agent, tags,
                                                             region)
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
        self.node_groups = build_node_groups(self, name, with_group_labels(plan, accelerator_pools(plan)),
                                             shared.items, tags, plan.region)
        self.bucket, self.filesystem, self.identity = build_workload_storage(
            self, name, plan, shared.network, shared.cluster, tags, shared.protect, agent=shared.agent)
        self.register_outputs({"node_groups": {pool: group.node_group_name
                                               for pool, group in self.node_groups.items()},
                               "bucket_name": self.bucket.bucket_name, "workload_role_arn": self.identity.role_arn})


@dataclass
class EksClusterBuilt:
    """What one EKS cluster's build made, in either form, as the Kubernetes layer and the schedules read it: the
    cluster, its system node group(s), and per workload its accelerator node groups and file system. `group` and
    `groups` are None/empty for the single form's cluster of its own, whose resources sit under the one EksGpuStack
    component named after the workload (`stack`), as stacks created by earlier releases have them."""

    name: str
    cluster: EksCluster
    system_groups: list[ManagedNodeGroup]
    workloads: dict[str, EksWorkload | EksWorkloadParts] = field(default_factory=dict)
    group: SharedClusterGroup | None = None
    groups: dict[str, WorkloadGroup] = field(default_factory=dict)
    cluster_addons: list[pulumi.Resource] = field(default_factory=list)
    stack: EksGpuStack | None = None


@dataclass(frozen=True)
class EksWorkloadParts:
    """A workload's part of a cluster of its own: its accelerator node groups (by pool name) and file system."""

    node_groups: dict[str, ManagedNodeGroup]
    filesystem: LustreFileSystem | None
    identity: WorkloadIdentity | None = None


def build_eks_cluster(build: SharedClusterBuild, catalog: Catalog, access: ClusterAccess | None = None,
                      *, checked: bool = False) -> EksClusterBuilt:
    """One EKS cluster and its workloads' node groups, storage and identities, in either form (`build.own`: the
    single form's cluster of its own). `checked`: the caller has already checked `build` and found nothing."""
    if build.own:
        return _own_cluster(build, catalog, access)
    problems = [] if checked else shared_cluster_problems(build, catalog)
    if problems:
        raise InputError(problems)
    access = access if access is not None else read_cluster_access()
    group = SharedClusterGroup(build.name)
    shared = EksSharedCluster(build.name, EksSharedClusterArgs(cluster=build, access=access),
                              pulumi.ResourceOptions(parent=group))
    built = EksClusterBuilt(name=build.name, cluster=shared.cluster, system_groups=list(shared.node_groups.values()),
                            group=group)
    for workload in build.workloads:
        workload_group = WorkloadGroup(workload.name)
        built.groups[workload.name] = workload_group
        built.workloads[workload.name] = EksWorkload(workload.name, workload.plan, workload.ownership.aws_tags(),
                                                     shared, pulumi.ResourceOptions(parent=workload_group))
    if any(item.filesystem is not None for item in built.workloads.values()):
        groups = [*shared.node_groups.values(), *(group for item in built.workloads.values()
                                                  for group in item.node_groups.values())]
        built.cluster_addons.append(build_fsx_addon(shared, build.name, shared.cluster, groups,
                                                    build.ownership.aws_tags(), build.basis.region))
    return built


def _own_cluster(build: SharedClusterBuild, catalog: Catalog, access: ClusterAccess | None) -> EksClusterBuilt:
    """The single form's cluster: the one EksGpuStack component named after the workload (components.aws.build,
    which checks the plan and the account's zones itself)."""
    from components.aws import build as build_own

    (workload,) = build.workloads
    plan = workload.plan
    stack = build_own(plan, workload.ownership, catalog, access)
    accelerators = {pool.name: stack.node_groups[pool.name] for pool in accelerator_pools(plan)}
    return EksClusterBuilt(
        name=build.name, cluster=stack.cluster, stack=stack, cluster_addons=list(stack.cluster_addons),
        system_groups=[group for pool, group in stack.node_groups.items() if pool not in accelerators],
        workloads={plan.workload: EksWorkloadParts(node_groups=accelerators, filesystem=stack.filesystem,
                                                   identity=stack.identity)})
