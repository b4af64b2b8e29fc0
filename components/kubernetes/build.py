"""The Kubernetes layer for a plan on the cluster that was built for it: GKE, EKS or bare metal.

Everything platform-specific is gathered here: how to reach the cluster, which node label picks out a pool's
nodes, where the pools' capacities come from. The layer itself (layer.KubernetesLayer) is the same everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan, Platform
from accelfit.spec.inventory import Inventory
from components.common import Ownership
from components.kubernetes.access import eks_kubeconfig
from components.kubernetes.capacity import cloud_capacities, inventory_capacities
from components.kubernetes.eks_addons import EksAddonsArgs, EksAddonsPlan, LustreVolume, autoscaler_image_tag
from components.kubernetes.gpu_software import GpuSoftware, gpu_software
from components.kubernetes.layer import KubernetesLayer, KubernetesLayerArgs
from components.kubernetes.namespaces import team_namespaces
from components.fleet import SharedClusterBuild
from accelfit.cloudrules.shared_cluster import cohort_name_problems, queue_flavor_problems
from components.kubernetes.queues import FlavorPlan, NodeCapacity, QueuePlan, cohort_queues, flavor_plans
from components.kubernetes.serving.targets import ServingBuild, serving_build

if TYPE_CHECKING:
    from components.aws.fleet_stack import EksSharedStack
    from components.aws.stack import EksGpuStack
    from components.gcp.stack import GcpSharedCluster, GcpStack

# Node labels each platform puts on every node of a pool by itself (the pool's name as value).
GKE_POOL_LABEL = "cloud.google.com/gke-nodepool"
EKS_POOL_LABEL = "eks.amazonaws.com/nodegroup"
BAREMETAL_POOL_LABEL = "accelfit.io/pool"  # set by accelfit's node membership patch


def layer_labels(ownership: Ownership) -> dict[str, str]:
    values = ownership.gcp_labels()  # lowercase, at most 63 characters: valid Kubernetes label values too
    return {"app.kubernetes.io/managed-by": "accelfit", **{f"accelfit.io/{key}": value
                                                           for key, value in values.items() if key != "managed-by"}}


@dataclass(frozen=True)
class LayerPlan:
    """The layer's decided inputs, derived (and checked) before any resource of the stack is created."""

    queues: tuple[QueuePlan, ...]
    gpu_software: GpuSoftware | None
    eks: EksAddonsPlan | None = None
    jobset: bool = False
    """TPU slice pools run their jobs as JobSets (the multislice prerequisite)."""
    serving: tuple[ServingBuild, ...] = ()
    """Model servers of the cluster's inference workloads (issue 26), from their plans' serving sections."""

    @property
    def flavors(self) -> tuple[FlavorPlan, ...]:
        return tuple(flavor for queue in self.queues for flavor in queue.flavors)

    @property
    def team_namespaces(self) -> tuple[str, ...]:
        return tuple(namespace for queue in self.queues for namespace in queue.namespaces)


def plan_layer(plan: Plan, capacities: Mapping[str, NodeCapacity]) -> LayerPlan:
    queue = QueuePlan(name=plan.workload, flavors=tuple(flavor_plans(plan, capacities)),
                      namespaces=team_namespaces(plan))
    # A GKE TPU plan whose fallback chain has a GPU standby pool gets GKE's GPU software for it, as a shared
    # cluster holding TPU and GPU pools does (plan_shared_layer).
    software_plan = plan.model_copy(update={"platform": Platform.gke_gpu}) if plan.platform is Platform.gke_tpu \
        else plan
    return LayerPlan(queues=(queue,), gpu_software=gpu_software(software_plan),
                     jobset=any(pool.role == "tpu" for pool in plan.node_pools),
                     eks=eks_addons_plan(plan) if plan.cloud.value == "aws" else None,
                     serving=servings([(plan, "", queue.namespaces)]))


def plan_shared_layer(cluster: SharedClusterBuild, catalog: Catalog) -> LayerPlan:
    """The layer of a shared cluster: each workload's own flavors (its pools, named `<workload>-<pool>`, in its
    fallback order) in its own ClusterQueue, all queues in the fleet's cohort, each borrowing the other workloads'
    pools of accelerators it is eligible for; one namespace per workload, named after it. The cluster-wide add-ons
    (GPU software, JobSet, EKS add-ons) follow from all workloads' pools together."""
    if pulumi.Config().get_object("teamNamespaces") is not None:
        raise InputError([problem("stack", "accelfit:teamNamespaces", "a fleet gives each workload its own "
                                  "namespace, named after it", "remove accelfit:teamNamespaces")])
    queues = []
    for workload in cluster.workloads:
        flavors = tuple(dataclasses.replace(flavor, pool=flavor.name)  # pool names are unique per workload only
                        for flavor in flavor_plans(workload.plan, cloud_capacities(workload.plan, catalog)))
        queues.append(QueuePlan(name=workload.name, flavors=flavors, namespaces=(workload.name,),
                                labels=layer_labels(workload.ownership)))
    eligible = {workload.name: workload.eligible_accelerators for workload in cluster.workloads}
    basis = cluster.basis
    # Every workload's pools together, for the cluster-wide decisions (which GPU software, which EKS add-ons).
    merged = basis.model_copy(update={"node_pools": tuple(pool for plan in cluster.plans
                                                          for pool in plan.node_pools
                                                          if pool.role != "system" or plan.workload == basis.workload)})
    gpu_plan = merged.model_copy(update={"platform": Platform.gke_gpu if basis.cloud.value == "gcp"
                                         else Platform.eks_gpu})
    queues = cohort_queues(queues, eligible, cluster.fleet)
    problems = cohort_name_problems("accelfit:fleet", cluster.fleet)
    for index, queue in enumerate(queues):
        problems += queue_flavor_problems(f"workloads[{index}].node_pools", queue.name,
                                          len(queue.flavors) + len(queue.borrowed))
    if problems:
        raise InputError(problems)
    return LayerPlan(queues=tuple(queues), gpu_software=gpu_software(gpu_plan),
                     jobset=any(pool.role == "tpu" for pool in merged.node_pools),
                     eks=eks_addons_plan(merged) if basis.cloud.value == "aws" else None,
                     serving=servings([(plan, f"{plan.workload}-", (plan.workload,)) for plan in cluster.plans]))


def servings(members: list[tuple[Plan, str, tuple[str, ...]]]) -> tuple[ServingBuild, ...]:
    """The model server of each member whose plan asks for one: (plan, flavor prefix, its namespaces)."""
    built = (serving_build(plan, prefix, namespaces) for plan, prefix, namespaces in members)
    return tuple(build for build in built if build is not None)


def eks_addons_plan(plan: Plan) -> EksAddonsPlan:
    """The autoscaler whenever a pool is meant to change size (min < max: a training pool that returns to zero,
    a serving pool between base load and peak, the 1..3 system pool); the EFA device plugin when a pool has EFA.
    Refuses a Kubernetes version without a pinned autoscaler release before anything is created."""
    from accelfit.cloudrules.aws.eks_versions import eks_version, eks_version_problems

    problems = eks_version_problems(plan.eks_version)
    version = eks_version(plan.eks_version)
    scales = any(pool.min_nodes < pool.max_nodes for pool in plan.node_pools)
    if scales and not problems and autoscaler_image_tag(version) is None:
        problems.append(problem("plan", "eks_version", "no Cluster Autoscaler release pinned for this Kubernetes "
                                "version", "add it to components/kubernetes/data/cluster_autoscaler.yaml", version))
    if problems:
        raise InputError(problems)
    return EksAddonsPlan(kubernetes_version=version, autoscaler=scales,
                         efa=any(pool.efa_interfaces for pool in plan.node_pools))


def plan_cloud_layer(plan: Plan, catalog: Catalog) -> LayerPlan | None:
    """None when the plan has no cluster (TPU VMs)."""
    if plan.orchestration != "kubernetes":
        return None
    return plan_layer(plan, cloud_capacities(plan, catalog))


def plan_baremetal_layer(plan: Plan, inventory: Inventory) -> LayerPlan:
    return plan_layer(plan, inventory_capacities(plan, inventory))


def _layer(plan: Plan, layer: LayerPlan, ownership: Ownership, kubeconfig: pulumi.Input[str],
           selectors: Mapping[str, Mapping[str, pulumi.Input[str]]],
           dependencies: list[pulumi.Resource], eks_addons: EksAddonsArgs | None = None) -> KubernetesLayer:
    return KubernetesLayer(f"{plan.workload}-k8s", layer_args(layer, ownership, kubeconfig, selectors,
                                                              dependencies, eks_addons))


def layer_args(layer: LayerPlan, ownership: Ownership, kubeconfig: pulumi.Input[str],
               selectors: Mapping[str, Mapping[str, pulumi.Input[str]]], dependencies: list[pulumi.Resource],
               eks_addons: EksAddonsArgs | None = None) -> KubernetesLayerArgs:
    return KubernetesLayerArgs(
        kubeconfig=kubeconfig, queues=layer.queues, pool_selectors=selectors, gpu_software=layer.gpu_software,
        labels=layer_labels(ownership), cluster_dependencies=dependencies, eks_addons=eks_addons,
        jobset=layer.jobset, serving=layer.serving)


@dataclass(frozen=True)
class LayerMember:
    """One workload as the cluster's layer sees it: its flavors are named `<prefix><pool>` (no prefix in the single
    form's cluster of its own, `<workload>-` in a shared cluster) and select its built pools."""

    plan: Plan
    prefix: str
    namespace: str = ""
    """Where its FSx for Lustre volume is claimed (EKS)."""


def build_for_gke(plan: Plan, layer: LayerPlan, stack: GcpStack, ownership: Ownership) -> KubernetesLayer:
    """The single form's cluster of its own: its one workload's layer (build_gke_layer)."""
    assert stack.cluster is not None, "plan_cloud_layer returns None for plans without a cluster"
    return build_gke_layer(plan.workload, layer, ownership, stack.cluster, [(LayerMember(plan, ""), stack)])


def build_shared_for_gke(cluster: SharedClusterBuild, layer: LayerPlan, built: GcpSharedCluster) -> KubernetesLayer:
    """The one Kubernetes layer of a shared GKE cluster, under the cluster's group (build_gke_layer)."""
    members = [(LayerMember(plan, f"{plan.workload}-"), built.workloads[plan.workload]) for plan in cluster.plans]
    return build_gke_layer(cluster.name, layer, cluster.ownership, built.cluster, members,
                           pulumi.ResourceOptions(parent=built.group))


def build_gke_layer(name: str, layer: LayerPlan, ownership: Ownership, cluster: Any,
                    members: list[tuple[LayerMember, GcpStack]],
                    opts: pulumi.ResourceOptions | None = None) -> KubernetesLayer:
    """The Kubernetes layer of one GKE cluster, in either form: each flavor selects its pool by the node-pool label
    GKE sets; the layer waits for the cluster and every accelerator pool."""
    selectors: dict[str, Mapping[str, pulumi.Input[str]]] = {}
    pools: list[pulumi.Resource] = []
    for member, stack in members:
        made = {"gpu": iter(stack.gpu_pools), "tpu": iter(stack.tpu_pools)}  # created in plan order, per role
        selectors.update({f"{member.prefix}{pool.name}": {GKE_POOL_LABEL: next(made[pool.role]).pool_name}
                          for pool in member.plan.node_pools if pool.role in ("gpu", "tpu")})
        pools += [*stack.gpu_pools, *stack.tpu_pools]
    # kubeconfig: IP endpoint + CA, or the DNS endpoint (GkeCluster)
    return KubernetesLayer(f"{name}-k8s", layer_args(layer, ownership, cluster.kubeconfig, selectors,
                                                     [cluster, *pools]), opts)


def build_for_eks(plan: Plan, layer: LayerPlan, stack: EksGpuStack, ownership: Ownership) -> KubernetesLayer:
    """The single form's cluster of its own: its one workload's layer (build_eks_layer); its FSx volume is claimed
    in its first team namespace."""
    own = {pool.name: stack.node_groups[pool.name] for pool in plan.node_pools if pool.role in ("gpu", "tpu")}
    system = [group for pool, group in stack.node_groups.items() if pool not in own]
    namespace = layer.team_namespaces[0] if layer.team_namespaces else ""
    return build_eks_layer(plan.workload, plan, layer, ownership, stack.cluster, system,
                           [(LayerMember(plan, "", namespace), own, stack.filesystem)], stack.cluster_addons)


def build_shared_for_eks(cluster: SharedClusterBuild, layer: LayerPlan, built: EksSharedStack) -> KubernetesLayer:
    """The one Kubernetes layer of a shared EKS cluster, under the cluster's group (build_eks_layer); the FSx volume
    (at most one per cluster) goes to its workload's namespace."""
    members = [(LayerMember(plan, f"{plan.workload}-", plan.workload), built.workloads[plan.workload].node_groups,
                built.workloads[plan.workload].filesystem) for plan in cluster.plans]
    return build_eks_layer(cluster.name, cluster.basis, layer, cluster.ownership, built.shared.cluster,
                           list(built.shared.node_groups.values()), members, built.cluster_addons,
                           pulumi.ResourceOptions(parent=built.group))


def build_eks_layer(name: str, basis: Plan, layer: LayerPlan, ownership: Ownership, cluster: Any,
                    system_groups: list[pulumi.Resource], members: list[tuple[LayerMember, Mapping[str, Any], Any]],
                    cluster_addons: list[pulumi.Resource],
                    opts: pulumi.ResourceOptions | None = None) -> KubernetesLayer:
    """The Kubernetes layer of one EKS cluster, in either form: each flavor selects its node group by the label
    EKS sets. As on GKE, Helm releases wait for their pods, which need nodes, so the layer waits for the node groups
    too (and for the FSx CSI driver add-on the claim is mounted by)."""
    kubeconfig = pulumi.Output.all(cluster.cluster_name, cluster.endpoint, cluster.certificate_authority) \
        .apply(lambda parts: eks_kubeconfig(*parts, region=basis.region))
    selectors: dict[str, Mapping[str, pulumi.Input[str]]] = {}
    groups: list[pulumi.Resource] = list(system_groups)
    lustre = None
    for member, node_groups, filesystem in members:
        selectors.update({f"{member.prefix}{pool}": {EKS_POOL_LABEL: group.node_group_name}
                          for pool, group in node_groups.items()})
        groups += list(node_groups.values())
        if filesystem is not None:
            lustre = LustreVolume(file_system_id=filesystem.file_system_id, dns_name=filesystem.dns_name,
                                  mount_name=filesystem.mount_name,
                                  capacity_gib=member.plan.storage.filesystem_capacity_gib, namespace=member.namespace)
    addons = EksAddonsArgs(plan=layer.eks, cluster_name=cluster.cluster_name, region=basis.region,
                           lustre=lustre) if layer.eks else None
    return KubernetesLayer(f"{name}-k8s", layer_args(layer, ownership, kubeconfig, selectors,
                                                     [cluster, *groups, *cluster_addons], addons), opts)


def build_for_baremetal(plan: Plan, layer: LayerPlan, kubeconfig: pulumi.Input[str], ownership: Ownership,
                        dependencies: list[pulumi.Resource]) -> KubernetesLayer:
    selectors = {pool.name: {BAREMETAL_POOL_LABEL: pool.name} for pool in plan.node_pools if pool.role == "gpu"}
    return _layer(plan, layer, ownership, kubeconfig, selectors, dependencies)


