"""Size and cost every offer; keep the feasible ones and say why the others fail."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accelfit.buying import buying_model, find_buying_model
from accelfit.catalog.models import Catalog
from accelfit.planner.costing.option_costs import (
    StorageNeeds, cost_assumptions, cost_parts, plan_figures, run_of, serving_plan, storage_needs,
)
from accelfit.planner.costing.buying import BUYING_RULE, run_cap, run_rejection
from accelfit.planner.constraints import PolicyConstraints
from accelfit.planner.eligibility import penalties
from accelfit.planner.gpu_vms import SINGLE_NODE, vm_platforms, single_node_reason
from accelfit.planner.options import Offer, RawRejection, Sized
from accelfit.planner.sizes import latency_budget_ms, peak_factor
from accelfit.planner.training.sizing import (
    GIB, InferenceSize, TrainingSize, Unfit, effective_mfu, layout, size_training, training_efficiency, training_hours,
)
from accelfit.spec import WorkloadSpec

if TYPE_CHECKING:  # a team's file is read (and its models built) where it is given
    from accelfit.planner.serving.load import Miss
    from accelfit.planner.team_efficiency import TeamEfficiency


@dataclass
class Evaluation:
    feasible: list[Sized] = field(default_factory=list)
    rejected: list[RawRejection] = field(default_factory=list)
    # How close the infeasible options came, to tell the user how far to relax a constraint.
    fastest_days: float | None = None
    best_latency_ms: float | None = None
    # The latency targets the closest option (least over its budgets) misses at a light load.
    latency_misses: tuple[Miss, ...] = ()
    cheapest_over_budget: Sized | None = None
    # Options that met the workload but a policy limit of the environment rejected (the binding constraint then).
    policy_rejected: int = 0


def sizing_key(offer: Offer) -> tuple[object, ...]:
    """What sizing reads from an offer: everything but its place and price. A machine type or slice shape sizes
    the same in every region and zone that offers it, so `evaluate` sizes it once (a full imported catalog offers
    each of them in dozens of regions). The objects are keyed by identity: one catalog row (or inventory server)
    is one object in every offer made from it, and they live as long as the offers being evaluated."""
    return (offer.platform, offer.cloud, offer.accelerator.name, offer.machine, offer.devices_per_unit,
            offer.max_units, offer.multi_unit, offer.pricing, id(offer.instance), id(offer.tpu_slice),
            tuple(id(server) for server in offer.servers))


@dataclass(frozen=True)
class _Shape:
    """What sizing decides for an offer, the same in every region: Sized's fields that depend on neither place nor
    price, the storage it needs and the run it prices (training; 0 for inference)."""

    fields: dict[str, Any]
    storage: StorageNeeds
    run_hours: float


def size_offer(spec: WorkloadSpec, catalog: Catalog, offer: Offer, team: TeamEfficiency | None = None,
               at_units: int | None = None, shared: dict[Any, Any] | None = None) -> Sized:
    """Size and cost one offer; raises Unfit when it cannot meet the workload at any allowed count.

    `at_units` builds a count at least as large as the spec needs (a lock that still meets the spec): the same
    workload on more units runs faster (training) or with spare replicas (inference), and costs what it builds.
    `shared` (a dict the caller keeps while it evaluates one spec's offers) shares the sizing between offers with
    the same `sizing_key` and the place-only cost parts between offers in the same place (`option_costs.cost_parts`);
    only what depends on both is worked out per offer."""
    if shared is None:
        shape = _shape(spec, catalog, offer, team, at_units)
    else:
        key = (sizing_key(offer), at_units)
        remembered: _Shape | Unfit | None = shared.get(key)
        if remembered is None:
            try:
                remembered = _shape(spec, catalog, offer, team, at_units)
            except Unfit as unfit:
                remembered = unfit
            shared[key] = remembered
        if isinstance(remembered, Unfit):
            raise remembered.with_traceback(None)  # one remembered Unfit, raised afresh for each offer
        shape = remembered
    # The models the planner offers by rules of its own (accelfit/buying) may cap a run's length
    # (planner/costing/buying.py).
    rules = find_buying_model(offer.pricing)  # None for owned servers: nothing is bought
    run = run_of(spec, offer, shape.run_hours)  # None for inference: no run
    if run is not None and rules is not None and rules.offers_by_rules:
        why = run_rejection(offer.pricing, offer.instance.family if offer.instance else "", run.accelerator_hours)
        if why is not None:
            raise Unfit(BUYING_RULE, why)
    parts = cost_parts(spec, catalog, offer, shape.fields["units"], shape.run_hours, shape.storage, shared)
    cost = plan_figures(spec, parts)
    return Sized(offer=offer, monthly_usd=cost.monthly_usd,
                 total_usd=cost.run_total_usd if cost.run_total_usd is not None else cost.monthly_usd,
                 parts=parts, full_scale_monthly_usd=cost.full_scale_monthly_usd, **shape.fields)


def _shape(spec: WorkloadSpec, catalog: Catalog, offer: Offer, team: TeamEfficiency | None,
           at_units: int | None) -> _Shape:
    if spec.training is not None:
        return _training_shape(spec, catalog, offer, team, at_units)
    return _serving_shape(spec, offer, team, at_units)


def _training_shape(spec: WorkloadSpec, catalog: Catalog, offer: Offer, team: TeamEfficiency | None,
                    at_units: int | None) -> _Shape:
    accelerator = offer.accelerator.name
    figure = catalog.mfu(accelerator)
    mfu, mfu_source, calibration = figure.mfu, figure.source, ""
    if team is not None and (measured := team.training_for(accelerator)) is not None:
        mfu, mfu_source = measured.mfu, f"team measurements: {measured.source}"
        calibration = (f"MFU {measured.mfu:.0%} for {accelerator} measured by your team ({measured.runs} runs, "
                       f"{team.path or 'team efficiency file'}) replaces the catalog's {figure.mfu:.0%}.")
    efficiency = training_efficiency(spec, offer.accelerator, mfu, mfu_source)
    mfu = efficiency.mfu
    # A buying model's longest run bounds the search: more nodes until the run fits (issue 33).
    size = size_training(spec, offer, mfu, run_cap(offer.pricing, offer.platform))
    most = offer.max_units if offer.multi_unit else 1
    if at_units is not None and at_units > most:
        raise Unfit("capacity", f"{at_units} × {offer.machine} is more than this option offers ({most})")
    if at_units is not None and at_units > size.units:
        size = training_at(spec, offer, mfu, at_units)
    return _Shape(dict(
        units=size.units, devices=size.devices, hours=size.hours, accelerator_hours=size.hours * size.devices,
        memory_per_device_gib=size.memory_per_device_gib,
        cost_assumptions=cost_assumptions(spec, offer, size.hours), mfu=size.mfu, mfu_source=mfu_source,
        tokens_per_second=size.tokens_per_second, penalties=penalties(spec, offer.accelerator),
        notes=(training_memory_note(spec, size), "; ".join(efficiency.factors)), calibration=calibration),
        storage_needs(spec, offer, size.units), size.hours)


def _serving_shape(spec: WorkloadSpec, offer: Offer, team: TeamEfficiency | None, at_units: int | None) -> _Shape:
    accelerator = offer.accelerator.name
    # The serving model is imported for a spec that serves: a training plan never loads it (issue 39).
    from accelfit.planner.serving.engine_figures import efficiency_for
    from accelfit.planner.serving.replica import Efficiency
    from accelfit.planner.serving.sizing import size_inference

    efficiency, calibration = None, ""
    if team is not None and (measured := team.serving_for(accelerator)) is not None:
        efficiency = Efficiency(measured.decode_bandwidth, measured.prefill_compute)
        row = efficiency_for(accelerator)
        calibration = (f"serving efficiency for {accelerator} measured by your team ({measured.runs} runs, "
                       f"{team.path or 'team efficiency file'}): decode at {measured.decode_bandwidth:.0%} "
                       f"of peak bandwidth and prefill at {measured.prefill_compute:.0%} of peak compute, "
                       f"replacing the catalog's {row.decode_bandwidth:.0%} / {row.prefill_compute:.0%}.")
    size = size_inference(spec, offer, efficiency)
    if at_units is not None and at_units > size.units:
        per_unit = size.replicas / size.units
        size = dataclasses.replace(size, units=at_units, devices=at_units * offer.devices_per_unit,
                                   replicas=max(size.replicas, math.floor(per_unit * at_units)))
    serving_hours, _ = serving_plan(spec, offer)
    return _Shape(dict(
        units=size.units, devices=size.devices, hours=serving_hours, accelerator_hours=serving_hours * size.devices,
        memory_per_device_gib=size.memory_per_device_gib, cost_assumptions=cost_assumptions(spec, offer, 0.0),
        replicas=size.replicas, tokens_per_second=size.tokens_per_second, latency_p99_ms=size.latency_p99_ms,
        ttft_p99_ms=size.ttft_p99_ms, tpot_p99_ms=size.tpot_p99_ms,
        penalties=penalties(spec, offer.accelerator), notes=(inference_note(size, offer, spec),),
        calibration=calibration),
        storage_needs(spec, offer, size.units), 0.0)


def training_at(spec: WorkloadSpec, offer: Offer, base_mfu: float, units: int) -> TrainingSize:
    """The training run on exactly `units` (more than the fewest that meet the deadline)."""
    fitted = layout(spec, offer, units)
    if fitted is None:  # more units than size_training's, which fit: more devices only shrink the state shard
        raise AssertionError(f"{units} × {offer.machine}: no layout fits, above the fewest units that hold the run")
    recompute = fitted.recompute_fraction
    hours = training_hours(spec, offer, units, base_mfu, recompute)
    return TrainingSize(
        units=units, devices=units * offer.devices_per_unit, hours=hours,
        mfu=effective_mfu(offer, units, base_mfu, recompute),
        memory_per_device_gib=fitted.total_bytes / GIB,
        tokens_per_second=spec.training_amount / (hours * 3600.0),
        tensor_parallel=fitted.tensor_parallel, recompute_fraction=recompute,
        activation_gib=fitted.activation_bytes / GIB, state_gib=fitted.state_bytes / GIB)


def training_memory_note(spec: WorkloadSpec, size: TrainingSize) -> str:
    """How the per-device memory breaks down, and the layout that makes it fit."""
    if spec.model.architecture.value == "other":
        return (f"{size.memory_per_device_gib:,.1f} GiB per device: one whole copy of the model "
                f"(model.memory_gib) on each of {size.devices:,} devices, data parallel")
    recompute = (f"recomputing {size.recompute_fraction:.0%} of the layers' activations"
                 if size.recompute_fraction else "no activation recomputation")
    return (f"{size.memory_per_device_gib:,.1f} GiB per device: {size.state_gib:,.2f} GiB of weights, gradients and "
            f"Adam state sharded over {size.devices:,} devices (ZeRO-3/FSDP) plus {size.activation_gib:,.1f} GiB of "
            f"activations for one sequence, tensor parallel {size.tensor_parallel}, {recompute}")


def inference_note(size: InferenceSize, offer: Offer, spec: WorkloadSpec | None = None) -> str:
    link = f", tensor parallel over {size.tensor_parallel_link}" if size.devices_per_replica > 1 else ""
    if size.data_parallel > 1:
        link = f", tensor parallel {size.tensor_parallel} over {size.tensor_parallel_link} (one replica spans " \
               f"{size.data_parallel} nodes)"
    if size.pipeline_parallel > 1:
        link = (f", tensor parallel {size.tensor_parallel} over {size.tensor_parallel_link} (one replica spans "
                f"{size.pipeline_parallel} nodes)")
    peak = ""
    if spec is not None and size.token_budget:  # the transformer model (not the non-transformer one)
        inference = spec.inference_block
        factor = peak_factor(inference)
        peak = (f" within every target, for {inference.requests_per_second * factor:,.4g} req/s at the peak "
                f"(requests_per_second × peak_factor {factor:g}; about {size.in_flight:,.0f} sequences in flight per "
                f"replica)")
    return (f"{size.replicas} replicas of {size.devices_per_replica} × {offer.accelerator.name}{link}, batch "
            f"{size.batch}, about {size.requests_per_replica:,.2f} req/s each{peak}; {size.lengths}")


def evaluate(spec: WorkloadSpec, catalog: Catalog, offers: list[Offer],
             team: TeamEfficiency | None = None, constraints: PolicyConstraints | None = None) -> Evaluation:
    result = Evaluation()
    shared: dict[Any, Any] = {}
    for offer in offers:
        try:
            sized = size_offer(spec, catalog, offer, team, shared=shared)
        except Unfit as unfit:
            result.rejected.append(_raw(offer, *_size_rejection(offer, unfit)))
            if unfit.rule == "deadline" and unfit.best is not None:
                result.fastest_days = min(unfit.best, result.fastest_days or unfit.best)
            if unfit.rule == "latency":
                _record_latency(spec, result, unfit)
            continue
        over = over_budget(spec, sized)
        if over:
            result.rejected.append(_raw(offer, "budget", over))
            if result.cheapest_over_budget is None or _budget_key(spec, sized) < _budget_key(
                    spec, result.cheapest_over_budget):
                result.cheapest_over_budget = sized
            continue
        policy = policy_rejections(spec, sized, constraints)
        if policy:
            result.rejected.append(_raw(offer, *policy[0]))
            result.policy_rejected += 1
            continue
        result.feasible.append(sized)
    result.feasible = smallest_per_family(result.feasible)
    return result


def _size_rejection(offer: Offer, unfit: Unfit) -> tuple[str, str]:
    """(rule, reason) of an offer no size fits: a GPU VM is one node (say so), a held reservation's or Capacity
    Block's size is its count (say so)."""
    if unfit.rule not in ("deadline", "memory"):
        return unfit.rule, unfit.reason
    if offer.platform in vm_platforms():
        return SINGLE_NODE, single_node_reason(offer.machine, unfit.reason)
    if offer.reservation is not None:
        return unfit.rule, unfit.reason + held_limit(offer)
    return unfit.rule, unfit.reason


def held_limit(offer: Offer) -> str:
    """Why a held reservation's or Capacity Block's offer stops at its size: the pool never asks for more machines
    than the capacity holds (the rest would fail to launch)."""
    block = offer.capacity_block or buying_model(offer.pricing).whole_block
    held = "Capacity Block" if block else "reservation"
    return (f"; {held} {offer.reservation} holds {offer.max_units} × {offer.machine} (placement.reservations count), "
            "and a pool never asks for more than it holds: hold more, or list another way to buy in budget.pricing")


def _record_latency(spec: WorkloadSpec, result: Evaluation, unfit: Unfit) -> None:
    if unfit.best is None and not unfit.misses:
        return  # no latency to record (a training option, or a serving one that does not fit)
    from accelfit.planner.serving.load import Miss
    from accelfit.planner.serving.sizing import shortfall

    if unfit.best is not None:
        result.best_latency_ms = min(unfit.best, result.best_latency_ms or unfit.best)
    misses = unfit.misses
    if not misses and unfit.best is not None:  # the non-transformer model states its end-to-end p99 only
        misses = (Miss("inference.latency_p99_ms", unfit.best, latency_budget_ms(spec)),)
    if misses and (not result.latency_misses or shortfall(misses) < shortfall(result.latency_misses)):
        result.latency_misses = tuple(misses)


def policy_rejections(spec: WorkloadSpec, sized: Sized, constraints: PolicyConstraints | None) -> list[tuple[str, str]]:
    """What the environment's policy limits say about a sized option: (rule, reason) per limit it exceeds."""
    if constraints is None:
        return []
    from accelfit.planner.build import node_pools  # the pools this option would build, to check their sizes

    pools = [pool.max_nodes for pool in node_pools(spec, sized) if pool.role != "system"]
    return constraints.size_rejections(sized.devices, pools, {"monthly_usd": sized.monthly_usd,
                                                              "full_scale_monthly_usd": sized.full_scale_monthly_usd})


def _raw(offer: Offer, rule: str, reason: str) -> RawRejection:
    return RawRejection(offer.platform, offer.accelerator.name, offer.machine, ",".join(offer.zones), rule, reason)


def _budget_key(spec: WorkloadSpec, sized: Sized) -> float:
    return sized.total_usd if spec.budget.max_total_usd is not None else sized.monthly_usd


def over_budget(spec: WorkloadSpec, sized: Sized) -> str | None:
    budget = spec.budget
    if budget.max_total_usd is not None and sized.total_usd > budget.max_total_usd:
        return f"costs ${sized.total_usd:,.0f} in total; budget.max_total_usd is ${budget.max_total_usd:,.0f}"
    if budget.max_monthly_usd is not None and sized.monthly_usd > budget.max_monthly_usd:
        return f"costs ${sized.monthly_usd:,.0f} a month; budget.max_monthly_usd is ${budget.max_monthly_usd:,.0f}"
    return None


def family_key(sized: Sized) -> tuple[str, str, tuple[str, ...], str, str]:
    """Offers that differ only in size: same platform, place, accelerator and pricing."""
    offer = sized.offer
    return (offer.platform, offer.cloud, offer.zones, offer.accelerator.name, offer.pricing)


def smallest_per_family(feasible: list[Sized]) -> list[Sized]:
    """"Grow the count until the deadline holds": within a family keep the fewest devices that meet the spec.

    Bigger shapes of the same accelerator cost about the same for a fixed amount of work (they finish sooner),
    and would otherwise win on cents of cluster fees; the smallest sufficient shape is what is easiest to get.
    Ties on devices go to the cheaper option.
    """
    best: dict[tuple[str, str, tuple[str, ...], str, str], Sized] = {}
    for sized in feasible:
        key = family_key(sized)
        current = best.get(key)
        if current is None or (sized.devices, sized.score_usd, sized.offer.machine) < (
                current.devices, current.score_usd, current.offer.machine):
            best[key] = sized
    return list(best.values())
