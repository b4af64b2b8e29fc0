"""How fast one serving replica runs: a tensor-parallel group of `group` chips holding `batch` sequences in flight.

One engine step (continuous batching with chunked prefill) decodes one token for every sequence in flight and
processes its share of new prompts: in steady state a sequence finishes every `output` steps, so each step also
prefills batch × input / output prompt tokens, and that prefill slows every decode in the step (prefill/decode
interference). A step is
  - the weight matmuls: the longer of streaming all weights (group × bandwidth × decode efficiency) and their
    2·N FLOPs per token (group × the precision's own dense peak × prefill efficiency), then
  - attention: the longer of reading every sequence's KV cache and its FLOPs (4 · layers · context · d_model per
    token, the causal half of the prompt for prefill), which runs in its own kernels after the matmuls, then
  - the tensor-parallel all-reduces: two per layer, each moving the step's activations over the chips' link
(NVLink or ICI, or PCIe on L4/L40S/A10G, where they are far from free).
"""

from __future__ import annotations

from dataclasses import dataclass

from accelfit.catalog.models import Accelerator
from accelfit.planner.lengths import Lengths
from accelfit.planner.memory import kv_cache_bytes_per_token, model_dims, weights_bytes
from accelfit.planner.serving_data import tensor_parallel_link
from accelfit.spec import ModelSpec, Precision

# Activations exchanged by tensor-parallel all-reduces are 16-bit in every engine modelled here.
ALLREDUCE_BYTES_PER_VALUE = 2.0


def serving_peak_flops(accelerator: Accelerator, precision: Precision) -> float:
    """The precision's own dense peak (FP8 on H100 is twice BF16, INT8 on TPU v5e twice BF16); catalog data."""
    if precision in accelerator.dense_tflops:
        return accelerator.dense_tflops[precision] * 1e12
    return accelerator.dense_tflops[Precision.bf16] * 1e12


@dataclass(frozen=True)
class Efficiency:
    decode_bandwidth: float
    prefill_compute: float


@dataclass(frozen=True)
class Step:
    seconds: float
    memory_seconds: float
    compute_seconds: float
    allreduce_seconds: float


@dataclass(frozen=True)
class ReplicaModel:
    """The per-replica performance model for one accelerator, model, precision and request lengths."""

    accelerator: Accelerator
    model: ModelSpec
    lengths: Lengths
    efficiency: Efficiency
    sequences_per_request: int = 1  # beam search keeps several sequences per request

    @property
    def weights(self) -> float:
        return weights_bytes(self.model)

    def attention_flops_per_token(self, context: float) -> float:
        """QKᵀ and AV for one new token against `context` earlier tokens: 2 matmuls × 2 FLOPs × layers × d_attn."""
        layers, _, _, hidden = model_dims(self.model)
        return 4.0 * layers * context * hidden

    def step(self, group: int, batch: int) -> Step:
        """A steady-state step: `batch` sequences in flight, each holding the mean KV tokens of a sequence in flight,
        and the batch's share of new prompts (batch × input / output tokens) prefilled within the step."""
        lengths = self.lengths
        requests_in_flight = batch / self.sequences_per_request
        prefill_tokens = requests_in_flight * lengths.mean_input / lengths.mean_output
        return self.step_with(group, batch, batch * lengths.kv_tokens_in_flight, prefill_tokens,
                              lengths.mean_input / 2.0)

    def step_with(self, group: int, sequences: float, kv_tokens: float, prefill_tokens: float,
                  prefill_context: float) -> Step:
        """One step that decodes a token for each of `sequences` (holding `kv_tokens` of KV cache between them) and
        prefills `prefill_tokens` prompt tokens, each attending to `prefill_context` earlier tokens on average."""
        kv_per_token = kv_cache_bytes_per_token(self.model)
        bandwidth = group * self.accelerator.memory_bandwidth_gbps * 1e9 * self.efficiency.decode_bandwidth
        peak = group * serving_peak_flops(self.accelerator, self.model.precision) * self.efficiency.prefill_compute
        dense = 2.0 * self.model.parameters
        # The weight matmuls stream the weights while they compute: the slower of the two.
        matmul = max(self.weights / bandwidth, (sequences + prefill_tokens) * dense / peak)
        # Attention runs after them (its own kernels): decode reads every sequence's KV cache, prefill computes the
        # causal score matrix; each the slower of its reading and its math.
        kv_read = kv_tokens * kv_per_token / bandwidth
        attention_flops = (self.attention_flops_per_token(1.0) * kv_tokens
                           + prefill_tokens * self.attention_flops_per_token(prefill_context))
        attention = max(kv_read, attention_flops / peak)
        allreduce = self.allreduce_seconds(group, sequences + prefill_tokens)
        memory = self.weights / bandwidth + kv_read
        compute = ((sequences + prefill_tokens) * dense + attention_flops) / peak
        return Step(matmul + attention + allreduce, memory, compute, allreduce)

    def allreduce_seconds(self, group: int, tokens: float) -> float:
        if group <= 1:
            return 0.0
        layers, _, _, hidden = model_dims(self.model)
        link = tensor_parallel_link(self.accelerator)
        message = tokens * hidden * ALLREDUCE_BYTES_PER_VALUE
        # Ring all-reduce moves 2·(g−1)/g of the message over each chip's link.
        one = 2.0 * (group - 1) / group * message / link.bytes_per_second + link.latency_seconds
        return 2 * layers * one

    def prefill_seconds(self, group: int, input_tokens: float) -> float:
        """Time to first token for one prompt run alone at full compute (chunked prefill runs it within steps)."""
        dense = 2.0 * self.model.parameters
        flops = input_tokens * (dense + self.attention_flops_per_token(input_tokens / 2.0))
        peak = group * serving_peak_flops(self.accelerator, self.model.precision) * self.efficiency.prefill_compute
        bandwidth = group * self.accelerator.memory_bandwidth_gbps * 1e9 * self.efficiency.decode_bandwidth
        return max(flops / peak, self.weights / bandwidth) + self.allreduce_seconds(group, input_tokens)

    def p99_latency_seconds(self, group: int, batch: int) -> float:
        """A p99-length request: its prompt's prefill, one step waiting for admission, then its p99 output length of
        steps at this batch (each step already carries the batch's share of other prompts' prefill)."""
        step = self.step(group, batch).seconds
        return self.prefill_seconds(group, self.lengths.p99_input) + step + self.lengths.p99_output * step

    def output_tokens_per_second(self, group: int, batch: int) -> float:
        return batch / self.sequences_per_request / self.step(group, batch).seconds

    def requests_per_second(self, group: int, batch: int) -> float:
        return self.output_tokens_per_second(group, batch) / self.lengths.mean_output

    def kv_bytes_per_sequence(self, block_tokens: int) -> float:
        """Paged KV cache: the tokens a sequence holds on average in flight, plus half a block of slack."""
        return (self.lengths.kv_tokens_in_flight + block_tokens / 2.0) * kv_cache_bytes_per_token(self.model)

    def max_sequence_kv_bytes(self) -> float:
        """The longest request must fit on its own: context_tokens (or input + output) of KV cache."""
        tokens = self.model.context_tokens if self.lengths.varying else self.lengths.max_input + self.lengths.max_output
        return tokens * kv_cache_bytes_per_token(self.model)
