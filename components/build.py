"""Build a stack's plan: `build_fleet(fleet)` is the one entry the program calls, for both forms of a stack. Each
shared cluster is built once with every member's pools (`build_shared_cluster`); each workload placed alone (the
single form's workload in its own cluster, TPU VMs, bare metal) is built by `build(plan)`: the components of its
platform, then the Kubernetes layer (GPU software, Kueue routing with the fallback chain, DCGM telemetry) on the
cluster that was built. Everything is checked before the first resource is created.

Each cloud's package is imported only when its plan is built, so a GCP stack never imports pulumi_aws and an
AWS stack never imports pulumi_gcp.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pulumi

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem
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
    if catalog is None:
        from accelfit.catalog import load_catalog

        catalog = load_catalog()
    if plan.cloud.value == "gcp":
        from components.gcp import build as build_gcp
        from components.kubernetes.build import build_for_gke, plan_cloud_layer

        layer = plan_cloud_layer(plan, catalog)  # checked before the cloud stack creates anything
        stack = build_gcp(plan, ownership, catalog=catalog)
        if layer is None:
            return Built(stack, None)
        kubernetes = build_for_gke(plan, layer, stack, ownership)
        # Workload Identity service accounts and GPUDirect NIC objects (components/gcp/cluster_objects.py).
        from components.gcp.cluster_objects import build_cluster_objects
        from components.kubernetes.build import layer_labels

        build_cluster_objects(plan, stack, kubernetes, layer_labels(ownership))
        return Built(stack, kubernetes)
    if plan.cloud.value == "aws":
        from components.aws import build as build_aws
        from components.kubernetes.build import build_for_eks, plan_cloud_layer

        from components.aws.schedule import build_schedules

        layer = plan_cloud_layer(plan, catalog)
        stack = build_aws(plan, ownership, catalog=catalog)
        build_schedules(plan, stack)  # part-day serving pools: scaled up and to zero daily
        return Built(stack, build_for_eks(plan, layer, stack, ownership) if layer else None)
    from components.baremetal import build as build_baremetal
    from components.baremetal.checks import check_plan
    from components.kubernetes.build import build_for_baremetal, plan_baremetal_layer

    checked = check_plan(plan, inventory, inventory_source)
    layer = plan_baremetal_layer(plan, checked)
    metal = build_baremetal(plan, checked, inventory_source)
    # The layer's objects need no particular node, but its queues are only useful once the nodes are labelled.
    return Built(metal, build_for_baremetal(plan, layer, metal.kubeconfig, ownership, [metal.membership]))


def build_shared_cluster(cluster: SharedClusterBuild, catalog: Catalog, *, layer: Any = None) -> Built:
    """One cluster holding several workloads (a fleet's SharedCluster): everything is checked, the Kubernetes
    layer included, before the first resource is created. `layer`: the cluster's layer plan, when the caller
    has already checked the cluster (shared_cluster_check) and planned its layer."""
    checked = layer is not None
    if cluster.basis.cloud.value == "gcp":
        from components.gcp.cluster_objects import build_gpudirect, build_service_accounts
        from components.gcp.fleet_stack import build_shared_cluster as build_gke, shared_cluster_problems
        from components.kubernetes.build import build_shared_for_gke, layer_labels, plan_shared_layer

        if not checked:
            _raise_if_any(shared_cluster_problems(cluster, catalog))
            layer = plan_shared_layer(cluster, catalog)
        built = build_gke(cluster, catalog, checked=True)
        kubernetes = build_shared_for_gke(cluster, layer, built)
        for workload in cluster.workloads:
            build_service_accounts(workload.plan, built.workloads[workload.name], kubernetes,
                                   layer_labels(workload.ownership),
                                   pulumi.ResourceOptions(parent=built.groups[workload.name]))
        basis = built.workloads[cluster.basis.workload]
        build_gpudirect(cluster.name, cluster.basis, basis, kubernetes, layer_labels(cluster.ownership),
                        list(basis.gpu_pools), pulumi.ResourceOptions(parent=built.group))
        return Built(built, kubernetes)
    if cluster.basis.cloud.value == "aws":
        from components.aws.fleet_stack import build_shared_cluster as build_eks, shared_cluster_problems
        from components.aws.schedule import build_schedules
        from components.kubernetes.build import build_shared_for_eks, plan_shared_layer

        if not checked:
            _raise_if_any(shared_cluster_problems(cluster, catalog))
            layer = plan_shared_layer(cluster, catalog)
        built = build_eks(cluster, catalog, checked=True)
        for workload in cluster.workloads:
            build_schedules(workload.plan, built.workloads[workload.name])  # part-day serving pools
        return Built(built, build_shared_for_eks(cluster, layer, built))
    raise InputError([problem("plan", "workloads", "only GKE and EKS clusters are shared",
                              "build bare-metal workloads alone", cluster.basis.cloud.value)])


def _raise_if_any(problems: list) -> None:
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
    """A stack's resources, whichever its form: one shared cluster per SharedCluster (each checked whole before it
    creates anything; all of them checked before the first creates anything), and each workload placed alone (the
    single form's workload, TPU VMs, bare metal) built as a stack of its own. `ownership` is the stack's; each
    workload's resources carry its own name. `single`: the single form, whose problems name the plan's fields
    without a `workloads[i].` prefix (its stack file has no workload list)."""
    from components.kubernetes.build import plan_shared_layer

    inventories = inventories or {}
    builds = fleet_cluster_builds(fleet, ownership)
    problems = []
    for cluster in builds:
        problems += shared_cluster_check(cluster, catalog)
    for index, member in enumerate(fleet.workloads):
        if member.cluster is None:
            found = alone_problems(member.plan, catalog, *inventories.get(member.name, (None, "inventory")))
            problems += found if single else [
                dataclasses.replace(item, field=f"workloads[{index}].{item.field}".rstrip(".")) for item in found]
    _raise_if_any(problems)
    # Every cluster's Kubernetes layer is planned (and checked) before the first cluster creates anything too.
    layers = {cluster.name: plan_shared_layer(cluster, catalog) for cluster in builds}
    clusters = {cluster.name: build_shared_cluster(cluster, catalog, layer=layers[cluster.name])
                for cluster in builds}
    alone = {}
    for member in fleet.workloads:
        if member.cluster is None:
            inventory, source = inventories.get(member.name, (None, "inventory"))
            alone[member.name] = build(member.plan, dataclasses.replace(ownership, workload=member.name), catalog,
                                       inventory=inventory, inventory_source=source)
    return FleetBuilt(clusters=clusters, alone=alone)


def alone_problems(plan: Plan, catalog: Catalog, inventory: Inventory | None, source: str) -> list:
    """What `build` would refuse for a fleet workload built alone (TPU VMs, bare metal, a cluster of its own), found
    before any of the fleet's resources exist."""
    from components.kubernetes.build import plan_baremetal_layer, plan_cloud_layer

    try:
        if plan.cloud.value == "gcp":
            from accelfit.cloudrules.gcp.validation import plan_problems

            found = plan_problems(plan, catalog)
        elif plan.cloud.value == "aws":
            from accelfit.cloudrules.aws.plan_checks import validate_eks_plan

            found = validate_eks_plan(plan, catalog)
        else:
            from components.baremetal.checks import check_plan

            plan_baremetal_layer(plan, check_plan(plan, inventory, source))
            return []
        if not found:
            plan_cloud_layer(plan, catalog)
        return found
    except InputError as error:
        return list(error.problems)


def shared_cluster_check(cluster: SharedClusterBuild, catalog: Catalog) -> list:
    """Everything wrong with a shared cluster, before any resource of the stack exists."""
    if cluster.basis.cloud.value == "gcp":
        from components.gcp.fleet_stack import shared_cluster_problems
    else:
        from components.aws.fleet_stack import shared_cluster_problems
    return shared_cluster_problems(cluster, catalog)
