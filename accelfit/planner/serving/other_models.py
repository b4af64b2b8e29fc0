"""Serving a model that is not a transformer (model.architecture: other), by its compute and memory per sample.

A ranking, vision or speech model answers a request with one forward pass of `gflops_per_sample`; servers batch
requests (TF Serving, Triton dynamic batching), so a batch of b takes a fixed overhead plus b forward passes at the
share of the peak such models reach (data/training_efficiency.yaml, other_models). A request waits for the batch
being served to finish and then for its own: p99 ≈ 2 × the batch time, which must stay under the target less its
headroom. A replica is one accelerator, or the fewest accelerators of a node whose memory holds `memory_gib`
(large embedding tables sharded over them).
"""

from __future__ import annotations

import math

from accelfit.planner import preferences as pref
from accelfit.planner.options import Offer
from accelfit.planner.serving.replica import serving_peak_flops
from accelfit.planner.sizes import InferenceSize, Unfit, latency_budget_ms, peak_factor
from accelfit.planner.training.efficiency import other_model
from accelfit.spec import WorkloadSpec


def batch_seconds(spec: WorkloadSpec, offer: Offer, group: int, batch: int) -> float:
    row = other_model(offer.accelerator.name)
    peak = group * serving_peak_flops(offer.accelerator, spec.model.precision) * row.serving_compute
    return row.batch_overhead_ms / 1000.0 + batch * spec.model.sample_gflops * 1e9 / peak


def p99_ms(spec: WorkloadSpec, offer: Offer, group: int, batch: int) -> float:
    return 2.0 * batch_seconds(spec, offer, group, batch) * 1000.0


def size_other_inference(spec: WorkloadSpec, offer: Offer) -> InferenceSize:
    inference, accelerator = spec.inference_block, offer.accelerator
    usable = accelerator.memory_gib * pref.USABLE_MEMORY_FRACTION
    group = max(1, math.ceil(spec.model.copy_memory_gib / usable))
    if group > offer.devices_per_unit or (offer.tpu_slice is not None and offer.tpu_slice.hosts > 1):
        raise Unfit("memory", f"model.memory_gib {spec.model.memory_gib:,.0f} GiB needs {group} × "
                              f"{accelerator.name}; one {offer.machine} has {offer.devices_per_unit}")
    budget = latency_budget_ms(spec)
    best = p99_ms(spec, offer, group, 1)
    if best > budget:
        raise Unfit("latency", f"p99 about {best:,.1f} ms for a single request on {group} × {accelerator.name}; the "
                               f"target is {inference.latency_p99_ms:g} ms less its {inference.headroom_pct:g}% "
                               f"headroom ({budget:,.1f} ms)", best=best)
    low, high = 1, pref.OTHER_MAX_BATCH
    while low < high:  # the largest batch whose p99 stays within the budget (p99 grows with the batch)
        middle = (low + high + 1) // 2
        if p99_ms(spec, offer, group, middle) <= budget:
            low = middle
        else:
            high = middle - 1
    batch = low
    per_replica = batch / batch_seconds(spec, offer, group, batch)
    headroom = peak_factor(inference)
    replicas = max(1, math.ceil(inference.requests_per_second * headroom / per_replica))
    units = math.ceil(replicas / (offer.devices_per_unit // group))
    if units > offer.max_units:
        raise Unfit("capacity", f"needs {units} × {offer.machine}; at most {offer.max_units} are available")
    row = other_model(accelerator.name)
    lengths = (f"{spec.model.sample_gflops:g} GFLOPs and {spec.model.copy_memory_gib:g} GiB per model copy, batches "
               f"of up to {batch} at {row.serving_compute:.0%} of the {spec.model.precision.value} peak plus "
               f"{row.batch_overhead_ms:g} ms per batch ({row.source})")
    return InferenceSize(
        units=units, devices=units * offer.devices_per_unit, replicas=replicas, devices_per_replica=group,
        batch=batch, latency_p99_ms=p99_ms(spec, offer, group, batch),
        memory_per_device_gib=spec.model.copy_memory_gib / group, tokens_per_second=inference.requests_per_second,
        lengths=lengths, requests_per_replica=per_replica, tensor_parallel_link=accelerator.interconnect,
        tensor_parallel=group)
