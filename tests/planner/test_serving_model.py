"""The inference model's parts, each shown changing the answer the way the hardware does."""

import math

from planner_specs import INFERENCE, make_spec

from accelfit.planner.serving.lengths import request_lengths
from accelfit.planner.options import Offer
from accelfit.planner.serving.replica import serving_peak_flops
from accelfit.planner.serving.sizing import replica_model, size_inference, usable_batch
from accelfit.planner.training.sizing import peak_flops
from accelfit.spec import Precision


def offer_of(catalog, accelerator, devices):
    return Offer(platform="eks-gpu", cloud="aws", region="us-east-1", zones=("us-east-1a",),
                 accelerator=catalog.accelerator(accelerator), machine="test", devices_per_unit=devices,
                 max_units=10_000)


def test_serving_uses_the_precisions_own_peak_and_training_the_bf16_one(catalog):
    h100 = catalog.accelerator("h100-80gb")
    assert serving_peak_flops(h100, Precision.fp8) > 1.99 * serving_peak_flops(h100, Precision.bf16)
    assert peak_flops(h100, Precision.fp8) == peak_flops(h100, Precision.bf16)  # MFU figures are BF16-based
    v5e = catalog.accelerator("tpu-v5e")
    assert serving_peak_flops(v5e, Precision.int8) > 1.9 * serving_peak_flops(v5e, Precision.bf16)


def test_tensor_parallelism_over_pcie_costs_more_than_over_nvlink(catalog):
    spec = make_spec(INFERENCE)
    over_pcie = replica_model(spec, catalog.accelerator("l40s")).allreduce_seconds(4, 256)
    over_nvlink = replica_model(spec, catalog.accelerator("h100-80gb")).allreduce_seconds(4, 256)
    assert over_pcie > 2 * over_nvlink > 0
    assert replica_model(spec, catalog.accelerator("l40s")).allreduce_seconds(1, 256) == 0


def test_attention_flops_and_prefill_interference_lengthen_the_step(catalog):
    h100 = catalog.accelerator("h100-80gb")
    short = replica_model(make_spec(INFERENCE, inference__input_tokens=256), h100)
    long = replica_model(make_spec(INFERENCE, inference__input_tokens=8192), h100)
    assert long.attention_flops_per_token(8192) > 30 * short.attention_flops_per_token(256)
    assert long.step(1, 64).compute_seconds > 4 * short.step(1, 64).compute_seconds


def test_paged_kv_cache_holds_actual_lengths_not_the_full_context(catalog):
    spec = make_spec(INFERENCE, model__context_tokens=32768, inference__input_tokens=512,
                     inference__output_tokens=128)
    model = replica_model(spec, catalog.accelerator("h100-80gb"))
    batch = usable_batch(model, 1)
    room = 80 * 2**30 * 0.9 - model.weights * 1.1
    reserved_in_full = room // (32768 * model.kv_bytes_per_sequence(16) / model.lengths.kv_tokens_in_flight)
    assert batch > 10 * reserved_in_full


def test_p99_comes_from_the_length_distribution_the_spec_implies():
    fixed = request_lengths(make_spec(INFERENCE).inference, make_spec(INFERENCE).model)
    assert fixed.p99_output == fixed.mean_output == 256 and not fixed.varying
    varying_spec = make_spec(INFERENCE, model__context_tokens=65536)
    varying = request_lengths(varying_spec.inference, varying_spec.model)
    assert math.isclose(varying.p99_output, 256 * math.log(100), rel_tol=0.02)
    capped_spec = make_spec(INFERENCE, model__context_tokens=1024 + 400)
    capped = request_lengths(capped_spec.inference, capped_spec.model)
    assert capped.p99_output <= 400


def test_a_larger_tensor_parallel_group_wins_when_weights_leave_no_room_for_kv(catalog):
    # 70B in FP8 is ~70 GB: on one H100 it leaves almost no KV cache, so batch 1; two or more chips per replica
    # serve far more per chip. The search takes the group that needs the fewest nodes.
    spec = make_spec(INFERENCE, model__parameters="70B", model__precision="fp8", inference__requests_per_second=20,
                     inference__latency_p99_ms=30000, inference__traffic="steady")
    size = size_inference(spec, offer_of(catalog, "h100-80gb", 8))
    assert size.devices_per_replica >= 2 and size.batch > 32
    assert size.devices <= 16
