"""The plan's serving section: the server and why, each serving pool in route order, built from the planner's own
sizing (never sized twice), with latency figures and margins, and the weights' cloud binding the choice."""

import math

import pytest
from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.planner import plan, plan_fleet
from accelfit.planner.memory import weights_bytes
from accelfit.planner.planner import Environment
from accelfit.planner.serving.weights_read import read_gbps, startup, weights_read_data


GPUS = ["l4", "a10g", "l40s", "a100-40gb", "a100-80gb", "h100-80gb", "h200-141gb", "b200"]


def _plan(catalog, **changes):
    """The base serving spec on GPUs (a TPU v6e slice is cheaper for it since issue 34's load model)."""
    return plan(make_spec(INFERENCE, **({"placement__accelerators": GPUS} | changes)), catalog)


def test_training_plans_have_no_serving_section_and_serialize_as_before(catalog):
    result = plan(make_spec(TRAINING), catalog)
    assert result.serving is None
    assert "serving" not in result.to_json_dict()


def test_without_weights_the_server_is_none_and_the_plan_says_why(catalog):
    serving = _plan(catalog).serving
    assert serving.server == "none"
    assert "defaults to none because model.weights is not set" in serving.why
    assert serving.pools and serving.pools[0].weights_load_seconds is None


def test_with_gcs_weights_the_server_is_vllm_and_only_gke_is_considered(catalog):
    result = _plan(catalog, model__weights="gs://acme-models/llama-3.1-8b")
    assert result.serving.server == "vllm" and "defaults to vllm" in result.serving.why
    assert result.platform.value.startswith("gke-")
    weights_rules = [rejection for rejection in result.rejected if rejection.rule == "weights"]
    assert weights_rules and all("eks-gpu" in rejection.reason for rejection in weights_rules)
    assert result.serving.weights_reader == "gcs-fuse"


def test_s3_weights_bind_the_plan_to_eks(catalog):
    result = _plan(catalog, model__weights="s3://acme-models/llama-3.1-8b")
    assert result.platform.value == "eks-gpu"
    assert result.serving.weights_reader == "runai-streamer"


def test_the_pool_is_the_planned_sizing(catalog):
    result = _plan(catalog, model__weights="gs://acme-models/llama-3.1-8b")
    pool = result.serving.pools[0]
    assert pool.rank == 1 and pool.fallback_rank == 0 and pool.node_pools == ("gpu",)
    assert pool.accelerator == result.accelerator.name
    assert pool.replicas_at_rate == result.estimate.replicas
    assert pool.e2e_p99_ms == pytest.approx(result.estimate.latency_p99_ms, abs=0.1)
    chosen_note = next(reason for reason in result.reasons if reason.startswith("Serving "))
    assert f"batch {pool.max_num_seqs}," in chosen_note
    assert f"{pool.replicas_at_rate} replicas of {pool.chips_per_replica} ×" in chosen_note
    gpu = next(p for p in result.node_pools if p.name == "gpu")
    assert pool.replicas_max == gpu.max_nodes * (gpu.accelerators_per_node // pool.chips_per_replica)
    assert 1 <= pool.replicas_min <= pool.replicas_at_rate
    assert pool.dtype == "bfloat16" and pool.quantization is None
    assert pool.gpu_memory_utilization == 0.9
    assert pool.max_model_len == 1024 + 256  # fixed lengths: prompt plus answer


def test_fp8_serves_bf16_activations_with_the_checkpoints_own_quantization(catalog):
    """model.quantization auto (the default): no --quantization, vLLM reads the checkpoint's config (issue 33)."""
    pool = _plan(catalog, model__precision="fp8", placement__accelerators=["h100-80gb"]).serving.pools[0]
    assert (pool.dtype, pool.quantization) == ("bfloat16", None)
    named = _plan(catalog, model__precision="fp8", model__quantization="fp8", model__weights="gs://acme/llama-fp8",
                  placement__accelerators=["h100-80gb"]).serving.pools[0]
    assert (named.dtype, named.quantization) == ("bfloat16", "fp8")


def test_latency_figures_and_margins_against_each_target(catalog):
    result = _plan(catalog, inference__ttft_p99_ms=2000, inference__tpot_p99_ms=5)
    serving, pool = result.serving, result.serving.pools[0]
    assert (serving.ttft_target_ms, serving.tpot_target_ms, serving.e2e_target_ms) == (2000, 5, 4000)
    assert pool.ttft_p99_ms < pool.e2e_p99_ms and pool.tpot_p99_ms < pool.ttft_p99_ms
    assert pool.ttft_margin == pytest.approx((2000 - pool.ttft_p99_ms) / 2000, abs=1e-3)
    assert pool.tpot_margin == pytest.approx((5 - pool.tpot_p99_ms) / 5, abs=1e-3)
    # A 5 ms TPOT binds the plan (issue 34): every margin keeps inference.headroom_pct (20%), none is over.
    assert min(pool.ttft_margin, pool.tpot_margin, pool.e2e_margin) >= 0.2 - 1e-3


def test_weights_load_time_is_the_model_over_the_sourced_read_rate(catalog):
    spec = make_spec(INFERENCE, model__weights="gs://acme-models/llama-3.1-8b", placement__accelerators=GPUS)
    result = plan(spec, catalog)
    pool = result.serving.pools[0]
    network = catalog.instance_type("gcp", pool.machine_type).network_gbps
    rate = read_gbps("gs", network)
    assert pool.weights_read_gbps == pytest.approx(rate, abs=0.01)
    assert pool.weights_load_seconds == pytest.approx(weights_bytes(spec.model) * 8 / (rate * 1e9), abs=0.1)
    assert pool.startup_seconds == startup("gpu").seconds
    assert all(row.source and row.as_of for row in weights_read_data().sources)


def test_a_model_larger_than_a_node_is_a_multi_node_group(catalog):
    result = _plan(catalog, model__parameters="405B", inference__latency_p99_ms=60000,
                   inference__requests_per_second=2, placement__accelerators=["h100-80gb"], placement__clouds=["aws"],
                   model__weights="s3://acme-models/llama-405b")
    pool = result.serving.pools[0]
    assert (pool.tensor_parallel, pool.pipeline_parallel, pool.nodes_per_replica) == (8, 2, 2)
    assert pool.chips_per_replica == 16
    # each node reads its pipeline stage's half of the weights
    assert pool.weights_load_seconds == pytest.approx(
        weights_bytes(make_spec(INFERENCE, model__parameters="405B").model) / 2 * 8 / (pool.weights_read_gbps * 1e9),
        abs=0.2)


def test_the_fleet_route_lists_the_planned_pool_then_its_standby_pools_in_chain_order(catalog):
    spec = make_spec(INFERENCE, model__weights="gs://acme-models/llama-3.1-8b", placement__clouds=["gcp"],
                     placement__regions=["us-central1"], placement__accelerators=["l4"],
                     inference__latency_p99_ms=15000)
    fleet, _ = plan_fleet([spec], catalog, Environment(), None, fleet_name=None)
    member = fleet.workloads[0]
    serving = member.plan.serving
    ranks = [pool.rank for pool in serving.pools]
    assert ranks == sorted(ranks) and ranks[0] == 1
    standby = {step.rank: step for step in member.fallback if step.pool}
    assert [pool.rank for pool in serving.pools[1:]] == [rank for rank in sorted(standby) if rank > 1]
    for pool in serving.pools[1:]:
        assert pool.replicas_min == 0 and pool.node_pools[0] == standby[pool.rank].pool
        assert pool.pricing == standby[pool.rank].option.rsplit("/", 1)[1]
    assert serving.route.startswith(f"the planned pool {serving.pools[0].node_pools[0]}")


def test_replicas_min_carries_the_planned_rate_without_the_headroom(catalog):
    result = _plan(catalog, inference__requests_per_second=40)
    pool = result.serving.pools[0]
    note = next(reason for reason in result.reasons if reason.startswith("Serving "))
    per_replica = float(note.split("about ")[1].split(" req/s")[0])  # printed to 2 decimals
    assert pool.replicas_min == min(math.ceil(40 / per_replica), pool.replicas_max)
    assert pool.replicas_min < pool.replicas_at_rate  # the 1.3x headroom of variable traffic is above the minimum


def test_text_and_markdown_show_the_server_the_route_and_each_pool(catalog):
    from accelfit.reports.plan_report import render_markdown, render_text

    result = _plan(catalog, model__weights="gs://acme-models/llama-3.1-8b", inference__ttft_p99_ms=2000)
    pool = result.serving.pools[0]
    for rendered in (render_text(result), render_markdown(result)):
        assert "defaults to vllm because model.weights is set" in rendered
        assert "gs://acme-models/llama-3.1-8b" in rendered and "gcs-fuse" in rendered
        assert f"{pool.ttft_p99_ms:,.1f} ({pool.ttft_margin:.0%} under 2000)" in rendered
        assert f"{pool.tensor_parallel} x {pool.pipeline_parallel}" in rendered
    assert "Serving" not in render_text(plan(make_spec(TRAINING), catalog))
