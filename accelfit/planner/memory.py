"""How much accelerator memory a workload needs (reference/accelerators.md section 8).

Training: the optimizer state (16 bytes/parameter with mixed-precision Adam) sharded over every device
(ZeRO-3/FSDP), the gathered weights of the layers being computed, and the activations of one micro-batch, which
do not shrink with the device count: only tensor parallelism inside a node and activation recomputation cut
them. Inference: weights plus the paged KV cache of the sequences in flight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelfit.planner import preferences as pref
from accelfit.spec import ModelSpec, Precision, TrainingMethod

BYTES_PER_WEIGHT = {Precision.fp32: 4.0, Precision.tf32: 4.0, Precision.bf16: 2.0, Precision.fp16: 2.0,
                    Precision.fp8: 1.0, Precision.int8: 1.0}
# Activations are kept in 16-bit under bf16/fp16/fp8 mixed precision (fp8 recipes keep bf16 activations between
# layers) and in 32-bit for fp32/tf32 training.
BYTES_PER_ACTIVATION = {Precision.fp32: 4.0, Precision.tf32: 4.0, Precision.bf16: 2.0, Precision.fp16: 2.0,
                        Precision.fp8: 2.0, Precision.int8: 2.0}
GIB = 2.0**30


def training_state_bytes(parameters: float, precision: Precision, method: TrainingMethod) -> float:
    """Weights, gradients and optimizer state, all shardable over every device (ZeRO-3/FSDP)."""
    if method is TrainingMethod.lora:
        frozen = parameters * BYTES_PER_WEIGHT[precision]
        adapters = parameters * pref.LORA_ADAPTER_FRACTION * pref.FULL_TRAINING_BYTES_PER_PARAM
        return frozen + adapters
    return parameters * pref.FULL_TRAINING_BYTES_PER_PARAM


def training_sequence_tokens(model: ModelSpec) -> int:
    return model.context_tokens or pref.TRAINING_SEQUENCE_TOKENS


@dataclass(frozen=True)
class TrainingMemory:
    """Bytes per device for one layout: state shard + gathered layer weights + activations of one micro-batch."""

    state_bytes: float
    gathered_weight_bytes: float
    activation_bytes: float
    tensor_parallel: int
    recompute_fraction: float  # share of layers whose activations are recomputed in the backward pass

    @property
    def total_bytes(self) -> float:
        return self.state_bytes + self.gathered_weight_bytes + self.activation_bytes


def activation_bytes_per_layer(model: ModelSpec, tensor_parallel: int) -> float:
    """Activations one transformer layer keeps for the backward pass, one sequence, sequence parallel over TP.

    Korthikanti et al. 2022 (arXiv:2205.05198, section 4.1): s·b·h·(34 + 5·a·s/h) bytes per layer in 16-bit;
    FlashAttention never materialises the a·s² score matrix, which leaves 34·s·h (b = 1 sequence here).
    """
    _, _, _, hidden = model_dims(model)
    scale = BYTES_PER_ACTIVATION[model.precision] / 2.0
    return 34.0 * training_sequence_tokens(model) * hidden * scale / tensor_parallel


def checkpoint_bytes_per_layer(model: ModelSpec, tensor_parallel: int) -> float:
    """With full recomputation a layer keeps only its input: s·h values (2 bytes each in 16-bit)."""
    _, _, _, hidden = model_dims(model)
    return 2.0 * training_sequence_tokens(model) * hidden * BYTES_PER_ACTIVATION[model.precision] / 2.0 \
        / tensor_parallel


def training_memory(model: ModelSpec, method: TrainingMethod, devices: int, memory_gib: float,
                    devices_per_node: int) -> TrainingMemory | None:
    """The cheapest layout that fits `devices` devices of `memory_gib`, or None when none does.

    Layouts tried: tensor parallelism 1, 2, 4, 8 within a node (smallest first: it costs communication), each
    without recomputation, then recomputing the fewest layers that make it fit (Megatron's
    --recompute-num-layers); a larger TP group is chosen only when a smaller one would need recomputation.
    """
    usable = memory_gib * GIB * pref.USABLE_MEMORY_FRACTION
    layers, _, _, _ = model_dims(model)
    state = training_state_bytes(model.parameters, model.precision, method) / devices
    best: TrainingMemory | None = None
    for tensor_parallel in (size for size in (1, 2, 4, 8) if size <= max(1, devices_per_node) and size <= devices):
        # FSDP gathers one layer's weights ahead of the one computing: two layers' weights, split over TP.
        gathered = 2.0 * model.parameters / layers * BYTES_PER_WEIGHT[model.precision] / tensor_parallel
        full = activation_bytes_per_layer(model, tensor_parallel)
        kept = checkpoint_bytes_per_layer(model, tensor_parallel)
        room = usable - state - gathered
        if room >= layers * full:
            return TrainingMemory(state, gathered, layers * full, tensor_parallel, 0.0)
        # Recomputing r layers keeps r·kept + (L - r)·full, plus one layer's full activations while recomputing.
        if full <= kept or room < layers * kept + full:
            continue
        recomputed = math.ceil((layers * full + full - room) / (full - kept))
        recomputed = min(layers, max(0, recomputed))
        activations = recomputed * kept + (layers - recomputed) * full + (full if recomputed else 0.0)
        if activations > room:
            continue
        layout = TrainingMemory(state, gathered, activations, tensor_parallel, recomputed / layers)
        if best is None or layout.recompute_fraction < best.recompute_fraction:
            best = layout
    return best


def model_dims(model: ModelSpec) -> tuple[int, int, int, int]:
    """(layers, kv_heads, head_dim, hidden): from the spec when given, else a Llama-like GQA shape derived from N.

    Without architecture fields we assume grouped-query attention with 8 KV heads of 128 dims and a width that
    grows with the cube root of N (d ~ 4096 at 8B, ~8192 at 70B), layers = N / (12·d²). This reproduces
    Llama 3 8B/70B within a few layers; give `layers`, `kv_heads` and `hidden_size` for an exact KV cache.
    """
    hidden = model.hidden_size or int(4096 * (model.parameters / 8e9) ** (1 / 3))
    layers = model.layers or max(1, round(model.parameters / (12 * hidden * hidden)))
    heads = model.attention_heads or max(1, hidden // 128)
    head_dim = max(1, hidden // heads)
    kv_heads = model.kv_heads or min(8, heads)
    return layers, kv_heads, head_dim, hidden


def model_shape(model: ModelSpec) -> tuple[int, int, int]:
    """(layers, kv_heads, head_dim)."""
    layers, kv_heads, head_dim, _ = model_dims(model)
    return layers, kv_heads, head_dim


def kv_cache_bytes_per_token(model: ModelSpec) -> float:
    """2 (K and V) × layers × kv_heads × head_dim × bytes per element."""
    layers, kv_heads, head_dim = model_shape(model)
    return 2.0 * layers * kv_heads * head_dim * BYTES_PER_WEIGHT[model.precision]


def weights_bytes(model: ModelSpec) -> float:
    return model.parameters * BYTES_PER_WEIGHT[model.precision]
