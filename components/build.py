"""components.build(plan): hand a finished plan to the components of its platform, then put the Kubernetes layer
(GPU software, Kueue routing with fallback, DCGM telemetry) on the cluster that was built.

Each cloud's package is imported only when its plan is built, so a GCP stack never imports pulumi_aws and an
AWS stack never imports pulumi_gcp.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accelfit.catalog.models import Catalog
from accelfit.planner.model import Plan
from accelfit.spec.inventory import Inventory
from components.common import Ownership


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
