"""A fleet's cost: the shared cluster's items counted once, each workload's own resources, and what sharing saves.

The shared items (system pool, control plane, NAT) are priced by the same functions that price them in a single
plan (`accelfit.planner.costing.option_costs.cluster_parts` and `nat_part`), so a cluster of one workload costs exactly
what that workload's single plan says. A workload's figures are its own lines (accelerator pools, bucket, file system,
egress) plus an even share of its cluster's shared items; the fleet's figures are every workload's own lines plus
each cluster's shared items once, so the workloads' figures add up to the fleet's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from accelfit.clouds import cloud_named
from accelfit.catalog.models import Catalog
from accelfit.planner.costing.option_costs import cluster_parts, nat_part
from accelfit.planner.options import cost_lines
from accelfit.planner.fleet.model import FleetWorkload, SharedCluster
from accelfit.planner.fleet.clusters import Placement, cluster_word
from accelfit.planner.model import CostLine, NodePool, Plan, PlanCloud
from accelfit.pricing.figures import RunWindow
from accelfit.pricing.overheads import run_window

# The lines of a single plan that a shared cluster holds once (option_costs.cost_parts names them so).
SHARED_ITEMS = ("system", "cluster", "nat")


def own_lines(plan_lines: Iterable[CostLine], shared: bool) -> list[CostLine]:
    """The lines a workload pays for itself: everything but the shared items when it runs in a shared cluster."""
    return [line for line in plan_lines if not (shared and line.item in SHARED_ITEMS)]


def figures_of(lines: Sequence[CostLine], training: bool, cluster: SharedCluster | None, members: int,
               trainers: int) -> dict[str, float | None]:
    """monthly / full-scale / run total of `lines` plus an even share of `cluster`'s shared items."""
    monthly = sum(line.monthly_usd for line in lines)
    full = sum(line.full_scale_monthly_usd for line in lines)
    run = sum(line.total_usd for line in lines) if training else None
    if cluster is not None:
        monthly += cluster.shared_monthly_usd / members
        full += cluster.shared_full_scale_monthly_usd / members
        if run is not None:
            run += (cluster.shared_run_usd or 0.0) / max(trainers, 1)
    return {"monthly_usd": round(monthly, 2), "full_scale_monthly_usd": round(full, 2),
            "run_total_usd": None if run is None else round(run, 2)}


def is_training(plan: Plan) -> bool:
    return plan.estimate.run_total_usd is not None


def cluster_costs(placement: Placement, plans: Sequence[Plan], catalog: Catalog) -> dict[str, SharedCluster]:
    return {name: _shared_cluster(name, [plans[index] for index in placement.members_of(name)], catalog)
            for name in placement.cluster_names}


def _shared_cluster(name: str, members: Sequence[Plan], catalog: Catalog) -> SharedCluster:
    """One shared cluster: its members' zones and system pools merged, its shared items priced once, and what
    sharing saves against each member building its own."""
    first = members[0]
    cloud, region = first.cloud.value, first.region
    zones = tuple(sorted({zone for plan in members for zone in plan.zones}))
    # AWS builds one NAT gateway per zone the network spans; GCP one Cloud NAT (option_costs.nat_gateways).
    gateways = len(zones) if cloud_named(cloud).nat_per_zone else 1
    run = _longest_run(members)
    parts = (*cluster_parts(catalog, cloud, region, run), nat_part(catalog, cloud, region, gateways, run))
    lines = cost_lines(parts)
    monthly = round(sum(part.monthly_usd for part in parts), 2)
    separate = sum(line.monthly_usd for plan in members for line in plan.estimate.breakdown
                   if line.item in SHARED_ITEMS)
    network = first.network  # the pods range is widened for the standby pools too (stack.with_standby_pools)
    return SharedCluster(
        name=name, cloud=PlanCloud(cloud), region=region, zones=zones,
        platform=cluster_word(first), network=network, system_pool=_system_pool(members),
        workloads=tuple(plan.workload for plan in members), shared=cloud_named(cloud).shared_cluster_parts,
        breakdown=tuple(line.model_copy(update={"monthly_usd": round(line.monthly_usd, 2),
                                                "full_scale_monthly_usd": round(line.full_scale_monthly_usd, 2),
                                                "total_usd": round(line.total_usd, 2)}) for line in lines),
        shared_monthly_usd=monthly,
        shared_full_scale_monthly_usd=round(sum(part.full_scale_monthly_usd for part in parts), 2),
        shared_run_usd=round(sum(part.run_usd or 0.0 for part in parts), 2) if run else None,
        saves_monthly_usd=round(separate - monthly, 2))


def _longest_run(members: Sequence[Plan]) -> RunWindow | None:
    """The shared items exist while any member runs: a run total counts them over the longest member run."""
    trainers = [plan for plan in members if is_training(plan)]
    return max((run_window(plan.platform.value, plan.estimate.hours) for plan in trainers),
               key=lambda window: window.wall_hours, default=None)


def _system_pool(members: Sequence[Plan]) -> NodePool:
    """The members' system pools as one, over all their zones."""
    systems = [pool for plan in members for pool in plan.node_pools if pool.role == "system"]
    return systems[0].model_copy(update={"zones": tuple(sorted({zone for pool in systems for zone in pool.zones}))})


def workload_figures(plan: Plan, cluster: SharedCluster | None, members: Sequence[int],
                     plans: Sequence[Plan]) -> dict[str, float | None]:
    """A workload's three figures: its own lines, plus an even share of its cluster's shared items."""
    trainers = sum(1 for index in members if is_training(plans[index]))
    return figures_of(own_lines(plan.estimate.breakdown, cluster is not None), is_training(plan), cluster,
                      len(members), trainers)


def fleet_figures(members: Sequence[FleetWorkload], clusters: Sequence[SharedCluster]) -> dict[str, float | None]:
    """The fleet's three figures: every workload's own lines, and each cluster's shared items once."""
    own = [(own_lines(member.plan.estimate.breakdown, member.cluster is not None), is_training(member.plan))
           for member in members]
    monthly = sum(line.monthly_usd for lines, _ in own for line in lines)
    full = sum(line.full_scale_monthly_usd for lines, _ in own for line in lines)
    full += sum(member.standby_full_scale_monthly_usd for member in members)
    trains = any(training for _, training in own)
    run = sum(line.total_usd for lines, training in own if training for line in lines)
    monthly += sum(cluster.shared_monthly_usd for cluster in clusters)
    full += sum(cluster.shared_full_scale_monthly_usd for cluster in clusters)
    run += sum(cluster.shared_run_usd or 0.0 for cluster in clusters)
    return {"monthly_usd": round(monthly, 2), "full_scale_monthly_usd": round(full, 2),
            "run_total_usd": round(run, 2) if trains else None,
            "saves_monthly_usd": round(sum(cluster.saves_monthly_usd for cluster in clusters), 2)}
