"""Build a stack's plan: `build_fleet(fleet)` is the one entry the program calls, for both forms of a stack. Every
Kubernetes cluster, a fleet's shared cluster or the single form's cluster of its own (its fleet of one), is built by
`build_cluster`: the components of its platform, then the Kubernetes layer (GPU software, Kueue routing with each
workload's fallback chain, DCGM telemetry) on the cluster that was built. A workload placed alone is built by
`build(plan)`: in a cluster of its own (`build_cluster` again), or as its VMs. Everything is checked before the first
resource is created.

Each cloud's package is imported only when its plan is built, so a GCP stack never imports pulumi_aws and an
AWS stack never imports pulumi_gcp.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

import pulumi

from accelfit.catalog.models import Catalog
from accelfit.clouds import cloud_named, hook
from accelfit.errors import InputError, Problem, problem
from accelfit.planner.model import Plan
from accelfit.spec.inventory import Inventory
from components.common import Ownership
from components.fleet import SharedClusterBuild


@dataclass(frozen=True)
class Built:
    """What `build` created: the platform's stack, and the Kubernetes layer when there is a cluster."""

    platform: Any
    kubernetes: Any = None


def build(plan: Plan, ownership: Ownership, catalog: Catalog | None = None,
          inventory: Inventory | None = None, inventory_source: str = "inventory") -> Built:
    """A workload placed alone: on Kubernetes, in a cluster of its own holding its fleet of one (`build_cluster`,
    the one path every cluster takes); otherwise its VMs (TPU VM slices, a GPU VM), which have no Kubernetes layer."""
    if catalog is None:
        from accelfit.catalog import load_catalog

        catalog = load_catalog()
    if plan.orchestration == "kubernetes":
        from components.fleet import own_cluster

        built = build_cluster(own_cluster(plan, ownership), catalog, inventory=inventory,
                              inventory_source=inventory_source)
        if plan.overflow is not None:  # the cloud overflow of owned servers, through MultiKueue
            from components.hybrid import build_overflow

            build_overflow(plan, ownership, catalog, built, inventory,
                           f"https://{pulumi.Config().require('joinEndpoint')}", build_cluster, cluster_check)
        return built
    return Built(_vm_builder(plan)(plan, ownership, catalog), None)  # VMs: no Kubernetes layer


def _build_gcp_vms(plan: Plan, ownership: Ownership, catalog: Catalog) -> Any:
    """TPU VM slices or a GCE GPU VM."""
    from components.gcp import build as build_gcp

    return build_gcp(plan, ownership, catalog=catalog)


def _build_ec2_vm(plan: Plan, ownership: Ownership, catalog: Catalog) -> Any:
    from components.aws.gpu_vm import Ec2GpuVmStack

    return Ec2GpuVmStack(plan.workload, plan, ownership)


def build_cluster(cluster: SharedClusterBuild, catalog: Catalog, *, layer: Any = None,
                  inventory: Inventory | None = None, inventory_source: str = "inventory") -> Built:
    """One Kubernetes cluster with its workloads and its Kubernetes layer (GPU software, Kueue routing with each
    workload's fallback chain, DCGM telemetry), whichever form of stack it belongs to: a fleet's shared cluster, or
    the single form's cluster of its own (`cluster.own`). Everything, the layer included, is checked before the
    first resource is created. `layer`: the cluster's layer plan, when the caller has already checked the cluster
    (cluster_check) and planned its layer. Built.platform: a cluster of its own's stack (GcpStack, EksGpuStack,
    bare metal), as single stacks have always returned; a shared cluster's build."""
    from components.kubernetes.build import plan_layer

    basis = cluster.basis
    if cloud_named(basis.cloud).owned:
        from components.baremetal import build as build_baremetal
        from accelfit.cloudrules.baremetal.checks import check_plan
        from components.kubernetes.build import build_baremetal_layer

        checked = check_plan(basis, inventory, inventory_source)
        layer = layer if layer is not None else plan_layer(cluster, catalog, checked)
        metal = build_baremetal(basis, checked, inventory_source)
        # The layer's objects need no particular node, but its queues are only useful once the nodes are labelled.
        return Built(metal, build_baremetal_layer(cluster, layer, metal.kubeconfig, [metal.membership]))
    if layer is None:
        _raise_if_any(cluster_check(cluster, catalog))
        layer = cluster_layer(cluster, catalog)
    builder = builders_of(basis.cloud.value).cluster
    if builder is None:
        raise InputError([problem("plan", "workloads", "only GKE, EKS and bare-metal clusters are built",
                                  "plan a GKE, EKS or bare-metal platform", basis.cloud.value)])
    return builder(cluster, catalog, layer)


def _build_gke(cluster: SharedClusterBuild, catalog: Catalog, layer: Any) -> Built:
    """A GKE cluster, its Kubernetes layer, Workload Identity service accounts per workload, GPUDirect objects."""
    basis = cluster.basis
    from components.gcp.cluster_objects import build_gpudirect, build_service_accounts
    from components.gcp.fleet_stack import build_gke_cluster
    from components.gcp.stack import resolve_project
    from components.kubernetes.build import build_gke_layer, layer_labels

    built = build_gke_cluster(cluster, catalog, checked=True)
    kubernetes = build_gke_layer(cluster, layer, built, lambda: resolve_project(None))
    # Workload Identity service accounts per workload, GPUDirect NIC objects once per cluster.
    for workload in cluster.workloads:
        group = built.groups.get(workload.name)
        build_service_accounts(workload.plan, built.workloads[workload.name], kubernetes,
                               layer_labels(workload.ownership),
                               pulumi.ResourceOptions(parent=group) if group is not None else None)
    stack = built.workloads[basis.workload]
    build_gpudirect(cluster.name, basis, stack, kubernetes, layer_labels(cluster.ownership),
                    list(stack.gpu_pools),
                    pulumi.ResourceOptions(parent=built.group) if built.group is not None else None)
    return Built(stack if cluster.own else built, kubernetes)


def _build_eks(cluster: SharedClusterBuild, catalog: Catalog, layer: Any) -> Built:
    """An EKS cluster, its part-day serving schedules and its Kubernetes layer."""
    from components.aws.fleet_stack import build_eks_cluster
    from components.aws.schedule import build_schedules
    from components.kubernetes.build import build_eks_layer

    built = build_eks_cluster(cluster, catalog, checked=True)
    for workload in cluster.workloads:
        build_schedules(workload.plan, built.workloads[workload.name])  # part-day serving pools
    return Built(built.stack if cluster.own else built, build_eks_layer(cluster, layer, built))


def _raise_if_any(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems)


@dataclass(frozen=True)
class FleetBuilt:
    """What `build_fleet` created: each shared cluster's build, and each workload built alone."""

    clusters: dict[str, Built]
    alone: dict[str, Built]


def fleet_cluster_builds(fleet: Any, ownership: Ownership) -> list[SharedClusterBuild]:
    """A SharedClusterBuild per SharedCluster of the fleet plan, its workloads in the stack's order, the shared
    network the fleet plan sized (pods range for every member's nodes), its shared items labelled `workload:
    <cluster>-shared` (the first cluster is named after the fleet, so `<fleet>-shared`; a second cluster's items
    stay apart from the first's)."""
    from components.fleet import ClusterWorkload, shared_ownership

    builds = []
    for cluster in fleet.clusters:
        members = [member for member in fleet.workloads if member.cluster == cluster.name]
        builds.append(SharedClusterBuild(
            name=cluster.name, fleet=fleet.name, ownership=shared_ownership(cluster.name, ownership),
            network=cluster.network, zones=tuple(cluster.zones), system_pool=cluster.system_pool,
            workloads=tuple(ClusterWorkload(plan=member.plan,
                                            ownership=dataclasses.replace(ownership, workload=member.name),
                                            eligible_accelerators=frozenset(member.eligible_accelerators))
                            for member in members)))
    return builds


def build_fleet(fleet: Any, ownership: Ownership, catalog: Catalog,
                inventories: dict[str, tuple[Inventory | None, str]] | None = None, *,
                single: bool = False) -> FleetBuilt:
    """A stack's resources, whichever its form: one shared cluster per SharedCluster, and each workload placed alone
    (the single form's workload in a cluster of its own, TPU VMs, bare metal); every cluster goes through
    `build_cluster`. Everything is checked, every cluster's Kubernetes layer included, before the first resource is
    created. `ownership` is the stack's; each workload's resources carry its own name. `single`: the single form,
    whose problems name the plan's fields without a `workloads[i].` prefix (its stack file has no workload list)."""
    inventories = inventories or {}
    builds = fleet_cluster_builds(fleet, ownership)
    problems = []
    for cluster in builds:
        problems += cluster_check(cluster, catalog)
    for index, member in enumerate(fleet.workloads):
        if member.cluster is None:
            found = alone_problems(member.plan, dataclasses.replace(ownership, workload=member.name), catalog,
                                   *inventories.get(member.name, (None, "inventory")))
            problems += found if single else [
                dataclasses.replace(item, field=f"workloads[{index}].{item.field}".rstrip(".")) for item in found]
    _raise_if_any(problems)
    # Every cluster's Kubernetes layer is planned (and checked) before the first cluster creates anything too.
    layers = {cluster.name: cluster_layer(cluster, catalog) for cluster in builds}
    clusters = {cluster.name: build_cluster(cluster, catalog, layer=layers[cluster.name]) for cluster in builds}
    alone = {}
    for member in fleet.workloads:
        if member.cluster is None:
            inventory, source = inventories.get(member.name, (None, "inventory"))
            alone[member.name] = build(member.plan, dataclasses.replace(ownership, workload=member.name), catalog,
                                       inventory=inventory, inventory_source=source)
    return FleetBuilt(clusters=clusters, alone=alone)


def alone_problems(plan: Plan, ownership: Ownership, catalog: Catalog, inventory: Inventory | None,
                   source: str) -> list[Problem]:
    """What `build` would refuse for a workload built alone (a cluster of its own, TPU VMs, a GPU VM, bare metal),
    found before any of the stack's resources exist."""
    from components.fleet import own_cluster
    from components.kubernetes.build import plan_layer

    try:
        if plan.orchestration != "kubernetes":
            vm_check = builders_of(plan.cloud.value).vm_problems
            return vm_check(plan, catalog) if vm_check is not None else []
        cluster = own_cluster(plan, ownership)
        if cloud_named(plan.cloud).owned:
            from accelfit.cloudrules.baremetal.checks import check_plan

            plan_layer(cluster, catalog, check_plan(plan, inventory, source))
            if plan.overflow is not None:
                from components.hybrid import overflow_problems

                return overflow_problems(plan, ownership, catalog, cluster_check)
            return []
        found = cluster_check(cluster, catalog)
        if not found:
            cluster_layer(cluster, catalog)
        return found
    except InputError as error:
        return list(error.problems)


def cluster_check(cluster: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    """Everything wrong with a GKE or EKS cluster (of its own, or shared), before any resource of the stack exists."""
    check = builders_of(cluster.basis.cloud.value).cluster_problems
    return check(cluster, catalog) if check is not None else []


def _gke_problems(cluster: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    from components.gcp.fleet_stack import cluster_build_problems

    return cluster_build_problems(cluster, catalog)


def _eks_problems(cluster: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    from components.aws.fleet_stack import cluster_build_problems

    return cluster_build_problems(cluster, catalog)


def _gcp_vm_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    from accelfit.cloudrules.gcp.validation import plan_problems

    return plan_problems(plan, catalog)


@dataclass(frozen=True)
class CloudBuilders:
    """A cloud's component builders, named by its Cloud record (`component_builders` in accelfit/clouds): its GPU
    VMs, its cluster (with the Kubernetes layer on it), and the checks run before anything is created. Each imports
    its cloud's package only when called; None where the cloud builds no such thing."""

    vms: Callable[[Plan, Ownership, Catalog], Any] | None = None
    cluster: Callable[[SharedClusterBuild, Catalog, Any], Built] | None = None
    cluster_problems: Callable[[SharedClusterBuild, Catalog], list[Problem]] | None = None
    vm_problems: Callable[[Plan, Catalog], list[Problem]] | None = None
    # The cluster gets the shared Kubernetes layer (GPU software, Kueue routing, DCGM telemetry: planned and checked
    # here before anything is created, handed to `cluster`); False where the cloud's builder builds none (a cloud
    # whose cluster has no GPU software profile, as a test's fake cloud), and `cluster` is handed None.
    kubernetes_layer: bool = True


def cluster_layer(cluster: SharedClusterBuild, catalog: Catalog) -> Any:
    """The cluster's Kubernetes layer plan (components.kubernetes.build.plan_layer), or None where its cloud's
    builders build no layer."""
    if not builders_of(cluster.basis.cloud.value).kubernetes_layer:
        return None
    from components.kubernetes.build import plan_layer

    return plan_layer(cluster, catalog)


GCP_BUILDERS = CloudBuilders(vms=_build_gcp_vms, cluster=_build_gke, cluster_problems=_gke_problems,
                             vm_problems=_gcp_vm_problems)
AWS_BUILDERS = CloudBuilders(vms=_build_ec2_vm, cluster=_build_eks, cluster_problems=_eks_problems)


def builders_of(cloud: str) -> CloudBuilders:
    """The builders the cloud's record names (a cloud registered from another module names its own there, so adding
    one touches no file here); none for a cloud whose record names none (owned servers: built by the bare-metal
    path above)."""
    path = cloud_named(cloud).component_builders
    found = hook(path) if path else CloudBuilders()
    if not isinstance(found, CloudBuilders):
        raise TypeError(f"cloud {cloud!r}: component_builders {path!r} is not a components.build.CloudBuilders")
    return found


def _vm_builder(plan: Plan) -> Callable[[Plan, Ownership, Catalog], Any]:
    builder = builders_of(plan.cloud.value).vms
    if builder is None:
        raise InputError([problem("plan", "platform", "this cloud builds no GPU VMs", "plan a cluster platform",
                                  plan.platform.value)])
    return builder
