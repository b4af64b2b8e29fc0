"""How many units an offer needs for the workload, and how long or how fast it then runs.

Training (reference section 8): time = (flops_per_param_token · N · D) / (devices · dense peak · MFU), plus
overhead; the count grows until the deadline holds and the training state fits. Inference: decode is
memory-bandwidth bound, prefill compute bound; replicas come from the request rate and the latency target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelfit.buying import is_preemptible
from accelfit.catalog.models import Accelerator
from accelfit.planner import preferences as pref
from accelfit.planner.memory import (
    GIB, TrainingMemory, training_memory, training_state_bytes,
)
from accelfit.planner.options import Offer
# The sizes and the refusal are sizing's answers; importers name them from here or from sizes.py alike. The serving
# search is serving/sizing.py's: training/ never imports serving/ (accelfit/planner/training/__init__.py).
from accelfit.planner.sizes import InferenceSize, RunCap, TrainingSize, Unfit, latency_budget_ms  # noqa: F401
from accelfit.planner.training.efficiency import moe_factor, other_model, precision_speedup
from accelfit.spec import Architecture, Precision, TrainingMethod, WorkloadSpec


LOW_PRECISION = (Precision.fp8, Precision.fp4)


def peak_flops(accelerator: Accelerator, precision: Precision) -> float:
    """Dense peak in FLOP/s. FP8 and FP4 training are measured against the BF16 peak: the MFU figures come from
    BF16 runs, and their gain is a published speed-up over BF16 (training_efficiency.yaml), not the doubled peak."""
    key = Precision.bf16 if precision in LOW_PRECISION and Precision.bf16 in accelerator.dense_tflops else precision
    return accelerator.dense_tflops[key] * 1e12


def training_flops(spec: WorkloadSpec) -> float:
    """6·N·D (4·N·D for LoRA) with N the ACTIVE parameters (a Mixture-of-Experts token passes through only its
    experts); architecture other: 3 × forward GFLOPs × samples (the backward pass costs about twice the forward,
    Kaplan et al. 2020, arXiv:2001.08361 section 2.1)."""
    if spec.model.architecture is Architecture.other:
        return pref.OTHER_TRAINING_PASSES * spec.model.sample_gflops * 1e9 * spec.training_amount
    per = pref.LORA_FLOPS_PER_PARAM_TOKEN if spec.training_block.method is TrainingMethod.lora \
        else pref.FULL_FLOPS_PER_PARAM_TOKEN
    return per * spec.model.active * spec.training_amount


@dataclass(frozen=True)
class TrainingEfficiency:
    """The MFU the run is planned at (against the BF16 peak for FP8/FP4) and each factor that made it, said."""

    mfu: float
    factors: tuple[str, ...]


def training_efficiency(spec: WorkloadSpec, accelerator: Accelerator, base_mfu: float,
                        base_source: str = "") -> TrainingEfficiency:
    """The dense BF16 MFU adjusted for the architecture (MoE, other) and the precision (FP8/FP4 speed-up over BF16
    on this accelerator and size class), each from sourced data."""
    model = spec.model
    if model.architecture is Architecture.other:
        row = other_model(accelerator.name)
        return TrainingEfficiency(row.training_mfu, (
            f"MFU {row.training_mfu:.0%} for a non-transformer model on {accelerator.name} ({row.source})",))
    mfu = base_mfu
    factors = [f"dense BF16 MFU {base_mfu:.0%}" + (f" ({base_source})" if base_source else "")]
    if model.is_moe:
        moe = moe_factor(accelerator.name, model.active)
        mfu *= moe.value
        factors.append(f"Mixture-of-Experts x{moe.value:g} (all-to-all, imbalance, small expert GEMMs; {moe.source})")
    if model.precision in LOW_PRECISION:
        speedup = precision_speedup(accelerator.name, model.precision, model.active)
        if speedup is None:
            factors.append(f"{model.precision.value} x1 on {accelerator.name}: no published {model.precision.value} "
                           "training speed-up over BF16 for it, so the run is planned at the BF16 rate")
        else:
            mfu *= speedup.value
            factors.append(f"{model.precision.value} x{speedup.value:g} over BF16 ({speedup.source})")
    return TrainingEfficiency(min(mfu, 1.0 if model.precision not in LOW_PRECISION else 4.0), tuple(factors))


def deadline_hours(spec: WorkloadSpec) -> float:
    """The hours the plan may use: the deadline less its margin (training.deadline_margin_pct)."""
    training = spec.training_block
    return training.deadline_days * 24.0 * (1.0 - training.deadline_margin_pct / 100.0)


def effective_mfu(offer: Offer, units: int, base_mfu: float, recompute_fraction: float = 0.0) -> float:
    """MFU after the layout's costs: the fabric between units and recomputed layers (which repeat a forward)."""
    recompute = pref.FULL_FLOPS_PER_PARAM_TOKEN / (
        pref.FULL_FLOPS_PER_PARAM_TOKEN + pref.RECOMPUTE_FORWARD_FLOPS_PER_PARAM_TOKEN * recompute_fraction)
    mfu = base_mfu * recompute
    if units <= 1:
        return mfu
    if offer.tpu_slice is not None:
        return mfu * pref.MULTISLICE_MFU_FACTOR
    if offer.instance is not None and offer.instance.network_gbps < pref.FAST_FABRIC_GBPS_PER_NODE:
        return mfu * pref.SLOW_FABRIC_MFU_FACTOR
    if offer.servers and min(server.network_gbps for server in offer.servers) < pref.FAST_FABRIC_GBPS_PER_NODE:
        return mfu * pref.SLOW_FABRIC_MFU_FACTOR
    return mfu


def training_overhead(spot: bool) -> float:
    return 1.0 + pref.TRAINING_OVERHEAD_FRACTION + (pref.SPOT_TRAINING_OVERHEAD_FRACTION if spot else 0.0)


def layout(spec: WorkloadSpec, offer: Offer, units: int) -> TrainingMemory | None:
    if spec.model.architecture is Architecture.other:
        # Data parallel: every device holds a whole copy (model.memory_gib: weights, optimizer state, a batch).
        need = spec.model.copy_memory_gib * GIB
        usable = offer.accelerator.memory_gib * GIB * pref.USABLE_MEMORY_FRACTION
        return TrainingMemory(need, 0.0, 0.0, 1, 0.0) if need <= usable else None
    return training_memory(spec.model, spec.training_block.method, units * offer.devices_per_unit,
                           offer.accelerator.memory_gib, offer.devices_per_unit)


def fitted_layout(spec: WorkloadSpec, offer: Offer, units: int) -> TrainingMemory:
    """The layout at a unit count at or above the fewest that fit (`_units_for_memory`): one always exists there,
    as more devices only shrink the state shard and the activations do not grow."""
    fitted = layout(spec, offer, units)
    if fitted is None:
        raise AssertionError(f"{units} × {offer.machine}: no layout fits, below the fewest units that hold the run")
    return fitted


def state_bytes(spec: WorkloadSpec) -> float:
    if spec.model.architecture is Architecture.other:
        return spec.model.copy_memory_gib * GIB
    return training_state_bytes(spec.model.total_parameters, spec.model.precision, spec.training_block.method)


def training_hours(spec: WorkloadSpec, offer: Offer, units: int, base_mfu: float,
                   recompute_fraction: float = 0.0) -> float:
    devices = units * offer.devices_per_unit
    mfu = effective_mfu(offer, units, base_mfu, recompute_fraction)
    seconds = training_flops(spec) / (devices * peak_flops(offer.accelerator, spec.model.precision) * mfu)
    return seconds / 3600.0 * training_overhead(is_preemptible(offer.pricing))


def _units_for_memory(spec: WorkloadSpec, offer: Offer, most: int) -> int | None:
    """Fewest units whose devices hold the training state and one micro-batch's activations."""
    state = state_bytes(spec)
    usable = offer.accelerator.memory_gib * GIB * pref.USABLE_MEMORY_FRACTION
    sharded = spec.model.architecture is not Architecture.other
    low = min(most, max(1, math.ceil(state / usable / offer.devices_per_unit))) if sharded else 1
    if layout(spec, offer, most) is None:
        return None  # activations do not shrink with the device count: if the largest size fails, all do
    high = most  # more devices only shrink the state shard, so the fitting counts are [answer, most]
    while low < high:
        middle = (low + high) // 2
        if layout(spec, offer, middle) is None:
            low = middle + 1
        else:
            high = middle
    return low


def size_training(spec: WorkloadSpec, offer: Offer, base_mfu: float, cap: RunCap | None = None) -> TrainingSize:
    """The smallest unit count that fits the training state and activations and meets the deadline, and the
    buying model's longest run (`cap`) when it has one."""
    accelerator = offer.accelerator
    most = offer.max_units if offer.multi_unit else 1
    units_for_memory = _units_for_memory(spec, offer, most)
    if units_for_memory is None:
        need_gib = state_bytes(spec) / GIB
        if spec.model.architecture is Architecture.other:
            raise Unfit("memory", f"model.memory_gib {need_gib:,.0f} GiB per copy; one {accelerator.name} offers "
                                  f"{accelerator.memory_gib * pref.USABLE_MEMORY_FRACTION:,.0f} GiB usable")
        raise Unfit("memory", f"training state needs about {need_gib:,.0f} GiB plus activations; {most} × "
                              f"{offer.machine} hold {most * offer.devices_per_unit * accelerator.memory_gib:,.0f} "
                              "GiB", best=None)
    deadline_hours_ = deadline_hours(spec)

    def hours_at(units: int) -> float:
        fitted = layout(spec, offer, units)
        return training_hours(spec, offer, units, base_mfu, fitted.recompute_fraction if fitted else 0.0)

    limit = deadline_hours_ if cap is None else min(deadline_hours_, cap.hours)
    if hours_at(most) > limit:
        fastest = hours_at(most)
        if cap is not None and cap.hours < deadline_hours_:
            raise Unfit(cap.rule, f"takes {fastest / 24:,.1f} days at its largest size ({most} × {offer.machine}); "
                                  f"{cap.why}")
        margin = spec.training_block.deadline_margin_pct
        raise Unfit("deadline", f"takes {fastest / 24:,.1f} days at its largest size ({most} × {offer.machine}); "
                                f"the deadline is {spec.training_block.deadline_days:g} days less its {margin:g}% margin "
                                f"({deadline_hours_ / 24:,.1f} days)",
                    best=fastest / 24 / (1.0 - margin / 100.0))
    # The fewest units that meet the deadline. Hours fall as units grow (more devices, and less recomputation as
    # the state shard shrinks; the fabric penalty applies from two units on), so a bisection finds it.
    low, high = units_for_memory, most
    while low < high:
        middle = (low + high) // 2
        if hours_at(middle) <= limit:
            high = middle
        else:
            low = middle + 1
    units = low
    fitted = fitted_layout(spec, offer, units)
    devices = units * offer.devices_per_unit
    hours = hours_at(units)
    return TrainingSize(
        units=units, devices=devices, hours=hours,
        mfu=effective_mfu(offer, units, base_mfu, fitted.recompute_fraction),
        memory_per_device_gib=fitted.total_bytes / GIB,
        tokens_per_second=spec.training_amount / (hours * 3600.0),
        tensor_parallel=fitted.tensor_parallel, recompute_fraction=fitted.recompute_fraction,
        activation_gib=fitted.activation_bytes / GIB, state_gib=fitted.state_bytes / GIB)
