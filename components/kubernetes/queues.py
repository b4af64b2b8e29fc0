"""Kueue routing for a plan, as plain data: one ResourceFlavor per accelerator pool, a ClusterQueue whose flavors
are tried in the plan's fallback order, quotas sized from the pools. Pure: no Pulumi import, nothing chosen here
that the plan has not decided (the order and quotas follow from the plan's pools).

Fallback order (Kueue admits a workload into the first flavor of the list with room for it):
1. the plan's accelerator kind first (the best fit the planner chose); the other kind only when the plan carries
   pools of both, which the planner does only when the workload may run on either (TPU then GPU for a TPU plan);
2. within a kind: reserved or owned capacity (already paid for), then on-demand, then spot (may be reclaimed).
https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#flavorfungibility
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from accelfit.clouds import cloud_of_platform
from accelfit.planner.build import SLICE_SET_LABEL
from accelfit.planner.fleet.capacity_groups import capacity_groups, node_label_key
from accelfit.planner.model import NodePool, Plan
from accelfit.planner.fleet.fallback_triggers import (
    PROVISIONING_BACKOFF_BASE_SECONDS,
    PROVISIONING_BACKOFF_MAX_SECONDS,
    PROVISIONING_RETRY_LIMIT,
)
from accelfit.planner.fleet.provisioning import QUEUED_PROVISIONING_CLASS, provisioning_class

# v1beta2 is the stored version from Kueue 0.15; v1beta1 is deprecated (kubernetes-sigs/kueue v0.19.2
# charts/kueue/templates/crd: v1beta1 served, deprecated, storage false).
KUEUE_API = "kueue.x-k8s.io/v1beta2"
KUEUE_PREVIOUS_API = "kueue.x-k8s.io/v1beta1"
RESOURCE_OF_KIND = {"gpu": "nvidia.com/gpu", "tpu": "google.com/tpu"}
# Kueue admits a pod only when the ClusterQueue covers every resource it requests
# (https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#resources): jobs ask for node-local scratch
# (ephemeral-storage, on the NVMe RAID) and, on EKS, for EFA devices, so both are covered.
EPHEMERAL_STORAGE = "ephemeral-storage"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
# EFA jobs also ask for 2 MiB huge pages (AWS's EFA pod example requests hugepages-2Mi: 5120Mi,
# https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html), so EFA queues cover them too.
HUGEPAGES_2MI = "hugepages-2Mi"
TIER_ORDER = ("reservation", "on-demand", "spot")
# Namespaces carrying this label (value: the ClusterQueue's name) may submit to the ClusterQueue.
QUEUE_NAMESPACE_LABEL = "accelfit.io/cluster-queue"
# The components that own the node pools rewrite this label (GKE sets it to the pool role), so flavors never
# select on it; the other plan labels are on every node of the pool as the plan wrote them.
_REWRITTEN_LABELS = frozenset({"accelfit.io/role"})

Tier = Literal["reservation", "on-demand", "spot"]


@dataclass(frozen=True)
class NodeCapacity:
    """What one pool offers at its largest: accelerators, vCPUs, memory, node-local storage and EFA devices over
    all its nodes."""

    accelerators: int
    cpus: int
    memory_gib: int
    ephemeral_storage_gib: int = 0
    efa: int = 0
    hugepages_2mi_mib: int = 0
    """2 MiB huge pages the nodes pre-allocate, in MiB (EFA nodes: capacity.EFA_HUGEPAGES_2MI_PER_NODE)."""


@dataclass(frozen=True)
class FlavorPlan:
    name: str = field(metadata={"doc": "Kubernetes name of the ResourceFlavor (cluster-scoped)."})
    pool: str
    kind: Literal["gpu", "tpu"]
    tier: Tier
    node_labels: Mapping[str, str]
    taints: tuple[tuple[str, str, str], ...] = field(metadata={"doc": "(key, value, effect) of the pool's nodes."})
    capacity: NodeCapacity
    rank: int = field(default=0, metadata={"doc": "The pool's place in its workload's fallback chain: 0 = planned "
                                                  "pool, 1.. = standby pools (NodePool.fallback_rank)."})
    accelerator: str = field(default="", metadata={"doc": "Canonical accelerator of the pool's nodes."})
    provisioning_class: str | None = field(default=None, metadata={
        "doc": "The ProvisioningRequest class the pool's nodes come through (accelfit.planner.fleet.provisioning): the "
               "ClusterQueue runs that class's admission check on this flavor; None = no check."})
    slice_pools: tuple[str, ...] = field(default=(), metadata={
        "doc": "Multislice: every slice pool the flavor holds (it selects their nodes by accelerator, topology and "
               "slice set, not by one pool's name); empty = the flavor is its one pool."})
    group_pools: tuple[str, ...] = field(default=(), metadata={
        "doc": "Capacity group (accelfit.planner.fleet.capacity_groups): the pools of one accelerator on several "
               "capacity tiers, in chain order, that the flavor holds; it selects them by the group's node label and "
               "the cloud's autoscaler picks the pool that has capacity. Empty = not a group."})

    @property
    def resource(self) -> str:
        return RESOURCE_OF_KIND[self.kind]

    @property
    def selects_one_pool(self) -> bool:
        return len(self.slice_pools) <= 1 and len(self.group_pools) <= 1


def capacity_tier(pool: NodePool, owned: bool) -> Tier:
    if owned or pool.reservation:
        return "reservation"
    return "spot" if pool.spot else "on-demand"


# GKE labels every TPU node with its accelerator and slice topology; xpk's ResourceFlavors select on both, so a
# job is admitted only to a flavor whose slices have the shape it asks for. AI-Hypercomputer/xpk
# src/xpk/core/system_characteristics.py (accelerator_label / machine_label of TPU) and kueue_manager.py
# @367c838253bea41e7d7716145ad6513f44c1a21e; https://cloud.google.com/kubernetes-engine/docs/how-to/tpus
GKE_TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
GKE_TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"


def tpu_node_selectors(pool: NodePool) -> dict[str, str]:
    """The labels GKE puts on the nodes of a TPU pool ({} for other pools and pools the plan left unshaped)."""
    if pool.role != "tpu" or not pool.gke_accelerator or not pool.tpu_topology:
        return {}
    return {GKE_TPU_ACCELERATOR_LABEL: pool.gke_accelerator, GKE_TPU_TOPOLOGY_LABEL: pool.tpu_topology}


def flavor_plans(plan: Plan, capacities: Mapping[str, NodeCapacity]) -> list[FlavorPlan]:
    """One flavor per accelerator pool of `plan`, in fallback order, except multislice: one flavor per set of slice
    pools (multislice_flavors). `capacities` is keyed by pool name."""
    owned = cloud_of_platform(plan.platform).owned
    flavors = [FlavorPlan(
        name=f"{plan.workload}-{pool.name}", pool=pool.name, kind=pool.role, tier=capacity_tier(pool, owned),
        node_labels={**{key: value for key, value in pool.labels.items() if key not in _REWRITTEN_LABELS},
                     **tpu_node_selectors(pool)},
        taints=tuple((taint.key, taint.value, taint.effect) for taint in pool.taints),
        capacity=capacities[pool.name], rank=int(getattr(pool, "fallback_rank", 0) or 0),
        accelerator=pool.accelerator or "", provisioning_class=provisioning_class(plan, pool))
        for pool in plan.node_pools if pool.role in ("gpu", "tpu")]
    slice_sets = {pool.name: pool.labels[SLICE_SET_LABEL] for pool in plan.node_pools
                  if pool.role == "tpu" and SLICE_SET_LABEL in pool.labels}
    return fallback_order(group_flavors(multislice_flavors(flavors, slice_sets), plan),
                          preferred_kind=plan.accelerator.kind)


def group_flavors(flavors: list[FlavorPlan], plan: Plan) -> list[FlavorPlan]:
    """Each capacity group's pools as one flavor: quota = the pools together, nodes selected by the group's label
    (GKE: the ComputeClass label; EKS: accelfit.io/capacity-group), taints = every member's (so admitted pods
    tolerate whichever pool the autoscaler picks). The flavor keeps its first pool's name, place and rank (the
    planned pool's flavor is updated in place; the standby pools' flavors are removed). Why a group and not a
    flavor per pool: Kueue assigns a flavor by quota, the autoscaler picks a pool by capacity
    (accelfit.planner.fleet.capacity_groups)."""
    by_pool = {flavor.pool: flavor for flavor in flavors}
    key = node_label_key(plan)
    merged: dict[str, FlavorPlan] = {}
    for group in capacity_groups(plan):
        members = [by_pool[pool] for pool in group.pools if pool in by_pool]
        if len(members) < 2:
            continue
        first = members[0]
        capacity = NodeCapacity(*(sum(getattr(member.capacity, name) for member in members)
                                  for name in NodeCapacity.__dataclass_fields__))
        taints = tuple(dict.fromkeys(taint for member in members for taint in member.taints))
        merged[first.pool] = dataclasses.replace(first, node_labels={key: group.name}, taints=taints,
                                                 capacity=capacity, group_pools=tuple(m.pool for m in members))
        for member in members[1:]:
            merged[member.pool] = None  # type: ignore[assignment]  # held by the group's flavor
    return [merged.get(flavor.pool, flavor) for flavor in flavors if merged.get(flavor.pool, flavor) is not None]


def multislice_flavors(flavors: list[FlavorPlan], slice_sets: Mapping[str, str]) -> list[FlavorPlan]:
    """The slice pools of one multislice step as one flavor holding all their chips.

    A multislice JobSet is one podset (one replicated job, one replica per slice) and Kueue gives a podset one
    flavor, so a flavor per slice pool (one slice's quota) could never admit it. xpk builds one ResourceFlavor on
    the accelerator and topology node labels with nominalQuota = slices x chips per slice (AI-Hypercomputer/xpk
    src/xpk/templates/kueue_config.yaml.j2 and src/xpk/core/kueue_manager.py @367c838253bea41e7d7716145ad6513f44c1a21e,
    total_chips); here the slice-set label the planner puts on those pools keeps a planned set apart from a
    standby set of the same shape. The flavor keeps its first pool's name, so a stack's first slice flavor is
    updated in place and the others' are removed."""
    merged: list[FlavorPlan] = []
    members: dict[str, list[FlavorPlan]] = {}
    for flavor in flavors:
        key = slice_sets.get(flavor.pool)
        if key is None:
            merged.append(flavor)
            continue
        if key not in members:
            members[key] = []
            merged.append(flavor)
        members[key].append(flavor)
    out = []
    for flavor in merged:
        group = members.get(slice_sets.get(flavor.pool, ""), [flavor])
        if len(group) <= 1:
            out.append(flavor)
            continue
        capacity = NodeCapacity(*(sum(getattr(member.capacity, name) for member in group)
                                  for name in NodeCapacity.__dataclass_fields__))
        out.append(dataclasses.replace(flavor, capacity=capacity,
                                       slice_pools=tuple(member.pool for member in group)))
    return out


def fallback_order(flavors: list[FlavorPlan], preferred_kind: str) -> list[FlavorPlan]:
    """The plan's fallback chain first (planned pool, then its standby pools by rank), then the preferred kind,
    then reservation -> on-demand -> spot; ties by pool name (stable, documented)."""
    return sorted(flavors, key=lambda flavor: (flavor.rank, flavor.kind != preferred_kind,
                                               TIER_ORDER.index(flavor.tier), flavor.pool))


def covered_resources(flavors: list[FlavorPlan]) -> list[str]:
    """cpu, memory and ephemeral-storage (any pod may ask for them), each accelerator resource the flavors offer,
    and EFA with the 2 MiB huge pages EFA jobs request when a flavor has EFA devices."""
    accelerators = sorted({flavor.resource for flavor in flavors})
    efa = [EFA_RESOURCE, HUGEPAGES_2MI] if any(flavor.capacity.efa for flavor in flavors) else []
    return ["cpu", "memory", EPHEMERAL_STORAGE, *accelerators, *efa]


def flavor_quota(flavor: FlavorPlan, resource: str) -> str:
    """The nominal quota of one resource in one flavor; 0 for an accelerator the flavor does not have."""
    capacity = flavor.capacity
    amounts = {"cpu": str(capacity.cpus), "memory": f"{capacity.memory_gib}Gi",
               EPHEMERAL_STORAGE: f"{capacity.ephemeral_storage_gib}Gi", EFA_RESOURCE: str(capacity.efa),
               HUGEPAGES_2MI: f"{capacity.hugepages_2mi_mib}Mi"}
    if resource in amounts:
        return amounts[resource]
    return str(capacity.accelerators if resource == flavor.resource else 0)


def resource_flavor_spec(flavor: FlavorPlan, pool_selector: Mapping[str, Any]) -> dict[str, Any]:
    """`pool_selector` is the platform's own per-pool node label (values may be Pulumi Outputs)."""
    return {
        "nodeLabels": {**flavor.node_labels, **pool_selector},
        # Kueue admits a workload into a tainted flavor only when it tolerates the taints; the tolerations are
        # added to the pods it admits, so teams need not repeat the GPU/TPU taint in every job.
        "nodeTaints": [{"key": key, "value": value, "effect": effect} for key, value, effect in flavor.taints],
        "tolerations": [{"key": key, "operator": "Equal", "value": value, "effect": effect}
                        for key, value, effect in flavor.taints],
    }


def cluster_queue_spec(queue_name: str, flavors: list[FlavorPlan], borrowed: list[FlavorPlan] | None = None,
                       cohort: str | None = None) -> dict[str, Any]:
    """One resource group covering every resource, its flavors in fallback order. A flavor offers 0 of the
    accelerator it does not have, so a GPU job skips TPU flavors (and vice versa) and falls through the list.

    In a fleet (`cohort` set) the queue is in the fleet's cohort and lists, after its own flavors, the `borrowed`
    flavors of the other workloads with a nominal quota of 0: Kueue lets a ClusterQueue borrow a cohort member's
    unused quota only for the [flavor, resource] pairs it lists (ClusterQueueSpec.cohortName), and with
    whenCanBorrow: TryNextFlavor a job tries every own flavor before one that needs borrowing.
    kubernetes-sigs/kueue v0.19.2 @8eab68778fc1b52affe165fdf5af29d1e9b4f3cb apis/kueue/v1beta2/clusterqueue_types.go
    """
    borrowed = list(borrowed or [])
    covered = covered_resources([*flavors, *borrowed])

    def quotas(flavor: FlavorPlan, lent: bool) -> list[dict[str, str]]:
        return [{"name": resource, "nominalQuota": "0" if lent else flavor_quota(flavor, resource)}
                for resource in covered]

    spec: dict[str, Any] = {
        "namespaceSelector": {"matchLabels": {QUEUE_NAMESPACE_LABEL: queue_name}},
        # Large jobs waiting for room must not block small ones that fit now.
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": covered,
                            "flavors": [{"name": flavor.name, "resources": quotas(flavor, False)}
                                        for flavor in flavors]
                            + [{"name": flavor.name, "resources": quotas(flavor, True)} for flavor in borrowed]}],
        # Try the next flavor when the current one is full instead of waiting (fallback, not preemption).
        "flavorFungibility": {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"},
    }
    checks = admission_check_strategy([*flavors, *borrowed])
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": checks}
    if cohort is not None:
        spec["cohortName"] = cohort
        # A workload whose own quota is lent out takes it back: its jobs may preempt the borrowers' (Kueue
        # ClusterQueuePreemption.reclaimWithinCohort: Any, same file), so each workload's jobs land on its planned
        # pool first even when another workload is using it.
        spec["preemption"] = {"reclaimWithinCohort": "Any", "withinClusterQueue": "Never"}
    return spec


# A ProvisioningRequest admission check per class: the AdmissionCheck and its ProvisioningRequestConfig (both
# cluster-scoped, one each per cluster). Kueue v0.19.2 site/content/en/docs/concepts/admission_check/
# provisioning_request.md ("Usage": controllerName kueue.x-k8s.io/provisioning-request, parameters naming a
# ProvisioningRequestConfig); apis/kueue/v1beta2/provisioningrequestconfig_types.go.
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
CHECK_NAMES = {QUEUED_PROVISIONING_CLASS: "accelfit-queued-provisioning"}


def admission_check_strategy(flavors: list[FlavorPlan]) -> list[dict[str, Any]]:
    """One rule per ProvisioningRequest class, run only on the flavors whose pools need it (admissionChecksStrategy
    onFlavors: Kueue v0.19.2 site/content/en/docs/concepts/admission_check/_index.md, "Using
    .spec.admissionCheckStrategy"); the other flavors admit on quota alone."""
    classes: dict[str, list[str]] = {}
    for flavor in flavors:
        if flavor.provisioning_class:
            classes.setdefault(flavor.provisioning_class, []).append(flavor.name)
    return [{"name": CHECK_NAMES[name], "onFlavors": on} for name, on in sorted(classes.items())]


def provisioning_request_config_spec(provisioning_class: str, resources: list[str]) -> dict[str, Any]:
    """As xpk's dws-config for GKE queued provisioning (AI-Hypercomputer/xpk src/xpk/templates/kueue_config.yaml.j2
    @367c838): the class, the accelerator resources it manages, and the node selector that pins the job's pods to
    the nodes provisioned for its request (GKE labels them autoscaling.gke.io/provisioning-request with the
    request's ResizeRequestName); the retry strategy is Kueue's default, stated (fallback_triggers)."""
    return {
        "provisioningClassName": provisioning_class,
        "managedResources": sorted(resources),
        "podSetUpdates": {"nodeSelector": [{"key": "autoscaling.gke.io/provisioning-request",
                                            "valueFromProvisioningClassDetail": "ResizeRequestName"}]},
        "retryStrategy": {"backoffLimitCount": PROVISIONING_RETRY_LIMIT,
                          "backoffBaseSeconds": PROVISIONING_BACKOFF_BASE_SECONDS,
                          "backoffMaxSeconds": PROVISIONING_BACKOFF_MAX_SECONDS},
    }


def admission_check_spec(config_name: str) -> dict[str, Any]:
    return {"controllerName": PROVISIONING_CONTROLLER,
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": config_name}}


@dataclass(frozen=True)
class QueuePlan:
    """One workload's ClusterQueue: its own flavors in fallback order, the flavors it may borrow (others' pools of
    accelerators it is eligible for), the namespaces that submit to it, its cohort (None outside a fleet)."""

    name: str
    flavors: tuple[FlavorPlan, ...]
    namespaces: tuple[str, ...]
    borrowed: tuple[FlavorPlan, ...] = ()
    cohort: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    """Labels of the queue's objects (its workload's); empty = the layer's."""

    def spec(self) -> dict[str, Any]:
        return cluster_queue_spec(self.name, list(self.flavors), list(self.borrowed), self.cohort)


def cohort_queues(queues: list[QueuePlan], eligible: Mapping[str, frozenset[str]], cohort: str) -> list[QueuePlan]:
    """Each workload's queue in `cohort`, borrowing every other workload's flavor whose accelerator it is eligible
    for (`eligible`: queue name -> accelerators), in the other workloads' order and their fallback order."""
    out = []
    for queue in queues:
        allowed = eligible.get(queue.name, frozenset())
        borrowed = tuple(flavor for other in queues if other.name != queue.name for flavor in other.flavors
                         if flavor.accelerator and flavor.accelerator in allowed)
        out.append(QueuePlan(name=queue.name, flavors=queue.flavors, namespaces=queue.namespaces, borrowed=borrowed,
                             cohort=cohort, labels=queue.labels))
    return out
