"""How much accelerator memory a workload needs (reference/accelerators.md section 8)."""

from __future__ import annotations

import math

from accelfit.planner import preferences as pref
from accelfit.spec import ModelSpec, Precision, TrainingMethod

BYTES_PER_WEIGHT = {Precision.fp32: 4.0, Precision.tf32: 4.0, Precision.bf16: 2.0, Precision.fp16: 2.0,
                    Precision.fp8: 1.0, Precision.int8: 1.0}
GIB = 2.0**30


def training_bytes(parameters: float, precision: Precision, method: TrainingMethod) -> float:
    """Total bytes of training state (weights, grads, optimizer, activations), shardable over all devices."""
    if method is TrainingMethod.lora:
        frozen = parameters * BYTES_PER_WEIGHT[precision]
        adapters = parameters * pref.LORA_ADAPTER_FRACTION * pref.FULL_TRAINING_BYTES_PER_PARAM
        return (frozen + adapters) * pref.ACTIVATION_FACTOR
    return parameters * pref.FULL_TRAINING_BYTES_PER_PARAM * pref.ACTIVATION_FACTOR


def min_devices_for_training(total_bytes: float, memory_gib: float) -> int:
    return max(1, math.ceil(total_bytes / (memory_gib * GIB * pref.USABLE_MEMORY_FRACTION)))


def model_shape(model: ModelSpec) -> tuple[int, int, int]:
    """(layers, kv_heads, head_dim): from the spec when given, else a Llama-like GQA shape derived from N.

    Without architecture fields we assume grouped-query attention with 8 KV heads of 128 dims and a width that
    grows with the cube root of N (d ~ 4096 at 8B, ~8192 at 70B), layers = N / (12·d²). This reproduces
    Llama 3 8B/70B within a few layers; give `layers`, `kv_heads` and `hidden_size` for an exact KV cache.
    """
    hidden = model.hidden_size or int(4096 * (model.parameters / 8e9) ** (1 / 3))
    layers = model.layers or max(1, round(model.parameters / (12 * hidden * hidden)))
    heads = model.attention_heads or max(1, hidden // 128)
    head_dim = max(1, hidden // heads)
    kv_heads = model.kv_heads or min(8, heads)
    return layers, kv_heads, head_dim


def kv_cache_bytes_per_token(model: ModelSpec) -> float:
    """2 (K and V) × layers × kv_heads × head_dim × bytes per element."""
    layers, kv_heads, head_dim = model_shape(model)
    return 2.0 * layers * kv_heads * head_dim * BYTES_PER_WEIGHT[model.precision]


def weights_bytes(model: ModelSpec) -> float:
    return model.parameters * BYTES_PER_WEIGHT[model.precision]
