"""Mixture-of-Experts serving: memory from the total, FLOPs from the active parameters, weights read by the experts
a batch touches, and groups over several nodes when one node cannot hold the model (published configs)."""

import pytest

from planner_specs import INFERENCE, make_spec

from accelfit.planner import plan
from accelfit.planner.memory import GIB, kv_cache_bytes_per_token, weights_bytes, weights_read_bytes
from accelfit.spec import ModelSpec

# Mistral AI, "Mixtral of experts" (arXiv:2401.04088): 46.7B total, 12.9B active, 8 experts, 2 per token,
# 32 layers, d_model 4096, 32 heads, 8 KV heads.
MIXTRAL = {"parameters": 46.7e9, "active_parameters": 12.9e9, "experts": 8, "experts_per_token": 2,
           "precision": "bf16", "layers": 32, "hidden_size": 4096, "attention_heads": 32, "kv_heads": 8,
           "context_tokens": 32768}
# DeepSeek-AI, DeepSeek-V3 Technical Report (arXiv:2412.19437) section 4.2: 671B total, 37B active, 61 layers,
# d_model 7168, 128 heads, MLA with a 512-wide KV latent and 64-wide decoupled RoPE key, 256 routed experts, 8 per token.
DEEPSEEK_V3 = {"parameters": 671e9, "active_parameters": 37e9, "experts": 256, "experts_per_token": 8,
               "precision": "fp8", "layers": 61, "hidden_size": 7168, "attention_heads": 128, "attention": "mla",
               "kv_lora_rank": 512, "rope_head_dim": 64, "context_tokens": 32768}


def serving(model: dict, **changes):
    fields = {f"model__{key}": value for key, value in model.items()}
    return make_spec(INFERENCE, **{"model__parameters": None, **fields, **changes})


def test_mixtral_memory_is_sized_from_the_total(catalog):
    """87 GiB of bf16 weights: never one A100-40GB (which the active 12.9B alone would fit)."""
    spec = serving(MIXTRAL, inference__latency_p99_ms=20000, inference__requests_per_second=10)
    assert weights_bytes(spec.model) / GIB == pytest.approx(87.0, abs=0.5)
    result = plan(spec, catalog)
    per_replica = result.accelerator.count // result.estimate.replicas
    assert per_replica * catalog.accelerator(result.accelerator.name).memory_gib >= 87
    assert result.estimate.memory_per_device_gib * per_replica >= 87 * 1.1 * 0.99


def test_weights_read_grow_with_the_batch_from_active_to_total():
    model = ModelSpec(**MIXTRAL)
    one = weights_read_bytes(model, 1)
    assert one == pytest.approx(model.active * 2, rel=0.01)  # one token reads its 2 experts and the shared weights
    assert weights_read_bytes(model, 4) > one
    assert weights_read_bytes(model, 64) == pytest.approx(model.parameters * 2, rel=0.01)  # every expert touched


def test_mla_keeps_a_small_kv_cache():
    """MLA caches 576 values per layer and token; the same model with 128 full KV heads would cache 128 x 2 x 56."""
    mla = ModelSpec(**DEEPSEEK_V3)
    assert kv_cache_bytes_per_token(mla) == 61 * (512 + 64) * 1.0
    gqa = ModelSpec(**{**DEEPSEEK_V3, "attention": "gqa", "kv_lora_rank": None, "rope_head_dim": None,
                       "kv_heads": 128})
    assert kv_cache_bytes_per_token(gqa) > 20 * kv_cache_bytes_per_token(mla)


def test_deepseek_v3_spans_two_h100_nodes(catalog):
    """671 GB of FP8 weights do not fit 8 x 80 GB: a replica is 2 x 8 H100, TP 8 inside, the experts expert parallel
    over both nodes (vLLM's data-parallel attention with --enable-expert-parallel)."""
    spec = serving(DEEPSEEK_V3, inference__latency_p99_ms=60000, inference__requests_per_second=5,
                   inference__input_tokens=2048, inference__output_tokens=512,
                   placement__accelerators=["h100-80gb"])
    result = plan(spec, catalog)
    assert result.accelerator.count // result.estimate.replicas == 16
    assert result.accelerator.nodes == 2 * result.estimate.replicas
    serving_reason = next(reason for reason in result.reasons if reason.startswith("Serving"))
    assert "expert parallel over all 16 GPUs" in serving_reason and "Gbps node network" in serving_reason
    for pool in result.serving.pools if result.serving else ():
        assert (pool.tensor_parallel, pool.pipeline_parallel, pool.data_parallel, pool.expert_parallel) == \
            (8, 1, 2, True)
    assert result.estimate.latency_p99_ms <= 60000 * 0.8


def test_deepseek_v3_on_a_tpu_v6e_slice(catalog):
    """On TPU v6e (no FP8; INT8 weights) a replica is a multi-host slice, tensor parallel over ICI."""
    spec = serving({**DEEPSEEK_V3, "precision": "int8"}, framework="jax", inference__traffic="steady",
                   inference__latency_p99_ms=60000, inference__requests_per_second=5,
                   inference__input_tokens=2048, inference__output_tokens=512,
                   placement__clouds=["gcp"], placement__accelerators=["tpu-v6e"])
    result = plan(spec, catalog)
    assert result.accelerator.kind == "tpu"
    assert catalog.tpu_slice(result.accelerator.slice).hosts > 1
    assert result.accelerator.count // result.estimate.replicas * 29.8 * 0.9 > 671 / 1.0737


def test_a_model_that_fits_one_host_is_not_served_on_a_multi_host_slice(catalog):
    result = plan(make_spec(INFERENCE, framework="jax", inference__traffic="steady", placement__clouds=["gcp"],
                            placement__accelerators=["tpu-v6e"]), catalog)
    assert catalog.tpu_slice(result.accelerator.slice).hosts == 1
    assert any(rejection.rule == "tpu-serving" and "fits one host" in rejection.reason
               for rejection in result.rejected)


# --- Small-batch decode of a MoE over several nodes: the active experts' bytes and the all-to-alls' latency ---

def _deepseek_model(catalog, network_gbps=3200.0, expert_parallel=True):
    from accelfit.planner.serving.lengths import lengths_for
    from accelfit.planner.serving.replica import Efficiency, ReplicaModel
    from accelfit.planner.serving.engine_figures import efficiency_for

    row = efficiency_for("h100-80gb")
    return ReplicaModel(catalog.accelerator("h100-80gb"), ModelSpec(**DEEPSEEK_V3), lengths_for(2048, 512, None),
                        Efficiency(row.decode_bandwidth, row.prefill_compute), chips_per_node=8,
                        node_network_gbps=network_gbps, expert_parallel=expert_parallel)


def test_batch_one_decode_is_the_active_experts_bytes_plus_the_all_to_all_latency_per_layer(catalog):
    """One sequence on 2 x 8 H100 (p5.48xlarge, 3,200 Gbps): each node's 8 GPUs read the shared weights, the GPU
    holding the busiest expert reads one routed expert per layer (8 of 256 over 16 GPUs), and each of the 61 layers
    pays two all-to-alls (DeepEP-derived 25 us each, plus 8 x 7,168 x 2 bytes of which half leave the node)."""
    from accelfit.planner.memory import expert_split
    from accelfit.planner.serving.engine_figures import expert_parallel_link

    model = _deepseek_model(catalog)
    accelerator = model.accelerator
    bandwidth = accelerator.memory_bandwidth_gbps * 1e9 * model.efficiency.decode_bandwidth
    shared, expert, _, _ = expert_split(model.model)
    weights = (shared / 8 + expert) * 1.0 / bandwidth  # fp8: one byte per weight
    link = expert_parallel_link()
    one = link.latency_us * 1e-6 + 8 * 7168 * 2 * 0.5 / (3200 / 8 * 1e9 * link.efficiency)
    all_to_all = 2 * 61 * one
    step = model.step_with(16, 1, 0.0, 0.0, 0.0)
    expected = weights + model.allreduce_seconds(8, 1) + all_to_all
    assert step.seconds == pytest.approx(expected, rel=1e-6)
    assert all_to_all == pytest.approx(2 * 61 * 25e-6, rel=0.01)  # latency-bound at one token
    # the active experts' bytes, not the whole model's: far below reading 671 GB over 16 GPUs' bandwidth
    assert weights < 0.3 * 671e9 / (16 * bandwidth)


def test_the_interconnects_latency_and_bandwidth_move_the_decode(catalog, monkeypatch):
    from accelfit.planner.serving import replica as serving_module
    from accelfit.planner.serving.engine_figures import expert_parallel_link

    base = _deepseek_model(catalog).step_with(16, 1, 0.0, 0.0, 0.0).seconds
    slower = expert_parallel_link().model_copy(update={"latency_us": 50.0})
    monkeypatch.setattr(serving_module, "expert_parallel_link", lambda: slower)
    assert _deepseek_model(catalog).step_with(16, 1, 0.0, 0.0, 0.0).seconds == pytest.approx(
        base + 2 * 61 * 25e-6, rel=1e-6)
    monkeypatch.undo()
    # at a batch of 64 the bytes matter: a quarter of the node network makes the step slower
    fast = _deepseek_model(catalog, 3200.0).step_with(16, 64, 64 * 2048.0, 0.0, 0.0).seconds
    narrow = _deepseek_model(catalog, 800.0).step_with(16, 64, 64 * 2048.0, 0.0, 0.0).seconds
    assert narrow > fast * 1.05


def test_an_engine_without_expert_parallel_over_nodes_keeps_pipeline_stages(catalog):
    """SGLang is built tensor parallel per node and pipeline parallel across (its flags): modelled so."""
    spec = serving(DEEPSEEK_V3, inference__latency_p99_ms=60000, inference__requests_per_second=5,
                   inference__input_tokens=2048, inference__output_tokens=512, inference__server="sglang",
                   model__weights="hf://deepseek-ai/DeepSeek-V3", model__weights_token="accelfit:hfToken",
                   placement__clouds=["aws"],
                   placement__accelerators=["h100-80gb"])
    result = plan(spec, catalog)
    serving_reason = next(reason for reason in result.reasons if reason.startswith("Serving"))
    assert "pipeline parallel 2 across 2 nodes" in serving_reason
    [pool] = result.serving.pools[:1]
    assert (pool.pipeline_parallel, pool.data_parallel, pool.expert_parallel) == (2, 1, False)
