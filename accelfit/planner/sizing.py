"""How many units an offer needs for the workload, and how long or how fast it then runs.

Training (reference section 8): time = (flops_per_param_token · N · D) / (devices · dense peak · MFU), plus
overhead; the count grows until the deadline holds and the training state fits. Inference: decode is
memory-bandwidth bound, prefill compute bound; replicas come from the request rate and the latency target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelfit.catalog.models import Accelerator
from accelfit.planner import preferences as pref
from accelfit.planner.memory import (
    GIB, TrainingMemory, kv_cache_bytes_per_token, training_memory, training_state_bytes, weights_bytes,
)
from accelfit.planner.options import Offer
from accelfit.spec import Precision, TrainingMethod, Traffic, WorkloadSpec


class Unfit(Exception):
    """The offer cannot meet the workload at any count it allows; `rule` groups it, `best` is how close it got."""

    def __init__(self, rule: str, reason: str, best: float | None = None):
        super().__init__(reason)
        self.rule = rule
        self.reason = reason
        self.best = best


@dataclass(frozen=True)
class TrainingSize:
    units: int
    devices: int
    hours: float
    mfu: float
    memory_per_device_gib: float
    tokens_per_second: float
    tensor_parallel: int = 1
    recompute_fraction: float = 0.0
    activation_gib: float = 0.0
    state_gib: float = 0.0


@dataclass(frozen=True)
class InferenceSize:
    units: int
    devices: int
    replicas: int
    devices_per_replica: int
    batch: int
    latency_p99_ms: float
    memory_per_device_gib: float
    tokens_per_second: float


def peak_flops(accelerator: Accelerator, precision: Precision) -> float:
    """Dense peak in FLOP/s. FP8 training is measured against the BF16 peak (reference section 7): the MFU
    figures come from BF16 runs, and counting FP8's doubled peak would double-count its gain."""
    key = Precision.bf16 if precision is Precision.fp8 and Precision.bf16 in accelerator.dense_tflops else precision
    return accelerator.dense_tflops[key] * 1e12


def training_flops(spec: WorkloadSpec) -> float:
    per = pref.LORA_FLOPS_PER_PARAM_TOKEN if spec.training.method is TrainingMethod.lora \
        else pref.FULL_FLOPS_PER_PARAM_TOKEN
    return per * spec.model.parameters * spec.training.tokens


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
    return training_memory(spec.model, spec.training.method, units * offer.devices_per_unit,
                           offer.accelerator.memory_gib, offer.devices_per_unit)


def training_hours(spec: WorkloadSpec, offer: Offer, units: int, base_mfu: float,
                   recompute_fraction: float = 0.0) -> float:
    devices = units * offer.devices_per_unit
    mfu = effective_mfu(offer, units, base_mfu, recompute_fraction)
    seconds = training_flops(spec) / (devices * peak_flops(offer.accelerator, spec.model.precision) * mfu)
    return seconds / 3600.0 * training_overhead(offer.pricing == "spot")


def _units_for_memory(spec: WorkloadSpec, offer: Offer, most: int) -> int | None:
    """Fewest units whose devices hold the training state and one micro-batch's activations."""
    state = training_state_bytes(spec.model.parameters, spec.model.precision, spec.training.method)
    usable = offer.accelerator.memory_gib * GIB * pref.USABLE_MEMORY_FRACTION
    low = min(most, max(1, math.ceil(state / usable / offer.devices_per_unit)))
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


def size_training(spec: WorkloadSpec, offer: Offer, base_mfu: float) -> TrainingSize:
    """The smallest unit count that fits the training state and activations and meets the deadline."""
    accelerator = offer.accelerator
    most = offer.max_units if offer.multi_unit else 1
    units_for_memory = _units_for_memory(spec, offer, most)
    if units_for_memory is None:
        need_gib = training_state_bytes(spec.model.parameters, spec.model.precision, spec.training.method) / GIB
        raise Unfit("memory", f"training state needs about {need_gib:,.0f} GiB plus activations; {most} × "
                              f"{offer.machine} hold {most * offer.devices_per_unit * accelerator.memory_gib:,.0f} "
                              "GiB", best=None)
    deadline_hours = spec.training.deadline_days * 24.0

    def hours_at(units: int) -> float:
        fitted = layout(spec, offer, units)
        return training_hours(spec, offer, units, base_mfu, fitted.recompute_fraction if fitted else 0.0)

    if hours_at(most) > deadline_hours:
        fastest = hours_at(most)
        raise Unfit("deadline", f"takes {fastest / 24:,.1f} days at its largest size ({most} × {offer.machine}); "
                                f"the deadline is {spec.training.deadline_days:g} days", best=fastest / 24)
    # The fewest units that meet the deadline. Hours fall as units grow (more devices, and less recomputation as
    # the state shard shrinks; the fabric penalty applies from two units on), so a bisection finds it.
    low, high = units_for_memory, most
    while low < high:
        middle = (low + high) // 2
        if hours_at(middle) <= deadline_hours:
            high = middle
        else:
            low = middle + 1
    units = low
    fitted = layout(spec, offer, units)
    devices = units * offer.devices_per_unit
    hours = hours_at(units)
    return TrainingSize(
        units=units, devices=devices, hours=hours,
        mfu=effective_mfu(offer, units, base_mfu, fitted.recompute_fraction),
        memory_per_device_gib=fitted.total_bytes / GIB,
        tokens_per_second=spec.training.tokens / (hours * 3600.0),
        tensor_parallel=fitted.tensor_parallel, recompute_fraction=fitted.recompute_fraction,
        activation_gib=fitted.activation_bytes / GIB, state_gib=fitted.state_bytes / GIB)


# p99 latency is taken as this multiple of the mean under continuous batching (queueing and stragglers).
P99_OVER_MEAN = 1.25
# Serving engines keep weights plus this share for activations, CUDA graphs and allocator slack.
RUNTIME_OVERHEAD = 1.10


def size_inference(spec: WorkloadSpec, offer: Offer) -> InferenceSize:
    inference = spec.inference
    model = spec.model
    accelerator = offer.accelerator
    weights = weights_bytes(model) * RUNTIME_OVERHEAD
    kv_per_token = kv_cache_bytes_per_token(model)
    context = model.context_tokens or (inference.input_tokens + inference.output_tokens)
    kv_per_sequence = kv_per_token * context
    usable_per_device = accelerator.memory_gib * GIB * pref.USABLE_MEMORY_FRACTION

    # Devices per replica: one TPU slice, or the smallest power-of-two tensor-parallel group within a node.
    if offer.tpu_slice is not None:
        if offer.tpu_slice.hosts > 1:
            raise Unfit("tpu-serving", f"{offer.machine} spans {offer.tpu_slice.hosts} hosts; serving uses "
                                       "single-host slices")
        group_sizes = [offer.devices_per_unit]
    else:
        group_sizes = [size for size in (1, 2, 4, 8, 16) if size <= offer.devices_per_unit]
    fitting = [size for size in group_sizes if size * usable_per_device >= weights + kv_per_sequence]
    if not fitting:
        most = group_sizes[-1] * usable_per_device / GIB
        raise Unfit("memory", f"weights and one sequence's KV cache need {(weights + kv_per_sequence) / GIB:,.0f} "
                              f"GiB; one {offer.machine} offers {most:,.0f} GiB")

    average_kv = kv_per_token * (inference.input_tokens + inference.output_tokens / 2)
    prefill_share = 1.0 + inference.input_tokens / inference.output_tokens

    def latency_ms(group: int, batch: int) -> float:
        # Decode step: read all weights once plus every sequence's KV cache (bandwidth), or do the math for the
        # batch including its share of new prompts' prefill (compute), whichever is slower. A bigger
        # tensor-parallel group splits both across more chips.
        bandwidth = group * accelerator.memory_bandwidth_gbps * 1e9 * pref.DECODE_BANDWIDTH_EFFICIENCY
        compute = group * peak_flops(accelerator, model.precision) * pref.PREFILL_COMPUTE_EFFICIENCY
        step = max((weights / RUNTIME_OVERHEAD + batch * average_kv) / bandwidth,
                   2.0 * model.parameters * batch * prefill_share / compute)
        prefill = 2.0 * model.parameters * inference.input_tokens / compute
        return (prefill + inference.output_tokens * step) * 1000.0 * P99_OVER_MEAN

    # The smallest group that fits the weights and meets the latency target: more chips per replica only when
    # one replica would be too slow (tensor parallelism costs chips, it does not add throughput per chip).
    fast_enough = [size for size in fitting if latency_ms(size, 1) <= inference.latency_p99_ms]
    if not fast_enough:
        best = min(latency_ms(size, 1) for size in fitting)
        raise Unfit("latency", f"p99 about {best:,.0f} ms even one request at a time on up to {fitting[-1]} × "
                               f"{accelerator.name}; the target is {inference.latency_p99_ms:g} ms", best=best)
    group = fast_enough[0]

    memory_batch = int((group * usable_per_device - weights) // kv_per_sequence)
    largest = max(1, min(pref.MAX_BATCH, memory_batch))
    low, high = 1, largest  # the largest batch that still meets the latency target (latency grows with batch)
    while low < high:
        middle = (low + high + 1) // 2
        if latency_ms(group, middle) <= inference.latency_p99_ms:
            low = middle
        else:
            high = middle - 1
    batch = low
    requests_per_replica = batch / (latency_ms(group, batch) / 1000.0 / P99_OVER_MEAN)
    headroom = pref.HEADROOM_VARIABLE if inference.traffic is Traffic.variable else pref.HEADROOM_STEADY
    replicas = max(1, math.ceil(inference.requests_per_second * headroom / requests_per_replica))
    per_unit = offer.devices_per_unit // group
    units = math.ceil(replicas / per_unit)
    if units > offer.max_units:
        raise Unfit("capacity", f"needs {units} × {offer.machine}; at most {offer.max_units} are available",
                    best=None)
    return InferenceSize(
        units=units, devices=units * offer.devices_per_unit, replicas=replicas, devices_per_replica=group,
        batch=batch, latency_p99_ms=latency_ms(group, batch),
        memory_per_device_gib=(weights + batch * kv_per_sequence) / group / GIB,
        tokens_per_second=inference.requests_per_second * inference.output_tokens)
