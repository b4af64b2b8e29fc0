"""Where each workload of a fleet runs: in a shared cluster with the others of its cloud and region, or alone.

A cluster has one network layout: GCP GPUDirect (extra VPCs, one per extra NIC) and AWS EFA (a placement group)
are decided for the whole network, so a workload whose multi-node training needs a layout the region's first
cluster does not have gets a cluster of its own in that region. TPU VMs (placement.orchestration: vms) and bare
metal are not nodes of a cloud cluster and are built alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from accelfit.clouds import cloud_named, is_cluster_platform
from accelfit.planner.model import Plan

# Workload names may have 40 characters (spec.models.WorkloadSpec.name); a fleet's second cluster adds "-2" ...
# "-99" to the fleet's name, so fleet names stop at 37 to keep cluster names within the same 40.
MAX_FLEET_NAME_CHARS = 37


def cluster_word(plan: Plan) -> str:
    """How the plan's cloud names its clusters (gke, eks: its record's `cluster_word`)."""
    return cloud_named(plan.cloud).cluster_word


def shares_clusters(plan: Plan) -> bool:
    """The workload can join a fleet's shared cluster: it runs as node pools of a cloud cluster accelfit creates,
    whose cloud builds a system pool (a shared cluster builds one for all its members: SharedCluster.system_pool,
    which the plan's schema requires)."""
    return is_cluster_platform(plan.platform) and cloud_named(plan.cloud).has_system_pool


def layout_of(plan: Plan) -> tuple[int, bool]:
    """(extra GPUDirect networks, EFA + placement group): what the cluster's network must be built with."""
    return plan.network.extra_networks, plan.network.efa


def describe_layout(layout: tuple[int, bool]) -> str:
    extra, efa = layout
    if extra:
        return f"GPUDirect with {extra} extra VPC networks"
    return "EFA with a cluster placement group" if efa else "a plain network (no GPUDirect, no EFA)"


@dataclass
class Placement:
    cluster_names: list[str] = field(default_factory=list)  # in the order of their first member
    cluster_of: dict[int, str] = field(default_factory=dict)  # workload index -> cluster name
    members: dict[str, list[int]] = field(default_factory=dict)  # cluster name -> workload indexes, stack order
    why: list[str] = field(default_factory=list)  # per workload, where it runs and why

    def members_of(self, cluster: str | None) -> tuple[int, ...]:
        return tuple(self.members.get(cluster, ())) if cluster else ()


def cluster_name(fleet: str, number: int) -> str:
    """The first cluster carries the fleet's name; later ones `<fleet>-2`, ...: adding a workload at the end never
    renames (and so never replaces) an existing cluster."""
    return fleet if number == 1 else f"{fleet}-{number}"


def place(plans: Sequence[Plan], fleet: str) -> Placement:
    placement = Placement()
    by_key: dict[tuple[str, str, tuple[int, bool]], str] = {}
    first_layout: dict[tuple[str, str], tuple[str, tuple[int, bool]]] = {}
    for index, plan in enumerate(plans):
        if not shares_clusters(plan):
            placement.why.append(_alone_reason(plan))
            continue
        layout = layout_of(plan)
        key = (plan.cloud.value, plan.region, layout)
        name = by_key.get(key)
        if name is None:
            name = cluster_name(fleet, len(placement.cluster_names) + 1)
            by_key[key] = name
            placement.cluster_names.append(name)
            placement.members[name] = []
        placement.cluster_of[index] = name
        placement.members[name].append(index)
        region_first = first_layout.setdefault((plan.cloud.value, plan.region), (name, layout))
        if region_first[1] != layout:
            placement.why.append(
                f"its own cluster {name} in {plan.cloud.value} {plan.region}: its multi-node training needs "
                f"{describe_layout(layout)}, and cluster {region_first[0]} in the same region is built with "
                f"{describe_layout(region_first[1])}; a cluster has one network layout")
        else:
            placement.why.append(f"cluster {name} ({cluster_word(plan).upper()} in {plan.cloud.value} "
                                 f"{plan.region}), with its own node pools")
    for index in range(len(plans)):
        name = placement.cluster_of.get(index)
        if name is not None and len(placement.members[name]) > 1:
            others = [plans[other].workload for other in placement.members[name] if other != index]
            placement.why[index] += f"; shares it with {', '.join(others)}"
    return placement


def place_own(plans: Sequence[Plan]) -> Placement:
    """The single form: the workload in a cluster of its own, named after it (no shared cluster)."""
    placement = Placement()
    for plan in plans:
        if is_cluster_platform(plan.platform):
            placement.why.append(f"its own cluster {plan.workload} ({cluster_word(plan).upper()} "
                                 f"in {plan.cloud.value} {plan.region}): the stack holds this one workload")
        else:
            placement.why.append(_alone_reason(plan))
    return placement


def _alone_reason(plan: Plan) -> str:
    if is_cluster_platform(plan.platform):  # its cloud's clusters have no system pool for a shared cluster to build
        return (f"its own cluster {plan.workload} ({cluster_word(plan).upper()} in {plan.cloud.value} {plan.region}): "
                f"{cloud_named(plan.cloud).title} clusters build no system pool, which a shared cluster holds once")
    if plan.platform.value == "tpu-vm":
        return (f"alone: TPU VMs in {plan.zones[0]} (placement.orchestration: vms) are not nodes of a cluster, so "
                "they get their own network and share nothing")
    if plan.gpu_vm is not None:
        return (f"alone: one GPU VM in {plan.gpu_vm.zone} (placement.orchestration: {plan.orchestration}) is not a "
                "node of a cluster, so it gets its own network and shares nothing")
    return (f"alone: bare metal on the inventory's servers ({plan.region}) joins its own cluster, not a cloud one")
