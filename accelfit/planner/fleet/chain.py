"""A fleet workload's fallback chain: where its jobs go when the planned capacity is not there, and what each step
would cost.

In order: the planned pool; the same accelerator type on the other capacity tiers, reservation -> flex-start or
Capacity Block -> on-demand -> spot (only tiers the spec's budget.pricing lists: it names the ways the team buys
capacity, and a standby step on another way would buy what the spec excluded, e.g. preemptible spot for a job the
team runs on demand; only tiers the catalog prices for that type in that region, since the availability data
already placed the type there; a tier the environment's policy configuration forbids is left out and says so);
then the next-best
eligible accelerator from the workload's own planner search (GPU <-> TPU only where the workload is eligible for
both, by the planner's own rules: framework penalties, portability, custom kernels). A step buildable in the
workload's cluster (a shared cluster, or in the single form the workload's own: same cloud and region, a node-pool
platform, the cluster's network layout) gets a standby pool built by the planner's own
pool builder (`accelfit.planner.build.node_pools`: zones from availability data, the TPU multi-host 0-or-all rule,
pool-size limits), scaled from 0; other steps are listed only, with why.
"""

from __future__ import annotations

import dataclasses
from accelfit.buying import all_buying_models, buying_model, is_buying_model, is_preemptible, tier_names
from accelfit.buying import tier_of as buying_tier
from accelfit.clouds import cloud_of_platform
from accelfit.catalog.models import Catalog
from accelfit.catalog.rows import Price, TpuSlice
from accelfit.planner.build import SLICE_SET_LABEL, network_plan, node_pools
from accelfit.planner.fleet.capacity_groups import capacity_groups, why_not_grouped
from accelfit.planner.choose import rank_key
from accelfit.planner.eligibility import hard_rejection
from accelfit.planner.evaluate import policy_rejections, size_offer
from accelfit.planner.fleet.fallback_triggers import step_triggers, step_wait_minutes
from accelfit.planner.fleet.costs import figures_of, own_lines
from accelfit.planner.fleet.model import FallbackStep, SharedCluster
from accelfit.planner.fleet.clusters import CLUSTER_PLATFORMS, describe_layout
from accelfit.planner.model import NodePool, Plan
from accelfit.planner.options import Offer, Sized
from accelfit.planner.planner import Environment, Search
from accelfit.planner.training.sizing import Unfit
from accelfit.spec import WorkloadSpec

# The order a job falls through its type's capacity tiers is the buying-model table's (accelfit/buying: tier and
# chain_order): capacity already held, then capacity bought for the run (GCP flex-start, AWS Capacity Blocks: each
# sold by one cloud only), then on demand, then spot (README, issue 25).
# How many other accelerators a chain lists: the next best overall and, when that one cannot be built in the
# workload's cluster, the next best that can.
MAX_ACCELERATOR_STEPS = 2


def tier_of(pricing: str) -> str:
    """The capacity tier of a plan's pricing model (the table's: a commitment is the reservation tier); owned
    servers' "owned" is no buying model and a tier of its own."""
    return buying_tier(pricing) if is_buying_model(pricing) else pricing


@dataclasses.dataclass(frozen=True)
class Chain:
    steps: tuple[FallbackStep, ...]
    omitted: tuple[str, ...]
    standby_pools: tuple[NodePool, ...]
    standby_full_scale_monthly_usd: float  # the standby pools at their maximum all month (full-scale figure)
    # Per rank with standby pools: those pools at their maximum all month (what dropping the step takes away).
    standby_full_scale_by_rank: tuple[tuple[int, float], ...] = ()
    # Per rank: the offer its step was sized from (rank 1 the planned one), which the serving section describes.
    offers: tuple[tuple[int, Offer], ...] = ()

    def offer_at(self, rank: int) -> Offer | None:
        return dict(self.offers).get(rank)


@dataclasses.dataclass(frozen=True)
class _Context:
    spec: WorkloadSpec
    catalog: Catalog
    environment: Environment
    plan: Plan
    cluster: SharedCluster | None
    members: int
    trainers: int
    own_cluster: bool = False  # the single form: the workload's own cluster (no SharedCluster) holds its standby pools

    @property
    def cluster_name(self) -> str:
        return self.cluster.name if self.cluster is not None else self.plan.workload

    @property
    def holds_reservation(self) -> bool:
        """The planned pools consume a held reservation (or bought Capacity Block)."""
        return any(pool.reservation for pool in self.plan.node_pools)

    @property
    def training(self) -> bool:
        return self.spec.training is not None

    def buildable(self, sized: Sized) -> str | None:
        """None when the step can have a standby pool in the workload's cluster, else why not."""
        offer = sized.offer
        if buying_model(offer.pricing).needs_reservation and offer.reservation is None:
            return ("a node group launches into a Capacity Block by the block's id: buy the block, list it in "
                    "placement.reservations with capacity_block: true and plan again")
        if self.cluster is None and not self.own_cluster:
            return (f"{self.plan.platform.value} has no cluster to hold a standby pool; switch by re-planning "
                    f"(accelfit lock --fresh) if the planned capacity is not there")
        if offer.platform not in CLUSTER_PLATFORMS or (offer.cloud, offer.region) != (self.plan.cloud.value,
                                                                                       self.plan.region):
            return (f"runs as {offer.platform} in {offer.cloud} {offer.region}, outside cluster {self.cluster_name} "
                    f"({self.plan.cloud.value} {self.plan.region}); it would need a cluster of its own")
        needed = network_plan(self.spec, sized)
        have = self.cluster.network if self.cluster is not None else self.plan.network
        if (needed.extra_networks, needed.efa) != (have.extra_networks, have.efa):
            return (f"its {sized.units}-node run needs {describe_layout((needed.extra_networks, needed.efa))}, and "
                    f"cluster {self.cluster_name} is built with {describe_layout((have.extra_networks, have.efa))}")
        return None

    def cost(self, sized: Sized, in_cluster: bool) -> tuple[float, float]:
        """(monthly, total) of the workload on this step: in the cluster, its own lines plus its share of the
        shared items; in its own cluster or elsewhere, the option's own single-stack figures."""
        if not in_cluster or self.cluster is None:
            return round(sized.monthly_usd, 2), round(sized.total_usd, 2)
        figures = figures_of(own_lines(sized.breakdown, True), self.training, self.cluster, self.members,
                             self.trainers)
        total = figures["run_total_usd"] if self.training else figures["monthly_usd"]
        return figures["monthly_usd"], total  # type: ignore[return-value]


def fallback_chain(spec: WorkloadSpec, catalog: Catalog, environment: Environment, plan: Plan, found: Search,
                   cluster: SharedCluster | None, members: int, trainers: int, *, own_cluster: bool = False) -> Chain:
    """`own_cluster`: the workload runs in a cluster of its own (the single form), which holds its standby pools."""
    context = _Context(spec, catalog, environment, plan, cluster, max(members, 1), trainers,
                       own_cluster=own_cluster and cluster is None and plan.platform.value in CLUSTER_PLATFORMS)
    planned = _planned_offer(context, found)
    chain = _ChainSteps(context, offers=[(1, planned)] if planned is not None else [])
    chain.steps.append(_planned_step(context))
    omitted = _same_type_steps(context, planned, found, chain)
    others, reshaped = _other_accelerators(context, found)
    for sized, note in others:
        chain.add(sized, note)
    omitted += reshaped
    if not any(step.accelerator != plan.accelerator.name for step in chain.steps):
        omitted.append(f"another accelerator: no other eligible accelerator meets {spec.name}'s spec "
                       "(see the plan's rejected options)")
    reasons = ungrouped_reasons(plan, chain.pools)
    steps = [step.model_copy(update={"note": f"{step.note}; moved to on quota, not capacity: {reasons[step.rank]}"})
             if step.rank in reasons else step for step in chain.steps]
    return Chain(with_triggers(steps, grouped_ranks(plan, chain.pools)), tuple(omitted), tuple(chain.pools),
                 round(chain.full_scale, 2), tuple(chain.by_rank), tuple(chain.offers))


@dataclasses.dataclass
class _ChainSteps:
    """The chain as it is built: its steps in rank order, and the standby pools (with their full-scale cost) and
    offers of the steps after the planned one."""

    context: _Context
    steps: list[FallbackStep] = dataclasses.field(default_factory=list)
    pools: list[NodePool] = dataclasses.field(default_factory=list)
    full_scale: float = 0.0
    by_rank: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    offers: list[tuple[int, Offer]] = dataclasses.field(default_factory=list)

    def add(self, sized: Sized, note: str) -> None:
        """The next step: with standby pools where the workload's cluster can build them, else listed only."""
        context = self.context
        rank = len(self.steps) + 1
        why_not = context.buildable(sized)
        monthly, total = context.cost(sized, why_not is None)
        pool_name = None
        if why_not is None:
            standby = standby_pools(context.spec, sized, rank, holds_reservation=context.holds_reservation)
            self.pools.extend(standby)
            pool_name = standby[0].name
            compute = next((line for line in sized.breakdown if line.item == "compute"), None)
            self.full_scale += compute.full_scale_monthly_usd if compute else 0.0
            self.by_rank.append((rank, compute.full_scale_monthly_usd if compute else 0.0))
            if len(standby) > 1:
                note += f"; standby pools {', '.join(pool.name for pool in standby)}"
        else:
            note += f"; listed only: {why_not}"
        self.offers.append((rank, sized.offer))
        self.steps.append(FallbackStep(rank=rank, option=sized.option_id, accelerator=sized.offer.accelerator.name,
                                       count=sized.devices, pricing=tier_of(sized.offer.pricing), pool=pool_name,
                                       monthly_usd=monthly, total_usd=total, note=note))


def _planned_step(context: _Context) -> FallbackStep:
    """Rank 1: the planned pools (or TPU VM slices), at the plan's own cost."""
    plan = context.plan
    monthly, total = _planned_cost(context)
    planned_pools = [pool.name for pool in plan.node_pools if pool.role != "system"]
    return FallbackStep(
        rank=1, option=plan.option, accelerator=plan.accelerator.name, count=plan.accelerator.count,
        pricing=tier_of(plan.pricing), pool=planned_pools[0] if planned_pools else None, monthly_usd=monthly,
        total_usd=total, note="the planned " + (f"pools {', '.join(planned_pools)}" if len(planned_pools) > 1 else
                                                "pool" if planned_pools else "TPU VM slices (no node pool)"))


def _same_type_steps(context: _Context, planned: Offer | None, found: Search, chain: _ChainSteps) -> list[str]:
    """The planned type on the other capacity tiers budget.pricing lists, added to the chain in tier order; returns
    what is left out, and why."""
    plan, spec = context.plan, context.spec
    no_tiers = cloud_of_platform(plan.platform).unsupported_reason("fallback-tiers")
    if planned is None or no_tiers:
        return [f"other capacity tiers: {no_tiers}" if no_tiers
                else f"other capacity tiers of {plan.option}: the planner's search no longer offers it"]
    omitted: list[str] = []
    planned_tier = tier_of(plan.pricing)
    allowed = allowed_tiers(spec)
    listed = ", ".join(pricing.value for pricing in spec.budget.pricing_options)
    tiers = [tier for tier in tier_names() if tier != planned_tier and buying_model(tier).sold_on(plan.cloud)]
    unlisted = [tier for tier in tiers if tier not in allowed]
    if unlisted:
        omitted.append(f"{', '.join(unlisted)} {plan.accelerator.name}: budget.pricing [{listed}] does not list "
                       f"{'it' if len(unlisted) == 1 else 'them'}, and the chain steps only through the ways the "
                       "spec buys capacity")
    for tier in tiers:
        if tier not in allowed:
            continue
        sized, why = _same_type_on(context, planned, tier, found=found)
        if sized is None:
            omitted.append(f"{tier} {plan.accelerator.name}: {why}")
        else:
            chain.add(sized, f"the same {plan.accelerator.name} type on {tier} capacity, when the steps before it "
                             "have none")
    return omitted


def grouped_ranks(plan: Plan, standby: list[NodePool]) -> frozenset[int]:
    """The chain ranks (FallbackStep.rank: NodePool.fallback_rank, 1 for the planned pools) in the planned pool's
    capacity group: the same accelerator on other tiers, moved between by the cloud's autoscaler
    (accelfit.planner.fleet.capacity_groups, the same grouping the Kueue flavors and the node labels follow)."""
    planned = {pool.name for pool in plan.node_pools if pool.role != "system"}
    for group in capacity_groups(plan, [*plan.node_pools, *standby]):
        if planned & set(group.pools):
            return frozenset(max(rank, 1) for rank in group.ranks)
    return frozenset()


def ungrouped_reasons(plan: Plan, standby: list[NodePool]) -> dict[int, str]:
    """Rank -> why a standby step of the planned accelerator is not moved to by the autoscaler (so Kueue's quota
    moves the job there instead): said in the step's note, so the plan does not suggest a capacity fallback that
    does not happen."""
    out: dict[int, str] = {}
    for pool in standby:
        if pool.accelerator == plan.accelerator.name and pool.fallback_rank not in out:
            why = why_not_grouped(plan, pool)
            if why is not None:
                out[pool.fallback_rank] = why
    return out


def with_triggers(steps: list[FallbackStep], grouped: frozenset[int] = frozenset()) -> tuple[FallbackStep, ...]:
    """Each step with what moves a job to it and how long the job waits first (fallback_triggers, the numbers the
    Kueue configuration and the autoscalers carry). `grouped`: ranks in the planned step's capacity group."""
    out = []
    for index, step in enumerate(steps):
        spot_before = any(is_preemptible(before.pricing) for before in steps[:index])
        if step.rank > 1 and step.pool is None:
            out.append(step)  # listed only: no pool, so no Kueue flavor to move to (re-plan instead)
            continue
        # The group is the chain's first steps with pools (listed-only steps have no flavor to sit between them).
        in_group = step.rank in grouped and 1 in grouped and all(
            before.rank in grouped for before in steps[:index] if before.pool is not None or before.rank == 1)
        out.append(step.model_copy(update={
            "moves_when": step_triggers(step.rank, spot_before, in_group),
            "wait_minutes": step_wait_minutes(step.rank, in_group)}))
    return tuple(out)


def allowed_tiers(spec: WorkloadSpec) -> frozenset[str]:
    """The capacity tiers the spec's budget.pricing lists (a commitment is the reservation tier)."""
    return frozenset(tier_of(pricing.value) for pricing in spec.budget.pricing_options)


def standby_pools(spec: WorkloadSpec, sized: Sized, rank: int, holds_reservation: bool = False
                  ) -> tuple[NodePool, ...]:
    """The step's pools exactly as the planner builds pools for that option (zones, TPU slices all-or-nothing,
    per-pool node limits), renamed `<pool>-fb<rank>` and scaled from 0.

    `holds_reservation`: the planned pools consume a held reservation. A standby step is where jobs go when that
    reservation is full, so its on-demand pools never consume reserved capacity (NodePool.avoid_reservations):
    otherwise they would take the planned pool's reserved machines, or wait on the same full reservation (an
    on-demand pool naming none gets ANY_RESERVATION here, node_settings.reservation_affinity; an EC2 launch template
    without a preference is `open`, "can run in any open Capacity Reservation that has matching attributes",
    https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateCapacityReservationSpecificationRequest.html).
    Spot and flex-start pools never consume reservations anyway."""
    def labels(pool: NodePool) -> dict[str, str]:
        out = {**pool.labels, "accelfit.io/fallback-rank": str(rank)}
        if SLICE_SET_LABEL in out:
            out[SLICE_SET_LABEL] = f"{out[SLICE_SET_LABEL]}-fb{rank}"  # a standby slice set of its own
        return out

    def avoid(pool: NodePool) -> bool:
        return (holds_reservation and pool.role == "gpu" and pool.buying_record.takes_open_reservations
                and not pool.reservation)

    return tuple(pool.model_copy(update={"name": f"{pool.name}-fb{rank}", "min_nodes": 0, "initial_nodes": 0,
                                         "fallback_rank": rank, "labels": labels(pool),
                                         "avoid_reservations": avoid(pool)})
                 for pool in node_pools(spec, sized) if pool.role != "system")


def _planned_cost(context: _Context) -> tuple[float, float]:
    plan = context.plan
    figures = figures_of(own_lines(plan.estimate.breakdown, context.cluster is not None), context.training,
                         context.cluster, context.members, context.trainers)
    return figures["monthly_usd"], (figures["run_total_usd"] if context.training  # type: ignore[return-value]
                                    else figures["monthly_usd"])


def _planned_offer(context: _Context, found: Search) -> Offer | None:
    """The planned option's offer in the planner's search (the one its plan was built from)."""
    platform, cloud, region, accelerator, machine, _, pricing = context.plan.option.split("/")
    for offer in found.offers:
        if (offer.platform, offer.cloud, offer.region, offer.accelerator.name, offer.machine, offer.pricing,
                offer.zones) == (platform, cloud, region, accelerator, machine, pricing, context.plan.zones):
            return offer
    return None


def _bought_on(context: _Context, offer: Offer, tier: str, found: Search) -> tuple[Offer | None, str]:
    """The planner's own offer of the same type in the same place on a tier that is not a catalog price alone (a
    held reservation, flex-start, a Capacity Block): the search already applied each buying model's rules."""
    for other in found.offers:
        if (other.pricing, other.platform, other.cloud, other.region, other.machine) == (
                tier, offer.platform, offer.cloud, offer.region, offer.machine):
            return other, ""
    why = next((rejection.reason for rejection in found.rejected
                if getattr(rejection, "machine", None) == offer.machine and tier in rejection.reason), None)
    return None, why or (f"the planner's search has no {tier} offer of {_sku(offer)} in {context.plan.region} "
                         "(see the plan's rejected options)")


def _tier_pricing(context: _Context, offer: Offer, tier: str) -> tuple[str | None, str]:
    """(pricing model, "") for a tier the plan can use, or (None, why not)."""
    plan = context.plan
    if buying_model(tier).price_source == "held":
        # Reached only when the plan is not itself on committed capacity: a standby pool cannot consume capacity
        # nobody bought, so a reservation is a step only as the planned pool (rank 1).
        sold = [model.name for model in all_buying_models()
                if model.commitment and model.tier == tier and _price(context, offer, model.name) is not None]
        if not sold:
            return None, f"the catalog sells no committed capacity for {_sku(offer)} in {plan.region}"
        listed = "; budget.pricing lists committed capacity but it lost to" if any(
            buying_model(pricing).commitment for pricing in context.spec.budget.pricing_options) else \
            "; add committed-1y to budget.pricing to compare one against"
        return None, (f"the plan holds no reservation or commitment (the catalog prices {', '.join(sold)} here"
                      f"{listed} {plan.pricing}), and a standby pool cannot consume capacity nobody bought")
    constraints = context.environment.constraints
    forbidden = constraints.pricing_rejection(tier) if constraints is not None else None
    if forbidden:
        return None, forbidden[1]
    if _price(context, offer, tier) is None:
        return None, f"the catalog has no {tier} price for {_sku(offer)} in {plan.region}"
    return tier, ""


def _sku(offer: Offer) -> str:
    """What the catalog prices: the instance type, or the TPU generation (per chip-hour)."""
    return offer.tpu_slice.accelerator if offer.tpu_slice is not None else offer.machine


def _price(context: _Context, offer: Offer, pricing: str) -> Price | None:
    return context.catalog.price(offer.cloud, _sku(offer), offer.region, pricing)


def _same_type_on(context: _Context, offer: Offer, tier: str, units: int | None = None,
                  found: Search | None = None) -> tuple[Sized | None, str]:
    """The offer on another tier, sized at least at `units` (default: the plan's count)."""
    model = buying_model(tier)
    if model.offers_by_rules and (model.price_source != "held" or (found is not None and any(
            other.pricing == tier for other in found.offers))):
        repriced, why = _bought_on(context, offer, tier, found) if found is not None else (None, "")
        if repriced is None:
            return None, why
    else:
        pricing, why = _tier_pricing(context, offer, tier)
        if pricing is None:
            return None, why
        price = _price(context, offer, pricing)
        assert price is not None  # _tier_pricing names only a tier the catalog prices here
        chips = offer.tpu_slice.chips if offer.tpu_slice is not None else 1
        # Capacity bought by the hour: the held reservation (or block) of the planned offer is not this step's.
        repriced = dataclasses.replace(offer, pricing=pricing, price=price, unit_hourly_usd=price.hourly_usd * chips,
                                       reservation=None, capacity_block=False)
    units = units or int(context.plan.option.split("/")[5].removeprefix("x"))
    try:
        sized = size_offer(context.spec, context.catalog, repriced, context.environment.efficiency, at_units=units)
    except Unfit as unfit:
        return None, f"cannot meet the spec on {tier} capacity: {unfit.reason}"
    policy = policy_rejections(context.spec, sized, context.environment.constraints)
    if policy:
        return None, policy[0][1]
    return sized, ""


def _other_accelerators(context: _Context, found: Search) -> tuple[list[tuple[Sized, str]], list[str]]:
    """The next-best eligible accelerator from the workload's own search and, when it cannot be built in the
    cluster, the next best that can; and why TPU slices of another shape were passed over (multi-host plans)."""
    plan, spec = context.plan, context.spec
    chosen: list[tuple[Sized, str]] = []
    seen: set[str] = {plan.accelerator.name}
    planned = _planned_offer(context, found)
    planned_slice = planned.tpu_slice if planned is not None else None
    reshaped: dict[str, str] = {}
    for sized in sorted(found.evaluation.feasible, key=rank_key):
        offer = sized.offer
        if offer.accelerator.name in seen or hard_rejection(spec, offer.accelerator, offer.platform):
            continue
        if _other_slice_shape(planned_slice, offer):
            assert planned_slice is not None and offer.tpu_slice is not None
            reshaped.setdefault(offer.accelerator.name, (
                f"{offer.accelerator.name} ({offer.tpu_slice.name}, {offer.tpu_slice.topology}, "
                f"{offer.tpu_slice.hosts} hosts per slice): not offered, the job's slices are {planned_slice.name} "
                f"{planned_slice.topology} with {planned_slice.hosts} hosts each and a multi-host TPU job runs only "
                "on slices of its own shape"))
            continue
        if buying_model(offer.pricing).bought_ahead:
            # Capacity bought for what it holds (a commitment, a reservation, a block) is not a standby step's: a
            # standby step runs on capacity bought when used, on demand where budget.pricing allows it.
            if "on-demand" not in allowed_tiers(spec):
                continue
            on_demand, _ = _same_type_on(context, offer, "on-demand", sized.units)
            if on_demand is None:
                continue
            sized = on_demand
        buildable = context.buildable(sized) is None
        if chosen and not buildable:
            continue  # after the next best overall, only one the cluster can hold is worth a step
        seen.add(offer.accelerator.name)
        chosen.append((sized, _why_eligible(spec, plan, sized)))
        if buildable or len(chosen) >= MAX_ACCELERATOR_STEPS:
            break
    return chosen, list(reshaped.values())


def _other_slice_shape(planned: TpuSlice | None, offer: Offer) -> bool:
    """True when the planned job runs on multi-host TPU slices and `offer` is a TPU slice of another shape.

    A multi-host TPU job is one pod per VM of its slice, pinned to the slice's topology (xpk
    src/xpk/commands/workload.py @367c838: one JobSet replica per slice, parallelism = VMs per slice, node selector
    on the topology), and GKE creates and bills a TPU slice node pool as one unit. A 4-pod job admitted to a 16-host
    slice's quota would start the whole 16-host slice and never match it, so such a step is not offered. GPU steps
    (pods requesting nvidia.com/gpu, another kind) are unaffected."""
    if planned is None or not planned.multi_host or offer.tpu_slice is None:
        return False
    return (offer.tpu_slice.topology, offer.tpu_slice.hosts) != (planned.topology, planned.hosts)


def _why_eligible(spec: WorkloadSpec, plan: Plan, sized: Sized) -> str:
    offer = sized.offer
    kinds = f"{plan.accelerator.kind.upper()} -> {offer.accelerator.kind.upper()}"
    basis = (f"eligible for both: {spec.framework.value}, portability {spec.placement.portability.value}, "
             f"{'custom kernels' if spec.model.custom_kernels else 'no custom kernels'}"
             if offer.accelerator.kind != plan.accelerator.kind else "same kind")
    return (f"next-best eligible accelerator {offer.accelerator.name} ({kinds}; {basis}) as {sized.units} × "
            f"{offer.machine}, {offer.pricing}")

