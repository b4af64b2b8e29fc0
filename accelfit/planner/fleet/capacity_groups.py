"""Capacity groups: the steps of a workload's fallback chain that are the same accelerator on the same machine type
on other capacity tiers (its planned pool, then its reservation / on-demand / spot standby pools of that type),
moved between by the cloud's own autoscaler when a pool gets no capacity, rather than by Kueue when quota is full.

Why: Kueue assigns flavors by quota (fallback_triggers), so a job admitted to a pool whose cloud has no capacity
waits there. Both clouds' autoscalers document a fallback that reacts to missing capacity:
- GKE: a custom ComputeClass whose `priorities` name manually created node pools (`nodepools: [...]`) in order;
  when GKE cannot create nodes for one priority (ZONE_RESOURCE_POOL_EXHAUSTED, QUOTA_EXCEEDED) it tries the next
  (https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes, "Choose your fallback
  compute priorities" and "Use manually created node pools"; CRD reference
  https://cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass). The pools carry the class's node
  label so a pod selecting the class may land on any of them.
- EKS: the Cluster Autoscaler's priority expander (kubernetes/autoscaler cluster-autoscaler/expander/priority/
  readme.md: the `cluster-autoscaler-priority-expander` ConfigMap maps priorities to regexes of node group names,
  the highest matching priority wins) with one node label shared by the group's node groups; a node group whose
  scale-up fails is backed off and the next option is taken (cluster-autoscaler/FAQ.md: nodes not registered within
  `--max-node-provision-time`, 15 min by default, are given up and another group is tried).
Kueue then holds one flavor for the group (quota = its pools together) selecting the shared label.

Left out of groups, each for a documented reason: TPU pools (a multi-host slice is created as one unit and GKE's
ComputeClass fallback for TPUs waits rather than moving at once); queued-provisioning and flex-start pools (their
nodes come through ProvisioningRequests, provisioning.py); AWS Capacity Block node groups (launched into a block by
its id at its start time, not by the autoscaler's choice); bare metal and VM platforms (no autoscaler). Steps of
another accelerator stay separate Kueue flavors: moved to only when the quota before them is full.

Pure: no Pulumi, no provider SDK.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from accelfit.clouds import cloud_named, is_cluster_platform
from accelfit.planner.build import SLICE_SET_LABEL
from accelfit.planner.model import NodePool, Plan
from accelfit.planner.fleet.provisioning import provisioning_class
from accelfit.values import fitted_name

# GKE: the node label that ties a manually created pool's nodes to a ComputeClass (About custom ComputeClasses, "Use
# manually created node pools": cloud.google.com/compute-class=CLASS_NAME on the pool). GKE's docs pair it with a
# NoSchedule taint of the same key, which keeps pods that did not ask for the class off the nodes; accelfit's GPU pools
# already carry the nvidia.com/gpu NoSchedule taint for that, and adding a taint to an existing pool would recreate it
# (terraform-provider-google 5.0 upgrade guide, "node_config.0.taint field change": "changes will cause a recreate"),
# while labels are updated in place (google/services/container/resource_container_node_pool.go: a labels change is an
# UpdateNodePoolRequest.Labels call). So the label only.
GKE_COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
# EKS: accelfit's own label on every node group of a group (EKS managed node group labels are Kubernetes node labels,
# and the Cluster Autoscaler reads them from the node-template tags at zero nodes: aws/node_group.py). A labels change
# updates the node group in place (hashicorp/terraform-provider-aws internal/service/eks/node_group.go
# resourceNodeGroupUpdate: labels go through UpdateNodegroupConfig).
EKS_CAPACITY_GROUP_LABEL = "accelfit.io/capacity-group"
_MAX_NAME = 63  # a ComputeClass name and a label value: a DNS label, at most 63 characters


@dataclass(frozen=True)
class CapacityGroup:
    name: str
    """The ComputeClass / label value; = the ResourceFlavor name of its first pool (`<workload>-<pool>`)."""
    pools: tuple[str, ...]
    """The plan's pool names in chain order (planned pool first, then standby pools by rank)."""
    ranks: tuple[int, ...]
    """Each pool's NodePool.fallback_rank (0 = planned)."""


def groupable(plan: Plan, pool: NodePool) -> bool:
    """A GPU pool the cloud's autoscaler scales for pending pods (see the module docstring for what is left out)."""
    return why_not_grouped(plan, pool) is None


def why_not_grouped(plan: Plan, pool: NodePool) -> str | None:
    """Why the cloud's autoscaler does not move jobs to or from this pool (None: it can), in the plan's words."""
    if not (is_cluster_platform(plan.platform) and cloud_named(plan.cloud).capacity_groups):
        return f"{plan.platform.value} has no cluster autoscaler choosing between pools"
    if pool.role == "tpu" or SLICE_SET_LABEL in pool.labels:
        return ("a TPU slice pool is created as one unit and GKE's ComputeClass fallback waits on TPU capacity "
                "instead of moving on, so Kueue moves the job (quota)")
    if pool.role != "gpu":
        return "not an accelerator pool"
    if provisioning_class(plan, pool) is not None or getattr(pool, "flex_start", False):
        return "its nodes come through ProvisioningRequests (flex-start / queued provisioning), not the autoscaler"
    if getattr(pool, "capacity_block", False):
        return "a Capacity Block node group is launched into its block by id at the block's start, not on demand"
    return None


def group_name(workload: str, pool: str) -> str:
    return fitted_name(f"{workload}-{pool}", _MAX_NAME)


def capacity_groups(plan: Plan, pools: Iterable[NodePool] | None = None) -> tuple[CapacityGroup, ...]:
    """The plan's capacity groups: pools of one accelerator on one machine type with the same accelerators per node
    (the same nodes, on other tiers), at least one of them a standby pool, in chain order. `pools`: the pools to
    group (default: the plan's own, standby pools included)."""
    members: dict[tuple[str, str | None, int], list[NodePool]] = {}
    for pool in plan.node_pools if pools is None else pools:
        if groupable(plan, pool):
            members.setdefault((pool.machine_type, pool.accelerator, pool.accelerators_per_node), []).append(pool)
    groups = []
    for same in members.values():
        ordered = sorted(same, key=lambda pool: (pool.fallback_rank, pool.name))
        if len(ordered) < 2 or not any(pool.fallback_rank for pool in ordered):
            continue
        groups.append(CapacityGroup(name=group_name(plan.workload, ordered[0].name),
                                    pools=tuple(pool.name for pool in ordered),
                                    ranks=tuple(pool.fallback_rank for pool in ordered)))
    return tuple(sorted(groups, key=lambda group: group.ranks))


def node_label_key(plan: Plan) -> str:
    return _CAPACITY_GROUP_LABEL.get(cloud_named(plan.cloud).capacity_groups, EKS_CAPACITY_GROUP_LABEL)


# The node label a capacity group's pools carry, by how the cloud's autoscaler groups them (Cloud.capacity_groups):
# a GKE custom compute class, accelfit's own label (EKS).
_CAPACITY_GROUP_LABEL = {"compute-class": GKE_COMPUTE_CLASS_LABEL, "node-label": EKS_CAPACITY_GROUP_LABEL}


def group_of_pools(plan: Plan) -> dict[str, CapacityGroup]:
    """Pool name -> its capacity group."""
    return {pool: group for group in capacity_groups(plan) for pool in group.pools}


def pool_group_labels(plan: Plan) -> dict[str, dict[str, str]]:
    """Pool name -> the node label its nodes carry for its group (GKE: the ComputeClass label; EKS: accelfit's)."""
    key = node_label_key(plan)
    return {pool: {key: group.name} for pool, group in group_of_pools(plan).items()}



def with_group_labels(plan: Plan, pools: Iterable[NodePool]) -> list[NodePool]:
    """`pools` with their capacity group's node label added (the node pools and node groups are built from these)."""
    labels = pool_group_labels(plan)
    return [pool.model_copy(update={"labels": {**pool.labels, **labels[pool.name]}}) if pool.name in labels else pool
            for pool in pools]
