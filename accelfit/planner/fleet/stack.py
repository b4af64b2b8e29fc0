"""A stack's plan: its workloads (`accelfit:workloads`, or `accelfit:workload`: a fleet of one), each planned on
its own, then placed together. Every stack goes this one way; the single form is the fleet of one, shown as its
workload's plan.

Each workload gets its own plan (its choice, reasons, alternatives and lock); then, in the fleet form, workloads
whose plans run on Kubernetes in the same cloud and region share one cluster (control plane, network + NAT, system
pool), each with its own node pools, and the single form's workload runs in a cluster of its own named after it;
each workload gets a fallback chain, with standby pools where a shared cluster can hold them. Cost figures are per workload
(its own resources plus an even share of
its cluster's shared items) and for the fleet (shared items counted once). Pure: no Pulumi, no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accelfit.clouds import cloud_named
from accelfit.catalog.models import Catalog
from accelfit.planner.choose import NoFeasiblePlan
from accelfit.planner.constraints import PolicyConstraints
from accelfit.planner.eligibility import hard_rejection
from accelfit.planner.fleet.costs import cluster_costs, fleet_figures, is_training, workload_figures
from accelfit.planner.fleet.chain import Chain, fallback_chain
from accelfit.planner.fleet.policy_limits import check_planned_accelerators, fit_standby, without_standby
from accelfit.planner.fleet.model import FallbackStep, FleetPlan, FleetWorkload, SharedCluster
from accelfit.planner.fleet.clusters import Placement, place, place_own
from accelfit.planner.fleet.hybrid import plan_overflow
from accelfit.planner.lock import LockRequired, LockStatus, Selection, plan_with_lock
from accelfit.planner.limits import pods_cidr_for
from accelfit.planner.model import NetworkPlan, Plan
from accelfit.planner.planner import Environment, search
from accelfit.planner.serving.route_plan import with_route
from accelfit.spec import WorkloadSpec


def plan_fleet(specs: Sequence[WorkloadSpec], catalog: Catalog, environment: Environment | Sequence[Environment],
               selections: Mapping[str, Selection] | None, *, fleet_name: str | None, require_lock: bool = False,
               top: int = 8, stack: str = "ENV") -> tuple[FleetPlan, Mapping[str, LockStatus]]:
    """Plan each workload (its lock respected, as `plan_with_lock`), place the fleet, chain its fallbacks, price it.

    `fleet_name` None is the single form (`accelfit:workload`): one spec, in a cluster of its own named after it (as
    every single stack has been built), and the fleet is named after the workload. `environment` is one
    Environment for all, or one per spec (a workload's own bare-metal inventory). Raises what `plan_with_lock`
    raises (NoFeasiblePlan, LockRequired) for the first workload that has no plan."""
    form = SINGLE if fleet_name is None else FLEET
    if form.workloads is not None and len(specs) != form.workloads:
        raise ValueError("the single form plans exactly one workload")
    environments = ([environment] * len(specs) if isinstance(environment, Environment) else list(environment))
    plans, searches, locks = _plan_each(specs, catalog, environments, selections or {}, form,
                                        top=top, require_lock=require_lock, stack=stack)
    names = [spec.name for spec in specs]
    constraints = environments[0].constraints if environments else None
    check_planned_accelerators(names, plans, constraints)
    fleet_name = fleet_name or specs[0].name
    placement = form.place(plans, fleet_name)
    clusters = cluster_costs(placement, plans, catalog)
    chains = [_chain(index, spec, catalog, env, plans, found, placement, clusters, form)
              for index, (spec, env, found) in enumerate(zip(specs, environments, searches, strict=True))]
    # The fleet at full scale without standby pools: what the standby steps are admitted against.
    unlimited = _members(specs, plans, chains, placement, clusters, catalog)
    standby = sum(chain.standby_full_scale_monthly_usd for chain in chains)
    planned_full_scale = fleet_figures(unlimited, list(clusters.values()))["full_scale_monthly_usd"] - standby
    chains = fit_standby(plans, chains, constraints, planned_full_scale or 0.0)
    chains = [form.bound(plan, chain) for plan, chain in zip(plans, chains, strict=True)]
    plans = [with_route(with_serving(spec, env, plan, chain), spec, catalog, chain.standby_pools)
             for spec, env, plan, chain in zip(specs, environments, plans, chains, strict=True)]
    members = _members(specs, plans, chains, placement, clusters, catalog)
    shared_clusters = tuple(with_standby_pools(clusters[name], members) for name in placement.cluster_names)
    figures = fleet_figures(members, shared_clusters)
    return FleetPlan(name=fleet_name, environment=environments[0].name if environments else "dev",
                     workloads=tuple(members), clusters=shared_clusters,
                     warnings=fleet_warnings(figures, constraints), **figures), locks


def _plan_each(specs: Sequence[WorkloadSpec], catalog: Catalog, environments: list[Environment],
               selections: Mapping[str, Selection], form: Any, *, top: int, require_lock: bool,
               stack: str) -> tuple[list[Plan], list[Any], dict[str, LockStatus]]:
    """Each workload's plan (its lock respected) and search, in order; a failure names the workload."""
    plans: list[Plan] = []
    searches = []
    locks: dict[str, LockStatus] = {}
    for spec, env in zip(specs, environments, strict=True):
        found = search(spec, catalog, env)
        try:
            plan, lock = plan_with_lock(spec, catalog, env, selections.get(spec.name), top=top,
                                        require_lock=require_lock, found=found, stack=stack)
        except NoFeasiblePlan as failure:
            raise NoFeasiblePlan(failure.binding, form.naming(spec.name) + failure.message,
                                 failure.rejected) from None
        except LockRequired as failure:
            raise LockRequired(form.naming(spec.name) + failure.message) from None
        locked = selections.get(spec.name)
        try:
            plans.append(plan_overflow(spec, catalog, env, plan, locked.for_overflow() if locked else None,
                                       require_lock=require_lock, stack=stack))
        except LockRequired as failure:
            raise LockRequired(form.naming(spec.name) + failure.message) from None
        searches.append(found)
        locks[spec.name] = lock
    return plans, searches, locks


def _chain(index: int, spec: WorkloadSpec, catalog: Catalog, env: Environment, plans: list[Plan], found: Any,
           placement: Any, clusters: Mapping[str, Any], form: Any) -> Any:
    """Workload `index`'s fallback chain, with the cluster it shares and how many of its members train."""
    cluster = placement.cluster_of.get(index)
    member_indexes = placement.members_of(cluster)
    trainers = sum(1 for member in member_indexes if is_training(plans[member]))
    return fallback_chain(spec, catalog, env, plans[index], found, clusters.get(cluster) if cluster else None,
                          len(member_indexes), trainers, own_cluster=form.own_cluster)


@dataclasses.dataclass(frozen=True)
class Form:
    """What differs between a stack's two forms, as data: the single form (`accelfit:workload`) is one workload in a
    cluster of its own named after it, whose errors need no workload name; a fleet names the workload in them."""

    workloads: int | None  # how many specs the form plans (None: any number)
    naming: Callable[[str], str]  # what an error about a workload starts with
    place: Callable[[Sequence[Plan], str], Placement]
    own_cluster: bool  # the workload's own cluster holds its standby pools
    bound: Callable[[Plan, Chain], Chain]  # what limits a chain once it is fitted


def _unbounded(plan: Plan, chain: Chain) -> Chain:
    return chain


SINGLE = Form(1, lambda name: "", lambda plans, _name: place_own(plans), True,
              lambda plan, chain: within_own_network(plan, chain))
FLEET = Form(None, lambda name: f"workload {name}: ", place, False, _unbounded)


def _members(specs: Sequence[WorkloadSpec], plans: Sequence[Plan], chains: Sequence[Chain], placement: Placement,
             clusters: Mapping[str, SharedCluster], catalog: Catalog) -> list[FleetWorkload]:
    members: list[FleetWorkload] = []
    for index, (spec, plan, chain) in enumerate(zip(specs, plans, chains, strict=True)):
        cluster = placement.cluster_of.get(index)
        figures = workload_figures(plan, clusters.get(cluster) if cluster else None, placement.members_of(cluster),
                                   plans)
        full_scale = figures["full_scale_monthly_usd"]
        assert full_scale is not None  # every plan has a full-scale figure (only the run total may be None)
        figures["full_scale_monthly_usd"] = round(full_scale + chain.standby_full_scale_monthly_usd, 2)
        members.append(FleetWorkload(
            name=spec.name, plan=plan.model_copy(update={"node_pools": plan.node_pools + chain.standby_pools}),
            fallback=chain.steps, fallback_omitted=chain.omitted, cluster=cluster, placement=placement.why[index],
            standby_full_scale_monthly_usd=chain.standby_full_scale_monthly_usd, **figures))
    return [member.model_copy(update={"eligible_accelerators": eligible_in_cluster(spec, member, members, catalog)})
            for spec, member in zip(specs, members, strict=True)]

def with_serving(spec: WorkloadSpec, environment: Environment, plan: Plan, chain: Chain) -> Plan:
    """An inference plan's serving section, described once over its route: the planned pool, then each fallback
    step that has a standby pool in the workload's cluster, in the chain's order (a listed-only step has nowhere to
    serve), each from the offer the chain sized it from."""
    if spec.inference is None:
        return plan
    # The serving model is imported for a workload that serves: a training plan never loads it (issue 39).
    from accelfit.planner.serving.layout import ServingStep, serving_section

    planned = tuple(pool for pool in plan.node_pools if pool.role != "system" and not pool.fallback_rank)
    steps: list[ServingStep] = []
    offer = chain.offer_at(1)
    if planned and offer is not None:
        steps.append(ServingStep(1, 0, planned, offer, plan.estimate.replicas, plan.pricing))
    for step in chain.steps[1:]:
        pools = tuple(pool for pool in chain.standby_pools if pool.fallback_rank == step.rank)
        offer = chain.offer_at(step.rank)
        if pools and offer is not None:
            steps.append(ServingStep(step.rank, step.rank, pools, offer))
    return plan.model_copy(update={"serving": serving_section(spec, steps, environment.efficiency)})


def fleet_warnings(figures: Mapping[str, float | None], constraints: PolicyConstraints | None) -> tuple[str, ...]:
    """Each workload's plan met the environment's stack budget on its own; the stack holds them all."""
    if constraints is None or constraints.max_monthly_usd is None:
        return ()
    figure = figures.get(constraints.budget_figure)
    if figure is None or figure <= constraints.max_monthly_usd:
        return ()
    return (f"The fleet's {constraints.budget_figure} is ${figure:,.0f}; policy stack-monthly-budget "
            f"({constraints.source}) allows ${constraints.max_monthly_usd:,.0f} for the whole stack: the preview's "
            "budget check will flag it. Move a workload to its own stack, or shrink or drop one.",)


def eligible_in_cluster(spec: WorkloadSpec, member: FleetWorkload, members: Sequence[FleetWorkload],
                        catalog: Catalog) -> tuple[str, ...]:
    """The accelerators of its cluster's pools that the planner's eligibility rules let this workload run on."""
    if member.cluster is None:
        return ()
    cloud = cloud_named(member.plan.cloud)
    # The pool's platform: a GPU pool on the cloud's cluster platform, a TPU pool on its cluster TPU platform.
    pools = {(pool.accelerator, cloud.cluster_tpu_platform if pool.role == "tpu" else cloud.cluster_platform)
             for member_of in members if member_of.cluster == member.cluster
             for pool in member_of.plan.node_pools if pool.accelerator}
    return tuple(sorted({name for name, platform in pools
                         if hard_rejection(spec, catalog.accelerator(name), platform) is None}))


def within_own_network(plan: Plan, chain: Chain) -> Chain:
    """The single form's standby pools only while its cluster's pods range holds every node they can add: the range
    is fixed when a GKE cluster is created, so widening it would replace a running cluster."""
    if not cloud_named(plan.cloud).pods_range_fixed_at_creation or not chain.standby_pools:
        return chain
    nodes = sum(pool.max_nodes for pool in (*plan.node_pools, *chain.standby_pools) if pool.role != "system")
    if pods_cidr_for(nodes, plan.network.pods_cidr) == plan.network.pods_cidr:
        return chain
    return without_standby(chain, {rank: f"its pools would outgrow cluster {plan.workload}'s pods range "
                                   f"{plan.network.pods_cidr}, which cannot change under a running cluster"
                                   for rank, _ in chain.standby_full_scale_by_rank})


def with_standby_pools(cluster: SharedCluster, members: Sequence[FleetWorkload]) -> SharedCluster:
    """The cluster once the standby pools are known: its zones are every zone a member's pools (planned and
    standby) use, and a GKE pods range holds every node its accelerator pools can scale to."""
    pools = [pool for member in members if member.cluster == cluster.name for pool in member.plan.node_pools]
    zones = {zone for pool in pools for zone in pool.zones}
    update: dict[str, Any] = {"zones": tuple(sorted(zones | set(cluster.zones)))}
    if cloud_named(cluster.cloud).pods_range_fixed_at_creation:
        nodes = sum(pool.max_nodes for pool in pools if pool.role != "system")
        update["network"] = cluster.network.model_copy(update={"pods_cidr": pods_cidr_for(
            nodes, NetworkPlan().pods_cidr)})
    return cluster.model_copy(update=update)

__all__ = ["FallbackStep", "FleetPlan", "FleetWorkload", "SharedCluster", "plan_fleet"]
