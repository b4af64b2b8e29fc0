"""A fleet's cost from the resources its preview recorded: each resource attributed to the workload it belongs to
(or to the shared cluster it is part of), each workload's own resources priced with its own usage (its training
run, its bucket's size, its egress), each shared cluster's items priced once, and the three figures per workload
(own + an even share of the shared items) and for the fleet (shared items counted once), the way the fleet plan
computes them (accelfit/planner/fleet/costs.py), so the two agree.

Pure: works on plain records (type, name, urn, parent urn); no Pulumi import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem, shorten
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.figures import CostFigures
from accelfit.pricing.serving_objects import route_of
from accelfit.pricing.resources import CostReport, ResourceCost
from accelfit.planner.fleet.model import SHARED_COMPONENT, WORKLOAD_COMPONENT, shared_marker

WORKLOAD_LABEL = "accelfit.io/workload"


@dataclass(frozen=True)
class Member:
    """What pricing needs of one workload of the fleet."""

    name: str
    context: PricingContext
    cluster: str | None
    training: bool


def attribute(records: Sequence[Any], workloads: Iterable[str]) -> dict[str, str]:
    """URN -> owner (a workload's name, or `<cluster>-shared`), for every record. A Kubernetes object labelled with a
    workload (its flavors, ClusterQueue, LocalQueue, namespace) is that workload's; any other record belongs to the
    group component it sits under (accelfit:fleet:Workload / SharedCluster); a workload built alone (TPU VMs, bare
    metal) has top-level components named `<workload>-<role>`, attributed by that name (the longest match)."""
    by_urn = {record.urn: record for record in records}
    names = sorted(workloads, key=len, reverse=True)
    owners: dict[str, str] = {}

    known = set(names)

    def own(record: Any) -> str | None:
        """The owner a record names by itself (label, group type, name), or None when it is its parent's."""
        labelled = _workload_label(record)
        if labelled in known:
            return labelled  # a workload's Kueue objects and namespace, inside the shared Kubernetes layer
        if record.type == WORKLOAD_COMPONENT:
            name: str = record.name  # a recorded resource's name
            return name
        if record.type == SHARED_COMPONENT:
            return shared_marker(record.name)
        if record.parent and record.parent in by_urn:
            return None
        return next((name for name in names if record.name == name or record.name.startswith(f"{name}-")), "")

    def owner_of(record: Any) -> str:
        # Up the parent chain without recursion (a preview may nest deeply); a chain that comes back to a resource
        # (a resource that is its own parent, or a longer cycle) is not a Pulumi preview, and is said so.
        chain: list[Any] = []
        seen: set[str] = set()
        found: str | None = None
        while record.urn not in owners:
            if record.urn in seen:
                raise InputError([problem(None, f"{shorten(record.urn, 200)}.parent", "the resources' parents form a "
                                          "cycle (a resource is its own ancestor), which no Pulumi preview has",
                                          "pass the unmodified output of `pulumi preview --json`")])
            seen.add(record.urn)
            chain.append(record)
            found = own(record)
            if found is not None:
                break
            record = by_urn[record.parent]
        else:
            found = owners[record.urn]
        for item in chain:
            owners[item.urn] = found
        return found

    for record in records:
        owner_of(record)
    return owners


def _workload_label(record: Any) -> str | None:
    """The `accelfit.io/workload` label of a Kubernetes object (the layer labels each workload's queue objects)."""
    metadata = (getattr(record, "inputs", None) or {}).get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    return labels.get(WORKLOAD_LABEL) if isinstance(labels, dict) else None


@dataclass(frozen=True)
class FleetCosts:
    workloads: dict[str, CostFigures]
    own: dict[str, CostReport]
    shared: dict[str, CostReport]  # by cluster name
    fleet: CostFigures
    resources: tuple[ResourceCost, ...] = field(default=())
    usage: tuple[tuple[str, ResourceCost], ...] = field(default=())  # (workload, egress line)

    def by_urn(self) -> dict[str, ResourceCost]:
        return {cost.urn or cost.name: cost for cost in self.resources}

    def report(self) -> CostReport:
        """The fleet as one cost report (what the policy pack's budget rule reads)."""
        assumptions = tuple(dict.fromkeys(line for report in (*self.own.values(), *self.shared.values())
                                          for line in report.assumptions))
        return CostReport(resources=self.resources, usage=tuple(line for _, line in self.usage),
                          monthly_usd=self.fleet.monthly_usd,
                          full_scale_monthly_usd=self.fleet.full_scale_monthly_usd,
                          run_total_usd=self.fleet.run_total_usd, assumptions=assumptions)


def shared_context(members: Sequence[Member]) -> PricingContext:
    """The shared items exist while any member runs: a run total counts them over the longest member run (as the
    fleet plan does); they have no bucket and no egress of their own."""
    first = members[0].context
    runs = [member.context.run for member in members if member.training and member.context.run is not None]
    longest = max(runs, key=lambda run: run.wall_hours, default=None)
    # The serving routes are built in the cluster's layer (shared), each priced with its own workload's traffic.
    routes = {route: gb for member in members for route, gb in member.context.serving_gb_per_month.items()}
    return PricingContext(regions=first.regions, run=longest,
                          serving_gb_per_month=routes)


def price_fleet(resources: Sequence[NeutralResource], owners: Mapping[str, str], members: Sequence[Member],
                catalog: Catalog) -> FleetCosts:
    by_owner = _by_owner(resources, owners, members)
    clusters = _clusters(members)

    def cluster_of(names: Iterable[str]) -> list[NeutralResource]:
        return [resource for name in names for resource in by_owner.get(name, [])]

    # A pool's usage depends on what its cluster runs (the Cluster Autoscaler is a shared item; schedules and
    # launch templates sit with the pools): each group is priced with the rest of its cluster around it.
    around = {name: cluster_of([shared_marker(name), *(member.name for member in group)])
              for name, group in clusters.items()}
    own = {member.name: price_resources(by_owner.get(member.name, []), catalog, member.context,
                                        around.get(member.cluster or "", []))
           for member in members}
    shared = {name: price_resources(by_owner.get(shared_marker(name), []), catalog, shared_context(group),
                                    around[name])
              for name, group in clusters.items()}
    workloads = {member.name: _workload_figures(member, own[member.name], clusters, shared) for member in members}
    costs = tuple(cost for report in (*own.values(), *shared.values()) for cost in report.resources)
    usage = tuple((name, line) for name, report in own.items() for line in report.usage)
    return FleetCosts(workloads=workloads, own=own, shared=shared, fleet=_fleet_figures(members, own, shared),
                      resources=costs, usage=usage)


def _by_owner(resources: Sequence[NeutralResource], owners: Mapping[str, str],
              members: Sequence[Member]) -> dict[str, list[NeutralResource]]:
    """The resources grouped by the workload (or `<cluster>-shared`) that owns them."""
    by_owner: dict[str, list[NeutralResource]] = {}
    names = {member.name for member in members}
    for resource in resources:
        # A serving route's objects sit in the cluster's layer but are their workload's own cost (the plan's
        # gateway and metrics lines): the route label names the workload.
        route = route_of(resource.props)
        owner = route if route in names else owners.get(resource.urn, "")
        by_owner.setdefault(owner, []).append(resource)
    return by_owner


def _clusters(members: Sequence[Member]) -> dict[str, list[Member]]:
    """Shared cluster name -> the members that run on it."""
    clusters: dict[str, list[Member]] = {}
    for member in members:
        if member.cluster is not None:
            clusters.setdefault(member.cluster, []).append(member)
    return clusters


def _workload_figures(member: Member, report: CostReport, clusters: Mapping[str, list[Member]],
                      shared: Mapping[str, CostReport]) -> CostFigures:
    """One workload's figures: its own resources plus an even share of its cluster's shared items (the run total's
    share split among the cluster's training members only)."""
    monthly, full = report.monthly_usd, report.full_scale_monthly_usd
    run = report.run_total_usd if member.training else None
    if member.cluster is not None:
        group, items = clusters[member.cluster], shared[member.cluster]
        monthly += items.monthly_usd / len(group)
        full += items.full_scale_monthly_usd / len(group)
        trainers = sum(1 for other in group if other.training)
        if run is not None:
            run += (items.run_total_usd or 0.0) / max(trainers, 1)
    return CostFigures(round(monthly, 2), round(full, 2), None if run is None else round(run, 2))


def _fleet_figures(members: Sequence[Member], own: Mapping[str, CostReport],
                   shared: Mapping[str, CostReport]) -> CostFigures:
    """The fleet's figures: every workload's own resources plus each shared cluster's items once; a run total only
    when some member trains (counting the training members' own runs and every cluster's shared run)."""
    training = any(member.training for member in members)
    trainers = {member.name for member in members if member.training}
    return CostFigures(
        round(sum(report.monthly_usd for report in own.values())
              + sum(report.monthly_usd for report in shared.values()), 2),
        round(sum(report.full_scale_monthly_usd for report in own.values())
              + sum(report.full_scale_monthly_usd for report in shared.values()), 2),
        round(sum(report.run_total_usd or 0.0 for name, report in own.items() if name in trainers)
              + sum(report.run_total_usd or 0.0 for report in shared.values()), 2) if training else None)
