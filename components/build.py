"""components.build(plan): hand a finished plan to the components of its platform, then put the Kubernetes layer
(GPU software, Kueue routing with fallback, DCGM telemetry) on the cluster that was built.

Each cloud's package is imported only when its plan is built, so a GCP stack never imports pulumi_aws and an
AWS stack never imports pulumi_gcp.
"""

from __future__ import annotations

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


def build_shared_cluster(cluster: SharedClusterBuild, catalog: Catalog) -> Built:
    """One cluster holding several workloads (a fleet's SharedCluster): everything is checked, the Kubernetes
    layer included, before the first resource is created."""
    if cluster.basis.cloud.value == "gcp":
        from components.gcp.cluster_objects import build_gpudirect, build_service_accounts
        from components.gcp.fleet_stack import build_shared_cluster as build_gke, shared_cluster_problems
        from components.kubernetes.build import build_shared_for_gke, layer_labels, plan_shared_layer

        _raise_if_any(shared_cluster_problems(cluster, catalog))
        layer = plan_shared_layer(cluster, catalog)
        built = build_gke(cluster, catalog)
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

        _raise_if_any(shared_cluster_problems(cluster, catalog))
        layer = plan_shared_layer(cluster, catalog)
        built = build_eks(cluster, catalog)
        for workload in cluster.workloads:
            build_schedules(workload.plan, built.workloads[workload.name])  # part-day serving pools
        return Built(built, build_shared_for_eks(cluster, layer, built))
    raise InputError([problem("plan", "workloads", "only GKE and EKS clusters are shared",
                              "build bare-metal workloads alone", cluster.basis.cloud.value)])


def _raise_if_any(problems: list) -> None:
    if problems:
        raise InputError(problems)
