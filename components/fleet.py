"""A cluster as the components build it (`SharedClusterBuild`), in either form of a stack: a fleet's shared cluster,
named after the fleet and holding several workloads' pools, or the single form's cluster of its own (`own`, from
`own_cluster`), holding its fleet of one. Plain data and the checks that span workloads; no Pulumi import (the
clouds' stacks and the Kubernetes layer consume it).

Shared items (project APIs/IAM roles, network + NAT, the node identity, the control plane, the system pool, the
Kubernetes layer's add-ons) are built once with the cluster's name and labelled `workload: <fleet>-shared`; each
workload adds its own pools (planned and standby), bucket, identity, namespace and Kueue queue, labelled with its
own name. Every workload is checked before anything is created, so a bad second workload creates nothing.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from accelfit.clouds import cloud_named
from accelfit.errors import Problem, problem
from accelfit.planner.fleet.model import shared_marker
from accelfit.planner.model import NetworkPlan, NodePool, Plan
from components.common import Ownership

FILE = "plan"


@dataclass(frozen=True)
class ClusterWorkload:
    plan: Plan
    ownership: Ownership
    eligible_accelerators: frozenset[str] = field(
        default=frozenset(), metadata={"doc": "Accelerators the workload may run on (its plan, its eligible "
                                               "alternatives and fallback steps): it borrows only these."})

    @property
    def name(self) -> str:
        return self.plan.workload


@dataclass(frozen=True)
class SharedClusterBuild:
    """One cluster holding `workloads` (in the stack's order), named `name`, in the Kueue cohort `fleet`; or, with
    `own`, the single form's cluster of its own, holding its fleet of one. Both are built by the same functions;
    `own` is the one fact they differ by (see `pool_prefix`, `cohort`)."""

    name: str
    fleet: str
    workloads: tuple[ClusterWorkload, ...]
    ownership: Ownership = field(metadata={"doc": "Labels of the shared items (workload: <fleet>-shared)."})
    own: bool = field(default=False, metadata={
        "doc": "The single form's cluster of its own (one workload, named and labelled after it, as single "
               "stacks have always been built): no group components, its flavors keyed by its pools' own names, "
               "its pods in accelfit:teamNamespaces, no Kueue cohort. False: a fleet's shared cluster."})
    network: NetworkPlan | None = field(default=None, metadata={
        "doc": "The shared network as the fleet plan sized it (pods range for every member's nodes); None = the "
               "basis workload's."})
    zones: tuple[str, ...] = field(default=(), metadata={
        "doc": "Zones the network spans (every member's pools); empty = the members' plan zones."})
    system_pool: NodePool | None = field(default=None, metadata={
        "doc": "The one system pool the cluster builds (SharedCluster.system_pool); None = the basis workload's."})

    @property
    def plans(self) -> tuple[Plan, ...]:
        return tuple(item.plan for item in self.workloads)

    def pool_prefix(self, plan: Plan) -> str:
        """What a workload's pool names are prefixed with where the cluster's pools meet (Kueue flavors' pool keys
        and resource names): nothing in a cluster of its own, `<workload>-` in a shared one, where pool names are
        unique per workload only."""
        return "" if self.own else f"{plan.workload}-"

    @property
    def cohort(self) -> str | None:
        """The Kueue cohort the workloads' queues share and borrow in: the fleet's; none in a cluster of its own."""
        return None if self.own else self.fleet

    @property
    def basis(self) -> Plan:
        """The plan the cluster-wide settings come from (system pool, control plane, network layout): the first
        workload with GPUDirect pools (its NICs shape the network), else the first workload; with the fleet plan's
        shared network when it sized one."""
        plan = next((plan for plan in self.plans if any(pool.gpudirect != "none" for pool in plan.node_pools)),
                    self.plans[0])
        if self.network is not None:
            plan = plan.model_copy(update={"network": self.network.model_copy(
                update={"extra_networks": plan.network.extra_networks})})
        if self.system_pool is not None:
            plan = plan.model_copy(update={"node_pools": (self.system_pool, *(
                pool for pool in plan.node_pools if pool.role != "system"))})
        return plan

    @property
    def environment(self) -> str:
        return self.plans[0].environment


# Network settings that are the workload's own (its pools' NICs) or sized for the whole cluster by the fleet plan.
_PER_WORKLOAD_NETWORK = {"extra_networks", "efa", "placement_group", "pods_cidr"}


def own_cluster(plan: Plan, ownership: Ownership) -> SharedClusterBuild:
    """The single form's cluster of its own: its fleet of one, named and labelled after the workload."""
    return SharedClusterBuild(name=plan.workload, fleet=plan.workload, ownership=ownership, own=True,
                              workloads=(ClusterWorkload(plan=plan, ownership=ownership),))


def shared_ownership(fleet: str, like: Ownership) -> Ownership:
    return dataclasses.replace(like, workload=shared_marker(fleet))


def accelerator_pools(plan: Plan) -> list[NodePool]:
    return [pool for pool in plan.node_pools if pool.role in ("gpu", "tpu")]


def fallback_rank(pool: NodePool) -> int:
    """0 for a planned pool, 1.. for the standby pools of the fallback chain (FLEET-CONTRACT)."""
    return int(getattr(pool, "fallback_rank", 0) or 0)


def _workload_field(index: int, problem_: Problem) -> Problem:
    """A plan problem as the fleet reports it: under `workloads[<index>]`."""
    return dataclasses.replace(problem_, field=f"workloads[{index}].{problem_.field}".rstrip("."))


def prefixed(index: int, problems: Iterable[Problem]) -> list[Problem]:
    return [_workload_field(index, item) for item in problems]


def cluster_problems(cluster: SharedClusterBuild, cloud: str) -> list[Problem]:
    """What every shared cluster needs of its workloads, whatever the cloud: at least one workload, unique names,
    one cloud, region, environment, network and Kubernetes version, and a cluster name that names no workload."""
    problems: list[Problem] = []
    plans = cluster.plans
    if not plans:
        return [problem(FILE, "workloads", "a shared cluster without workloads", "give it at least one workload")]
    for name, count in Counter(plan.workload for plan in plans).items():
        if count > 1:
            problems.append(problem(FILE, "workloads", "two workloads share a name; names become resource names",
                                    "give each workload its own name", name))
    if cluster.name in {plan.workload for plan in plans}:
        problems.append(problem(FILE, "fleet", "the shared cluster is named like one of its workloads, so their "
                                "resources' names would mix", "name the fleet differently from its workloads",
                                cluster.name))
    basis = cluster.basis
    for index, plan in enumerate(plans):
        path = f"workloads[{index}]"
        checks: tuple[tuple[str, Any, Any], ...] = (
                  ("cloud", plan.cloud.value, basis.cloud.value), ("region", plan.region, basis.region),
                  ("environment", plan.environment, basis.environment),
                  ("orchestration", plan.orchestration, "kubernetes"),
                  ("network", plan.network.model_dump(exclude=_PER_WORKLOAD_NETWORK),
                   basis.network.model_dump(exclude=_PER_WORKLOAD_NETWORK)))
        version = cloud_named(cloud).cluster_version_field
        if version:
            checks += ((version, getattr(plan, version), getattr(basis, version)),)
        for key, value, wanted in checks:
            if value != wanted:
                problems.append(problem(FILE, f"{path}.{key}", f"one cluster has one {key}; {basis.workload} "
                                        f"has {wanted}", f"plan {plan.workload} with {key} {wanted}, or place it in "
                                        "a cluster of its own", value))
        flavours = {pool.gpudirect for pool in plan.node_pools} - {"none"}
        wanted_flavours = {pool.gpudirect for pool in basis.node_pools} - {"none"}
        if flavours and flavours != wanted_flavours:
            problems.append(problem(FILE, f"{path}.node_pools", "GPUDirect pools of another network layout than "
                                    "the cluster's (its extra NICs are the cluster network's)",
                                    "place this workload in a cluster of its own", sorted(flavours)))
    return problems
