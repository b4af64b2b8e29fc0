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
    """671 GB of FP8 weights do not fit 8 x 80 GB: a replica is 2 x 8 H100, TP 8 inside, PP 2 across."""
    spec = serving(DEEPSEEK_V3, inference__latency_p99_ms=60000, inference__requests_per_second=5,
                   inference__input_tokens=2048, inference__output_tokens=512,
                   placement__accelerators=["h100-80gb"])
    result = plan(spec, catalog)
    assert result.accelerator.count // result.estimate.replicas == 16
    assert result.accelerator.nodes == 2 * result.estimate.replicas
    serving_reason = next(reason for reason in result.reasons if reason.startswith("Serving"))
    assert "pipeline parallel 2 across 2 nodes" in serving_reason and "Gbps node network" in serving_reason
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
