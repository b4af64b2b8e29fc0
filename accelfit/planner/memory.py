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
                    Precision.fp8: 1.0, Precision.int8: 1.0,
                    # NVFP4/MXFP4: 4-bit values plus one 8-bit scale per 16 (NVFP4) or 32 (MXFP4) values.
                    Precision.fp4: 0.5625}
# Activations are kept in 16-bit under bf16/fp16/fp8 mixed precision (fp8 recipes keep bf16 activations between
# layers) and in 32-bit for fp32/tf32 training.
BYTES_PER_ACTIVATION = {Precision.fp32: 4.0, Precision.tf32: 4.0, Precision.bf16: 2.0, Precision.fp16: 2.0,
                        Precision.fp8: 2.0, Precision.int8: 2.0, Precision.fp4: 2.0}
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
    state = training_state_bytes(model.total_parameters, model.precision, method) / devices  # the TOTAL: all experts
    # Both per-layer figures shrink as 1/TP: computed once, divided per layout (a plan sizes hundreds of layouts).
    full_at_tp1, kept_at_tp1 = activation_bytes_per_layer(model, 1), checkpoint_bytes_per_layer(model, 1)
    best: TrainingMemory | None = None
    for tensor_parallel in (size for size in (1, 2, 4, 8) if size <= max(1, devices_per_node) and size <= devices):
        # FSDP gathers one layer's weights ahead of the one computing: two layers' weights, split over TP.
        gathered = 2.0 * model.total_parameters / layers * BYTES_PER_WEIGHT[model.precision] / tensor_parallel
        full = full_at_tp1 / tensor_parallel
        kept = kept_at_tp1 / tensor_parallel
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
    # A Mixture-of-Experts model's width and depth follow its active parameters (Mixtral 8x7B: 12.9B active,
    # d = 4096, 32 layers), not its total.
    hidden = model.hidden_size or int(4096 * (model.active / 8e9) ** (1 / 3))
    layers = model.layers or max(1, round(model.active / (12 * hidden * hidden)))
    heads = model.attention_heads or max(1, hidden // 128)
    head_dim = max(1, hidden // heads)
    kv_heads = model.kv_heads or min(8, heads)
    return layers, kv_heads, head_dim, hidden


def model_shape(model: ModelSpec) -> tuple[int, int, int]:
    """(layers, kv_heads, head_dim)."""
    layers, kv_heads, head_dim, _ = model_dims(model)
    return layers, kv_heads, head_dim


def kv_cache_bytes_per_token(model: ModelSpec) -> float:
    """GQA: 2 (K and V) × layers × kv_heads × head_dim × bytes per element. MLA (DeepSeek-V2/V3, arXiv:2405.04434
    section 2.1): one compressed latent of kv_lora_rank plus the decoupled RoPE key per layer, shared by all heads.
    The cache is kept in 16-bit when the weights are 4-bit (engines store FP4 models' KV cache in BF16 or FP8)."""
    element = max(1.0, BYTES_PER_WEIGHT[model.precision])
    if model.attention.value == "mla":
        layers, _, _, _ = model_dims(model)
        latent = (model.kv_lora_rank or 512) + (model.rope_head_dim if model.rope_head_dim is not None else 64)
        return layers * latent * element
    layers, kv_heads, head_dim = model_shape(model)
    return 2.0 * layers * kv_heads * head_dim * element


def weights_bytes(model: ModelSpec) -> float:
    """Every weight held in memory: the TOTAL parameters (all experts of a Mixture-of-Experts model)."""
    return model.total_parameters * BYTES_PER_WEIGHT[model.precision]


def expert_split(model: ModelSpec) -> tuple[float, float, int, int]:
    """(shared parameters, parameters of one routed expert summed over layers, experts, experts per token).

    From total = shared + E·e and active = shared + k·e: e = (total − active) / (E − k). Without `experts` and
    `experts_per_token` the routed share is taken as all of (total − active) spread over 8 experts with 2 active
    (Mixtral's layout), which only shapes how fast a growing batch touches every expert."""
    experts = model.experts or 8
    per_token = model.experts_per_token or min(2, experts - 1)
    if not model.is_moe or experts <= per_token:
        return model.total_parameters, 0.0, 1, 1
    expert = (model.total_parameters - model.active) / (experts - per_token)
    shared = max(0.0, model.total_parameters - experts * expert)
    return shared, expert, experts, per_token


def weights_read_bytes(model: ModelSpec, tokens: float) -> float:
    """Weight bytes one decode step reads for `tokens` tokens in the step. Dense: every weight once. MoE: the shared
    weights plus each expert the step's tokens route to; with uniform routing a given expert is untouched by all
    `tokens` with probability (1 − k/E)^tokens, so a batch of one reads the active weights and a large batch reads
    them all (Mixtral: 2 of 8 experts per token, half the experts untouched at 2 tokens, nearly none at 32)."""
    shared, expert, experts, per_token = expert_split(model)
    if expert == 0.0:
        return weights_bytes(model)
    touched: float = experts * (1.0 - (1.0 - per_token / experts) ** max(1.0, tokens))  # float ** float: Any
    return (shared + touched * expert) * BYTES_PER_WEIGHT[model.precision]
