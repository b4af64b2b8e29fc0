"""Pieces every GKE node pool shares (system, GPU, TPU), built as the SDK's *Args classes (typos in dict
literals would pass silently: reference/pulumi.md P4). The decisions behind them live in node_settings.py."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pulumi
from pulumi_gcp import container

from accelfit.cloudrules.gcp.node_settings import (
    autoscaling_location_policy,
    gke_taint_effect,
    starting_zones,
    reservation_affinity,
)

# Only Google's own APIs, authorised by the node service account's IAM roles.
# https://cloud.google.com/compute/docs/access/service-accounts#scopes_best_practice
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"


def taints(plan_taints: Iterable[tuple[str, str, str]]) -> list[container.NodePoolNodeConfigTaintArgs]:
    return [container.NodePoolNodeConfigTaintArgs(key=key, value=value, effect=gke_taint_effect(effect))
            for key, value, effect in plan_taints]


def reservation(name: str | None, spot: bool,
                avoid: bool = False) -> container.NodePoolNodeConfigReservationAffinityArgs:
    kind, key, values = reservation_affinity(name, spot, avoid)
    return container.NodePoolNodeConfigReservationAffinityArgs(consume_reservation_type=kind, key=key,
                                                               values=values or None)


def autoscaling(min_nodes: int, max_nodes: int, spot: bool) -> container.NodePoolAutoscalingArgs:
    """Pool-wide bounds (total_*), not per zone, because the plan counts nodes per pool."""
    return container.NodePoolAutoscalingArgs(total_min_node_count=min_nodes, total_max_node_count=max_nodes,
                                             location_policy=autoscaling_location_policy(spot))


def starting(initial_nodes: int, zones: Sequence[str]) -> dict[str, Any]:
    """node_locations and the per-zone initial_node_count that start the plan's total (node_settings.starting_zones).
    """
    locations, per_zone = starting_zones(initial_nodes, zones)
    return {"node_locations": list(locations), "initial_node_count": per_zone}


# initialNodeCount forces a new node pool when it changes, and GKE may report another value once the pool has been
# resized; the provider's own advice is to ignore later changes to it (pulumi_gcp NodePool.initialNodeCount:
# "you can use a lifecycle block to ignore subsequent changes to this field"). It only matters at creation: an
# existing pool keeps its nodes and its autoscaling bounds govern from then on.
POOL_IGNORE_CHANGES = ["initialNodeCount"]


def secure_node_basics(service_account: pulumi.Input[str]) -> dict[str, Any]:
    """Node settings every pool gets: its own service account, Workload Identity metadata, shielded boot."""
    return {
        "service_account": service_account,
        "oauth_scopes": [CLOUD_PLATFORM_SCOPE],
        "workload_metadata_config": container.NodePoolNodeConfigWorkloadMetadataConfigArgs(mode="GKE_METADATA"),
        "shielded_instance_config": container.NodePoolNodeConfigShieldedInstanceConfigArgs(
            enable_secure_boot=True, enable_integrity_monitoring=True),
    }


def private_nodes() -> container.NodePoolNetworkConfigArgs:
    """No external IPs on the nodes; egress goes through Cloud NAT."""
    return container.NodePoolNetworkConfigArgs(enable_private_nodes=True)


def management(auto_repair: bool = True) -> container.NodePoolManagementArgs:
    return container.NodePoolManagementArgs(auto_repair=auto_repair, auto_upgrade=True)


def upgrade_settings(reserved: bool) -> container.NodePoolUpgradeSettingsArgs:
    """Surge upgrades need one spare machine; a full reservation has none, so reserved pools upgrade one node at a
    time in place (max_surge 0, max_unavailable 1: Cluster Toolkit's gke-node-pool default,
    modules/compute/gke-node-pool/main.tf @1047080). Others surge one node first and never drop capacity.
    https://cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies#surge"""
    if reserved:
        return container.NodePoolUpgradeSettingsArgs(strategy="SURGE", max_surge=0, max_unavailable=1)
    return container.NodePoolUpgradeSettingsArgs(strategy="SURGE", max_surge=1, max_unavailable=0)
