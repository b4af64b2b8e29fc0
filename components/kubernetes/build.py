"""The Kubernetes layer of a cluster that was built: GKE, EKS or bare metal.

One path for both forms of a stack: `plan_layer(cluster, ...)` decides the layer of any cluster (a fleet's shared
cluster, or the single form's cluster of its own holding its fleet of one; `SharedClusterBuild.own` is the one fact
they differ by) before anything is created, and `build_gke_layer` / `build_eks_layer` / `build_baremetal_layer` build
it on the cluster that was made. Everything platform-specific is gathered here: how to reach the cluster, which
node label picks out a pool's nodes, where the pools' capacities come from. The layer itself
(layer.KubernetesLayer) is the same everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import pulumi

from accelfit.clouds import cloud_named, cloud_of_platform
from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem
from accelfit.planner.serving.gke_crds import gke_manages_inference_pool
from accelfit.planner.model import Plan, Platform
from accelfit.planner.serving.route_plan import route_in_namespace
from accelfit.planner.serving.traffic import ServingRoute
from accelfit.spec.inventory import Inventory
from accelfit.stackrules.namespaces import fleet_namespaces_problem
from components.common import Ownership
from components.kubernetes.access import eks_kubeconfig
from components.kubernetes.capacity import cloud_capacities, inventory_capacities
from components.kubernetes.eks_addons import EksAddonsArgs, EksAddonsPlan, LustreVolume, autoscaler_image_tag
from components.kubernetes.gpu_software import GpuSoftware, gpu_software
from accelfit.planner.fleet.capacity_groups import GKE_COMPUTE_CLASS_LABEL
from components.kubernetes.layer import ComputeClassPlan, KubernetesLayer, KubernetesLayerArgs
from components.kubernetes.namespaces import team_namespaces
from components.fleet import SharedClusterBuild
from accelfit.cloudrules.shared_cluster import cohort_name_problems, queue_flavor_problems
from components.kubernetes.queues import FlavorPlan, NodeCapacity, QueuePlan, cohort_queues, flavor_plans
from components.kubernetes.serving.targets import ServingBuild, serving_build

if TYPE_CHECKING:
    from components.aws.fleet_stack import EksClusterBuilt

class GkeClusterBuilt(Protocol):
    """What the GKE builder made (components.gcp.stack.GcpSharedCluster) as the layer reads it: the cluster (its
    kubeconfig), each workload's pools, the group to parent under. A protocol, so this package imports no cloud's.
    Read-only members: the layer only reads them, and a read-only Mapping accepts the builder's dict of its own
    stack views (a writable protocol attribute would have to be exactly Mapping[str, Any])."""

    @property
    def cluster(self) -> Any: ...

    @property
    def workloads(self) -> Mapping[str, Any]: ...

    @property
    def group(self) -> Any: ...


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
    gpu_software: GpuSoftware | None = None
    eks: EksAddonsPlan | None = None
    jobset: bool = False
    """TPU slice pools run their jobs as JobSets (the multislice prerequisite)."""
    serving: tuple[ServingBuild, ...] = ()
    """Model servers of the cluster's inference workloads (issue 26), from their plans' serving sections."""
    routes: tuple[ServingRoute, ...] = ()
    """The serving route and autoscaler of each of those workloads (Plan.route, in its server's namespace)."""
    inference_crds: bool = True
    """Apply the GAIE release's InferencePool CRD: False on a GKE cluster whose versions have GKE manage it
    (accelfit.planner.serving.gke_crds)."""


def plan_layer(cluster: SharedClusterBuild, catalog: Catalog, inventory: Inventory | None = None) -> LayerPlan:
    """The Kubernetes layer of one cluster, whichever form of stack it belongs to (the single form's cluster of its
    own holds its fleet of one): each workload's own flavors (its pools, in its fallback order) in its own
    ClusterQueue; the cluster-wide add-ons (GPU software, JobSet, EKS add-ons) follow from all workloads' pools
    together. What the two forms differ by is data on `cluster`: a shared cluster keys its flavors `<workload>-<pool>`
    (pool names are unique per workload only), gives each workload one namespace named after it, and puts the queues
    in the fleet's cohort, each borrowing the other workloads' pools of accelerators it is eligible for; a cluster of
    its own keys flavors by pool name, runs its pods in accelfit:teamNamespaces and has no cohort. Pool capacities
    come from the catalog, or for bare metal from `inventory`. Checked before anything is created."""
    if not cluster.own and pulumi.Config().get_object("teamNamespaces") is not None:
        raise InputError([fleet_namespaces_problem(f"config.{pulumi.get_project()}:teamNamespaces", "stack")])
    queues = []
    for workload in cluster.workloads:
        plan, prefix = workload.plan, cluster.pool_prefix(workload.plan)
        flavors = tuple(dataclasses.replace(flavor, pool=f"{prefix}{flavor.pool}",
                                            group_pools=tuple(f"{prefix}{pool}" for pool in flavor.group_pools))
                        for flavor in flavor_plans(plan, _capacities(plan, catalog, inventory)))
        queues.append(QueuePlan(name=workload.name, flavors=flavors,
                                namespaces=team_namespaces(plan) if cluster.own else (workload.name,),
                                labels=layer_labels(workload.ownership)))
    # Each inference workload's model server (its pools by their flavor keys, in its queue's first namespace).
    serving = servings([(workload.plan, cluster.pool_prefix(workload.plan), queue.namespaces)
                        for workload, queue in zip(cluster.workloads, queues, strict=True)])
    problems = []
    if cluster.cohort is not None:
        eligible = {workload.name: workload.eligible_accelerators for workload in cluster.workloads}
        queues = cohort_queues(queues, eligible, cluster.cohort)
        problems += cohort_name_problems("accelfit:fleet", cluster.cohort)
    for index, queue in enumerate(queues):
        problems += queue_flavor_problems("node_pools" if cluster.own else f"workloads[{index}].node_pools",
                                          queue.name, len(queue.flavors) + len(queue.borrowed))
    if problems:
        raise InputError(problems)
    return _with_cluster_addons(cluster, LayerPlan(queues=tuple(queues), serving=serving,
                                                   routes=routes_of(cluster.plans, serving)))


def _with_cluster_addons(cluster: SharedClusterBuild, layer: LayerPlan) -> LayerPlan:
    """The cluster-wide add-ons, from every workload's pools together: which GPU software (a GKE cluster gets GKE's
    whenever it may hold GPU pools: a TPU plan's GPU standby pools, a fleet's GPU workloads; an EKS cluster EKS's;
    bare metal its own), JobSet for TPU pools, the EKS add-ons, the inference CRDs."""
    basis = cluster.basis
    merged = basis.model_copy(update={"node_pools": tuple(pool for plan in cluster.plans
                                                          for pool in plan.node_pools
                                                          if pool.role != "system" or plan.workload == basis.workload)})
    cloud = cloud_named(basis.cloud.value)
    gpu_plan = merged.model_copy(update={"platform": Platform(cloud.cluster_platform) if cloud.cluster_platform
                                         else basis.platform})
    return dataclasses.replace(
        layer, gpu_software=gpu_software(gpu_plan), jobset=any(pool.role == "tpu" for pool in merged.node_pools),
        eks=eks_addons_plan(merged) if cloud.cluster_platform == Platform.eks_gpu.value else None,
        # GKE's own Gateway controller installs the InferencePool CRDs on the versions that manage it.
        inference_crds=not (cloud.serving_gateway == "gke-gateway"
                            and gke_manages_inference_pool(basis.gke_release_channel)))


def _capacities(plan: Plan, catalog: Catalog, inventory: Inventory | None) -> Mapping[str, NodeCapacity]:
    if not cloud_of_platform(plan.platform).owned:
        return cloud_capacities(plan, catalog)
    if inventory is None:
        raise InputError([problem("plan", "baremetal_hosts", "a bare-metal plan's pools are sized from its "
                                  "inventory, and none was given", "name the inventory in the stack")])
    return inventory_capacities(plan, inventory)


def servings(members: list[tuple[Plan, str, tuple[str, ...]]]) -> tuple[ServingBuild, ...]:
    """The model server of each member whose plan asks for one: (plan, flavor prefix, its namespaces)."""
    built = (serving_build(plan, prefix, namespaces) for plan, prefix, namespaces in members)
    return tuple(build for build in built if build is not None)


def routes_of(plans: tuple[Plan, ...], serving: tuple[ServingBuild, ...]) -> tuple[ServingRoute, ...]:
    """Each serving workload's route, in the namespace its model server runs in (the plan's route assumes the
    workload's own; accelfit:teamNamespaces may name another)."""
    namespaces = {build.workload: build.namespace for build in serving}
    return tuple(route_in_namespace(plan, namespaces[plan.workload]) for plan in plans
                 if plan.route is not None and plan.workload in namespaces)


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


def layer_args(layer: LayerPlan, ownership: Ownership, kubeconfig: pulumi.Input[str],
               selectors: Mapping[str, Mapping[str, pulumi.Input[str]]], dependencies: list[pulumi.Resource],
               eks_addons: EksAddonsArgs | None = None,
               compute_classes: tuple[ComputeClassPlan, ...] = (),
               gcp_project: Callable[[], str] | None = None) -> KubernetesLayerArgs:
    """`gcp_project`: reads the stack's GCP project (the GKE builder passes components.gcp's reader in, so this
    package does not import the cloud's), asked only when a route is GCP's."""
    managed_metrics_routes = any(cloud_named(route.cloud).serving_metrics == "managed-prometheus" for route in layer.routes)
    return KubernetesLayerArgs(
        kubeconfig=kubeconfig, queues=layer.queues, pool_selectors=selectors, gpu_software=layer.gpu_software,
        labels=layer_labels(ownership), cluster_dependencies=dependencies, eks_addons=eks_addons,
        jobset=layer.jobset, compute_classes=compute_classes, serving=layer.serving, routes=layer.routes,
        inference_crds=layer.inference_crds,
        gcp_project=gcp_project() if managed_metrics_routes and gcp_project is not None else None)


def group_flavors_of(layer: LayerPlan) -> list[FlavorPlan]:
    """Every queue's capacity-group flavors (queues.group_flavors), in queue and fallback order."""
    return [flavor for queue in layer.queues for flavor in queue.flavors if len(flavor.group_pools) > 1]


def gke_compute_classes(layer: LayerPlan, selectors: Mapping[str, Mapping[str, pulumi.Input[str]]]
                        ) -> tuple[ComputeClassPlan, ...]:
    """A ComputeClass per capacity group: named as its flavor's node label says, listing the GKE node pools of its
    plan pools in chain order."""
    return tuple(ComputeClassPlan(name=flavor.node_labels[GKE_COMPUTE_CLASS_LABEL],
                                  node_pools=tuple(selectors[pool][GKE_POOL_LABEL] for pool in flavor.group_pools))
                 for flavor in group_flavors_of(layer))


def build_gke_layer(cluster: SharedClusterBuild, layer: LayerPlan, built: GkeClusterBuilt,
                    gcp_project: Callable[[], str]) -> KubernetesLayer:
    """The Kubernetes layer of one GKE cluster, in either form (under the shared cluster's group; at the top of the
    stack for a cluster of its own): each flavor selects its pool by the node-pool label GKE sets; the layer waits
    for the cluster and every accelerator pool."""
    selectors: dict[str, Mapping[str, pulumi.Input[str]]] = {}
    pools: list[pulumi.Resource] = []
    for plan in cluster.plans:
        stack = built.workloads[plan.workload]
        made = {"gpu": iter(stack.gpu_pools), "tpu": iter(stack.tpu_pools)}  # created in plan order, per role
        selectors.update({f"{cluster.pool_prefix(plan)}{pool.name}": {GKE_POOL_LABEL: next(made[pool.role]).pool_name}
                          for pool in plan.node_pools if pool.role in ("gpu", "tpu")})
        pools += [*stack.gpu_pools, *stack.tpu_pools]
    # kubeconfig: IP endpoint + CA, or the DNS endpoint (GkeCluster)
    return KubernetesLayer(f"{cluster.name}-k8s", layer_args(layer, cluster.ownership, built.cluster.kubeconfig,
                                                             selectors, [built.cluster, *pools],
                                                             compute_classes=gke_compute_classes(layer, selectors),
                                                             gcp_project=gcp_project),
                           _under(built.group))


def build_eks_layer(cluster: SharedClusterBuild, layer: LayerPlan, built: EksClusterBuilt) -> KubernetesLayer:
    """The Kubernetes layer of one EKS cluster, in either form: each flavor selects its node group by the label
    EKS sets. As on GKE, Helm releases wait for their pods, which need nodes, so the layer waits for the node groups
    too (and for the FSx CSI driver add-on the claim is mounted by). The FSx volume (at most one per cluster) is
    claimed in the first namespace of its workload's queue."""
    kubeconfig = pulumi.Output.all(built.cluster.cluster_name, built.cluster.endpoint,
                                   built.cluster.certificate_authority) \
        .apply(lambda parts: eks_kubeconfig(parts[0], parts[1], parts[2], region=cluster.basis.region))
    namespaces = {queue.name: queue.namespaces for queue in layer.queues}
    selectors: dict[str, Mapping[str, pulumi.Input[str]]] = {}
    groups: list[pulumi.Resource] = list(built.system_groups)
    lustre = None
    for plan in cluster.plans:
        own = built.workloads[plan.workload]
        selectors.update({f"{cluster.pool_prefix(plan)}{pool}": {EKS_POOL_LABEL: group.node_group_name}
                          for pool, group in own.node_groups.items()})
        groups += list(own.node_groups.values())
        if own.filesystem is not None:
            lustre = LustreVolume(file_system_id=own.filesystem.file_system_id, dns_name=own.filesystem.dns_name,
                                  mount_name=own.filesystem.mount_name,
                                  capacity_gib=plan.storage.filesystem_capacity_gib,
                                  namespace=namespaces[plan.workload][0])
    # The priority expander's node groups per capacity group, in chain order (capacity_fallback).
    priority_groups = tuple(tuple(selectors[pool][EKS_POOL_LABEL] for pool in flavor.group_pools)
                            for flavor in group_flavors_of(layer))
    addons = EksAddonsArgs(plan=layer.eks, cluster_name=built.cluster.cluster_name, region=cluster.basis.region,
                           lustre=lustre, capacity_groups=priority_groups) if layer.eks else None
    # Each model server after its workload's Pod Identity association: EKS gives credentials only to pods created
    # once the association exists, and the server reads its s3:// weights with them.
    associations = {name: (own.identity.association,) for name, own in built.workloads.items()
                    if own.identity is not None}
    args = dataclasses.replace(layer_args(layer, cluster.ownership, kubeconfig, selectors,
                                          [built.cluster, *groups, *built.cluster_addons], addons),
                               server_dependencies=associations)
    return KubernetesLayer(f"{cluster.name}-k8s", args, _under(built.group))


def build_baremetal_layer(cluster: SharedClusterBuild, layer: LayerPlan, kubeconfig: pulumi.Input[str],
                          dependencies: list[pulumi.Resource]) -> KubernetesLayer:
    """The Kubernetes layer of a bare-metal cluster (its own, one workload): accelfit's membership patch labels each
    node with its pool's name."""
    selectors = {f"{cluster.pool_prefix(plan)}{pool.name}": {BAREMETAL_POOL_LABEL: pool.name}
                 for plan in cluster.plans for pool in plan.node_pools if pool.role == "gpu"}
    return KubernetesLayer(f"{cluster.name}-k8s", layer_args(layer, cluster.ownership, kubeconfig, selectors,
                                                             dependencies))


def _under(group: pulumi.Resource | None) -> pulumi.ResourceOptions | None:
    """A shared cluster's layer sits under its group component; a cluster of its own's at the top of the stack."""
    return pulumi.ResourceOptions(parent=group) if group is not None else None
