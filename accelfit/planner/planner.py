"""plan(spec, catalog, environment) -> Plan: candidates, eligibility, sizing, cost, choice. Pure and deterministic."""

from __future__ import annotations

from typing import Any

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from accelfit.buying import is_held, is_preemptible, term_hours
from accelfit.clouds import cloud_named
from accelfit.catalog.models import Catalog
from accelfit.planner import preferences as pref
from accelfit.planner.balance import NodeShape, balance_problems
from accelfit.planner.build import estimate, network_plan, node_pools, plan_accelerator, storage_plan, tpu_vm_slices
from accelfit.planner.costing.buying import buying_price_reason, buying_warnings
from accelfit.planner.candidates import offers_for
from accelfit.planner.choose import alternatives, best_per_group, grouped_rejections, infeasible, rank_key
from accelfit.planner.evaluate import Evaluation, evaluate
from accelfit.planner.gpu_vms import vm_platforms, gpu_vm_plan, vm_reasons
from accelfit.planner.limits import capacity_notes, nodes_per_pool, pool_sizes
from accelfit.planner.missing_prices import missing_price_notes
from accelfit.planner.model import Plan, PlanCloud, Platform
from accelfit.planner.constraints import PolicyConstraints
from accelfit.planner.costing.data_transfer import region_reason
from accelfit.planner.options import Offer, RawRejection, Sized
from accelfit.planner.serving.route_plan import with_route
from accelfit.planner.stack_placement import StackPlacement, placed_offers
from accelfit.durations import duration
from accelfit.sizes import format_count
from accelfit.spec import Orchestration, WorkloadSpec

if TYPE_CHECKING:
    # Loaded where they are used: the inventory's models with an inventory, the serving model for a spec that serves
    # (a training plan never imports them, issue 39), the team's file with the file.
    from accelfit.planner.serving.layout import ServingStep
    from accelfit.planner.team_efficiency import TeamEfficiency
    from accelfit.spec import Inventory


@dataclass(frozen=True)
class Environment:
    """Where the plan is for: the stack's environment name, for bare metal the inventory, and the team's own
    measured efficiency (`accelfit calibrate`), which replaces the catalog's figures where it has one."""

    name: str = "dev"
    inventory: Inventory | None = None
    efficiency: TeamEfficiency | None = None
    # The environment's policy configuration as plan constraints (None: plan unconstrained by policy).
    constraints: PolicyConstraints | None = None
    # The stack's region (and zone) per cloud from its provider config: the only place it plans on that cloud.
    placement: StackPlacement = StackPlacement()


@dataclass(frozen=True)
class Search:
    """The planner's full search before choosing: what could be bought, how each sized up, what was rejected."""

    offers: list[Offer]
    evaluation: Evaluation
    rejected: list[RawRejection]


def search(spec: WorkloadSpec, catalog: Catalog, environment: Environment) -> Search:
    measured = {figure.accelerator: figure.power_w for figure in environment.efficiency.power} \
        if environment.efficiency else {}
    offers = offers_for(spec, catalog, environment.inventory, measured)
    placed, elsewhere = placed_offers(offers.offers, environment.placement)
    allowed, rejected = allowed_offers(placed, environment.constraints)
    evaluation = evaluate(spec, catalog, allowed, environment.efficiency, environment.constraints)
    return Search(allowed, evaluation, offers.rejected + elsewhere + rejected + evaluation.rejected)


def allowed_offers(offers: list[Offer],
                   constraints: PolicyConstraints | None) -> tuple[list[Offer], list[RawRejection]]:
    """Offers the environment's policies allow (accelerator allow-list, mandatory spot), and the others rejected
    with the policy named."""
    if constraints is None:
        return list(offers), []
    allowed, rejected = [], []
    for offer in offers:
        why = constraints.accelerator_rejection(offer.accelerator.name) or constraints.pricing_rejection(offer.pricing)
        if why:
            rejected.append(RawRejection(offer.platform, offer.accelerator.name, offer.machine, ",".join(offer.zones),
                                         *why))
        else:
            allowed.append(offer)
    return allowed, rejected


def evaluate_spec(spec: WorkloadSpec, catalog: Catalog, environment: Environment) -> tuple[Evaluation, list[RawRejection]]:
    """Every feasible sized option and every rejection (the planner's full search, before choosing)."""
    found = search(spec, catalog, environment)
    return found.evaluation, found.rejected


def plan(spec: WorkloadSpec, catalog: Catalog, environment: Environment | None = None, *, top: int = 8) -> Plan:
    """The cheapest eligible option that meets the deadline or latency and the budget, explained.

    Raises `NoFeasiblePlan` naming the binding constraint and how far to relax it.
    """
    from accelfit.planner.serving.layout import serving_section

    environment = environment or Environment()
    evaluation, rejected = evaluate_spec(spec, catalog, environment)
    grouped = grouped_rejections(rejected)
    if not evaluation.feasible:
        raise infeasible(spec, evaluation, grouped)
    ranked = best_per_group(evaluation.feasible)
    chosen = min(evaluation.feasible, key=rank_key)
    built = build_plan(spec, environment, chosen, ranked, grouped, top)
    serving = serving_section(spec, planned_step(built.node_pools, chosen), environment.efficiency)
    return with_route(built.model_copy(update={"serving": serving}), spec, catalog)


# Platforms with no cluster: the plan's `orchestration` is vms (placement.orchestration any resolves to one).
VM_PLAN_PLATFORMS = ("tpu-vm", "gce-gpu-vm", "ec2-gpu-vm")


def build_plan(spec: WorkloadSpec, environment: Environment, chosen: Sized, ranked: list[Sized],
               rejected: tuple[Any, ...], top: int) -> Plan:
    """The plan of the chosen option, without its serving section: that is described once, over its route (the
    planned pool, then each standby step: accelfit.planner.fleet.stack.with_serving), when its fallback chain is
    known."""
    offer = chosen.offer
    pools = node_pools(spec, chosen)
    return Plan(
        workload=spec.name, kind=spec.kind.value, framework=spec.framework.value, environment=environment.name,
        option=chosen.option_id, platform=Platform(offer.platform), cloud=PlanCloud(offer.cloud),
        region=offer.region, zones=offer.zones, pricing=offer.pricing,
        orchestration="vms" if offer.platform in VM_PLAN_PLATFORMS else "kubernetes",
        accelerator=plan_accelerator(chosen),
        node_pools=pools, tpu_vm_slices=tpu_vm_slices(spec, chosen),
        gpu_vm=gpu_vm_plan(spec, offer) if offer.platform in vm_platforms() else None,
        baremetal_hosts=tuple(server.name for server in offer.servers[:chosen.units]),
        network=network_plan(spec, chosen), storage=storage_plan(spec, chosen),
        estimate=estimate(chosen, spec), reasons=reasons(spec, chosen, ranked, rejected),
        warnings=warnings(spec, chosen) + missing_price_notes(_priced_models(spec, offer.pricing), rejected),
        alternatives=alternatives(chosen, ranked, top), rejected=rejected,
        catalog_as_of=offer.price.as_of if offer.price else _newest_date(ranked), catalog=offer.catalog)


def planned_step(pools: tuple[Any, ...], chosen: Sized) -> list[ServingStep]:
    """The planned serving pool (the node pools that carry accelerators), route rank 1."""
    from accelfit.planner.serving.layout import ServingStep

    accelerated = tuple(pool for pool in pools if pool.role != "system" and not pool.fallback_rank)
    return [ServingStep(1, 0, accelerated, chosen.offer, chosen.replicas)] if accelerated else []


def _priced_models(spec: WorkloadSpec, chosen: str) -> str:
    """The pricing models a missing price could be under: the plan's, or (a held reservation, never a price row)
    the spec's others."""
    if not is_held(chosen):
        return chosen
    others = [pricing.value for pricing in spec.budget.pricing_options if not is_held(pricing)]
    return " or ".join(others) or chosen


def orchestration_reasons(spec: WorkloadSpec, chosen: Sized, ranked: list[Sized]) -> list[str]:
    """placement.orchestration any: why a VM or a cluster won, against the best of the other kind."""
    if spec.placement.orchestration is not Orchestration.any:
        return []
    chosen_vm = chosen.offer.platform in VM_PLAN_PLATFORMS
    others = [sized for sized in ranked if (sized.offer.platform in VM_PLAN_PLATFORMS) != chosen_vm]
    kind, other_kind = ("no cluster (VMs)", "a cluster") if chosen_vm else ("a cluster", "VMs without a cluster")
    if not others:
        return [f"placement.orchestration any: {kind}, as no option on {other_kind} fits (see rejected)."]
    best = min(others, key=lambda sized: sized.total_usd)
    figure = "total_usd" if spec.training is not None else "monthly_usd"
    return [f"placement.orchestration any: {kind} costs ${getattr(chosen, figure):,.2f} ({figure}) against "
            f"${getattr(best, figure):,.2f} for the cheapest on {other_kind} ({best.offer.label})."]


def _newest_date(ranked: list[Sized]) -> dt.date:
    dates = [sized.offer.price.as_of for sized in ranked if sized.offer.price]
    return max(dates) if dates else dt.date.today()


def reasons(spec: WorkloadSpec, chosen: Sized, ranked: list[Sized], rejected: tuple[Any, ...]) -> tuple[str, ...]:
    offer = chosen.offer
    out = [_choice_reason(spec, chosen), *_workload_reasons(spec, chosen)]
    if offer.platform in vm_platforms():
        out.extend(vm_reasons(spec, offer))
    out.extend(orchestration_reasons(spec, chosen, ranked))
    out.append(region_reason(spec, offer.region, chosen.parts))
    out.extend(capacity_reasons(chosen))
    out.extend(pricing_reasons(spec, chosen, ranked))
    if chosen.calibration:
        out.append(f"Calibration: {chosen.calibration}")
    out.extend(_price_reasons(offer))
    if chosen.penalties:
        out.append("Penalties applied: " + "; ".join(f"{p.name} +{p.fraction:.0%} ({p.reason})"
                                                     for p in chosen.penalties) + ".")
    out.extend(_comparison_reasons(chosen, ranked, rejected))
    return tuple(line for line in out if line)


def _choice_reason(spec: WorkloadSpec, chosen: Sized) -> str:
    """What was chosen, and the rule that chose it."""
    offer = chosen.offer
    shape = (f"{chosen.units} × {offer.machine}" if offer.tpu_slice is None
             else f"{chosen.units} × {offer.machine} slice ({offer.tpu_slice.topology})")
    goal = "meets the deadline" if spec.training is not None else "meets the latency target"
    return (f"Chose {offer.platform} on {offer.cloud} in {offer.region}: {chosen.devices} × {offer.accelerator.name} "
            f"as {shape}, {offer.pricing}; the cheapest eligible option that {goal} and the budget.")


def _workload_reasons(spec: WorkloadSpec, chosen: Sized) -> list[str]:
    """The training run's figures, or the serving load, latency and margin; then the sizing's own notes."""
    if spec.training is not None:
        return [*training_reasons(spec, chosen), *chosen.notes[2:]]
    inference = spec.inference_block
    target = inference.latency_p99_ms
    return [f"Serving {inference.requests_per_second:g} req/s: {chosen.notes[0]}; p99 about "
            f"{chosen.latency_p99_ms:,.0f} ms against a {target:g} ms target.",
            serving_margin(spec, chosen), *chosen.notes[1:]]


def _price_reasons(offer: Offer) -> list[str]:
    """Where the price comes from: the reservation's buying price, or the catalog's dated, sourced rate."""
    if is_held(offer.pricing):
        return [buying_price_reason(offer)]
    if offer.price is None:
        return []
    return [f"Price: ${offer.price.hourly_usd:,.4g}/{offer.price.unit} {offer.pricing} in {offer.region} "
            f"(as of {offer.price.as_of}, {offer.price.source}"
            + ("" if offer.price.verified else "; second-hand figure, verify before committing") + ")."]


def _comparison_reasons(chosen: Sized, ranked: list[Sized], rejected: tuple[Any, ...]) -> list[str]:
    """The next best option of another platform or accelerator, and how many options each rule rejected."""
    offer = chosen.offer
    out = []
    runner_up = next((other for other in ranked if other.offer.platform != offer.platform
                      or other.offer.accelerator.name != offer.accelerator.name), None)
    if runner_up is not None:
        out.append(f"Next best: {runner_up.offer.platform} {runner_up.offer.accelerator.name} in "
                   f"{runner_up.offer.region} at ${runner_up.total_usd:,.0f} "
                   f"(score ${runner_up.score_usd:,.0f} vs ${chosen.score_usd:,.0f}).")
    if rejected:
        rules: dict[str, int] = {}
        for rejection in rejected:
            rules[rejection.rule] = rules.get(rejection.rule, 0) + 1
        out.append("Rejected option groups: " + ", ".join(f"{count} by {rule}" for rule, count in sorted(rules.items()))
                   + ".")
    return out


def training_reasons(spec: WorkloadSpec, chosen: Sized) -> list[str]:
    """The run's compute, the efficiency and its factors, the whole-run overhead and the deadline margin."""
    offer = chosen.offer
    training, model = spec.training_block, spec.model
    if model.architecture.value == "other":
        compute = (f"3 × {model.sample_gflops:g} GFLOPs per sample (forward and backward) × "
                   f"{format_count(spec.training_amount)} samples")
    else:
        flops_per = 4 if training.method.value == "lora" else 6
        active = (f"{format_count(model.active)} active of {format_count(model.total_parameters)} total parameters "
                  "(Mixture-of-Experts: FLOPs from the active, memory and checkpoints from the total)"
                  if model.is_moe else format_count(model.total_parameters))
        compute = f"{flops_per}·N·D = {flops_per} × {active} × {format_count(spec.training_amount)} tokens"
    overhead = pref.TRAINING_OVERHEAD_FRACTION + (pref.SPOT_TRAINING_OVERHEAD_FRACTION
                                                  if is_preemptible(offer.pricing) else 0.0)
    allowed = training.deadline_days * (1 - training.deadline_margin_pct / 100)
    days = chosen.hours / 24.0
    return [
        f"Training: {compute} at MFU {chosen.mfu:.0%} takes {duration(chosen.hours)} "
        f"({chosen.accelerator_hours:,.0f} accelerator-hours), including a separate {overhead:.0%} whole-run "
        "overhead (checkpoints, restarts, evaluation"
        + (", spot preemptions" if is_preemptible(offer.pricing) else "") + ").",
        f"Efficiency: {chosen.notes[1]}." if len(chosen.notes) > 1 and chosen.notes[1] else "",
        f"Margin: planned to finish in {days:,.1f} of the {training.deadline_days:g} deadline days "
        f"({(1 - days / training.deadline_days):.0%} to spare; training.deadline_margin_pct asks for "
        f"{training.deadline_margin_pct:g}%, so the plan had {allowed:,.1f} days).",
        f"Memory: {chosen.notes[0]} ({offer.accelerator.memory_gib:g} GiB each).",
    ]


def serving_margin(spec: WorkloadSpec, chosen: Sized) -> str:
    """The margin to each latency target the spec states, at the planned peak (queueing included)."""
    inference = spec.inference_block
    keep = 1 - inference.headroom_pct / 100
    figures = [("TTFT", chosen.ttft_p99_ms, inference.ttft_p99_ms), ("TPOT", chosen.tpot_p99_ms, inference.tpot_p99_ms),
               ("end-to-end", chosen.latency_p99_ms, inference.latency_p99_ms)]
    parts = [f"{name} {value:,.{1 if value < 100 else 0}f} ms is {(target - value) / target:.0%} under {target:g} ms "
             f"(sized to at most {target * keep:,.{1 if target * keep < 100 else 0}f})"
             for name, value, target in figures if target is not None and value is not None]
    return (f"Margin: at the planned peak the modelled p99 {'; '.join(parts)}; inference.headroom_pct asks for "
            f"{inference.headroom_pct:g}% under each target.")


def capacity_reasons(chosen: Sized) -> list[str]:
    """How a large GPU run is laid out over node pools, and the accelerator quota it draws on."""
    offer = chosen.offer
    if offer.platform not in ("gke-gpu", "eks-gpu"):
        return []
    sizes = pool_sizes(offer.platform, chosen.units)
    out = []
    if len(sizes) > 1:
        kind = "node pools" if offer.platform == "gke-gpu" else "managed node groups"
        limit = nodes_per_pool(offer.platform)
        out.append(f"Scale: {chosen.units:,} nodes in {len(sizes)} {kind} of at most {limit:,} nodes each "
                   f"({', '.join(f'{size:,}' for size in sizes)}), one cluster.")
    quota = cloud_named(offer.cloud).gpu_quota
    vcpus = f" ({chosen.units * offer.instance.vcpus:,} vCPUs)" if offer.instance is not None else ""
    out.append(f"Quota: {chosen.devices:,} × {offer.accelerator.name}{vcpus} count against {quota}; check it "
               "before `pulumi up` and request the difference if it is lower.")
    return out


def pricing_reasons(spec: WorkloadSpec, chosen: Sized, ranked: list[Sized]) -> list[str]:
    """Which pricing model won among the spec's preferences, and what a spot plan for deadline work assumes."""
    out = []
    options = [pricing.value for pricing in spec.budget.pricing_options]
    if len(options) > 1:
        others: dict[str, Sized] = {}
        for other in ranked:  # ranked cheapest first: keep each pricing model's best
            if other.offer.pricing != chosen.offer.pricing:
                others.setdefault(other.offer.pricing, other)
        beaten = ", ".join(f"{pricing} (best ${other.score_usd:,.0f})" for pricing, other in sorted(others.items()))
        out.append(f"Pricing: {chosen.offer.pricing}, the cheapest of budget.pricing [{', '.join(options)}] that "
                   f"meets the {'deadline' if spec.training is not None else 'latency target'}"
                   + (f"; against {beaten}." if beaten else "."))
    if is_preemptible(chosen.offer.pricing) and spec.training is not None:
        out.append(f"Spot interruptions: the run time assumes preemptions cost {pref.SPOT_TRAINING_OVERHEAD_FRACTION:.0%} "
                   "extra (work since the last checkpoint plus restarts, on top of the "
                   f"{pref.TRAINING_OVERHEAD_FRACTION:.0%} every run loses); the deadline holds with that margin, not "
                   "through a long capacity shortage. Checkpoint often, or list on-demand after spot in "
                   "budget.pricing to compare. The figure is an estimate: neither cloud publishes a preemption "
                   f"rate for GPUs (as of {pref.SPOT_PREEMPTION['as_of']}; accelfit/planner/data/spot_preemption.yaml).")
    return out


def warnings(spec: WorkloadSpec, chosen: Sized) -> tuple[str, ...]:
    offer = chosen.offer
    out: list[str] = []
    if offer.price is not None and not offer.price.verified and not is_held(offer.pricing):
        out.append(f"The {offer.pricing} price of {offer.price.sku} is second-hand ({offer.price.source}).")
    if term_hours(offer.pricing) and spec.training is not None:
        out.append(f"{offer.pricing} bills the whole term; it pays off only if the capacity is reused after this run.")
    out.extend(buying_warnings(offer))
    training = spec.training is not None
    multi_node = chosen.units > 1
    if offer.instance is not None:
        instance = offer.instance
        node = NodeShape(name=instance.name, gpus=instance.accelerator_count, gpu_memory_gib=offer.accelerator.memory_gib,
                         cpu_cores=instance.vcpus / 2, memory_gib=instance.memory_gib,
                         nvme_tb=instance.local_nvme_gb / 1000, network_gbps=instance.network_gbps)
        out.extend(f"Unbalanced node: {problem}" for problem in balance_problems(node, training, multi_node))
    for server in offer.servers[:chosen.units]:
        node = NodeShape(name=server.name, gpus=server.gpu_count, gpu_memory_gib=offer.accelerator.memory_gib,
                         cpu_cores=server.cpu_cores, memory_gib=server.memory_gib, nvme_tb=server.nvme_tb,
                         network_gbps=server.network_gbps)
        out.extend(f"Unbalanced server: {problem}" for problem in balance_problems(node, training, multi_node))
    if offer.platform in ("gke-gpu", "eks-gpu"):
        out.extend(f"Capacity: {note}" for note in capacity_notes(offer.platform, chosen.units))
    if offer.owned is not None and offer.owned.defaulted:
        out.append(f"Owned servers are priced with sourced defaults for {', '.join(offer.owned.defaulted)} "
                   "(accelfit/pricing/data/owned_hardware.yaml); set them under the inventory's ownership: for "
                   "your site's figures.")
    if offer.platform == "tpu-vm" and multi_node:
        out.append(TPU_VM_MULTISLICE_TRADEOFF.format(slices=chosen.units))
    return tuple(out)


# Why a TPU-VM multislice plan is N independent TPU VMs and what that costs. Queued resources would request the
# slices together, but pulumi-gcp 10.2.0's V2QueuedResource cannot set the slices' service account, spot,
# reservation or labels (components/gcp/tpu_queued.py), so plans do not use them.
TPU_VM_MULTISLICE_TRADEOFF = (
    "The {slices} slices are {slices} TPU VMs created one by one, not provisioned together: one can run (and bill) "
    "while another waits for capacity, and the job starts only when all are up. For all-or-nothing capacity use "
    "placement.orchestration: kubernetes (GKE node pools per slice; Kueue admits the multislice JobSet only when "
    "every slice fits), or a reservation that holds all slices.")
