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

Mixture-of-Experts: the matmul FLOPs are 2·(active parameters) per token, and a step reads the shared weights plus
every expert its tokens route to (memory.weights_read_bytes): one sequence reads about the active weights, a large
batch all of them. Memory holds the total.

A group larger than one node (`chips_per_node`) is tensor parallel inside each node and pipeline parallel across
nodes, the layout vLLM documents for multi-node serving (TP = GPUs per node, PP = nodes; docs.vllm.ai
serving/distributed_serving). The batch is split into one micro-batch per stage; each stage holds 1/PP of the
layers, so one round (every sequence advances one token) is the tensor-parallel step of a micro-batch through the
whole model plus PP − 1 sends of its activations over the nodes' network (EFA, RoCE or GPUDirect-TCPX); TPU slices
stay one ICI domain, tensor parallel over every chip.

A Mixture-of-Experts group over several nodes served by an engine that runs it expert parallel (`expert_parallel`:
vLLM's data parallel attention with --enable-expert-parallel, docs.vllm.ai serving/data_parallel_deployment) is
instead one data-parallel attention rank per node (tensor parallel inside it) with the routed experts spread over
every GPU of the group. A step reads each node's shared weights (attention, embeddings, shared experts) on its own
GPUs and the routed experts its tokens touch on the GPUs that hold them: at a small batch the busiest GPU reads one
expert per layer (the active experts' bytes, not the whole model's), and every MoE layer pays two all-to-alls
(dispatch and combine) over the nodes' network, each its fixed latency plus the bytes that leave the node
(serving.yaml expert_parallel_links). Small-batch decode then costs the active bytes plus 2 × layers all-to-all
latencies, which the node network's latency and bandwidth move.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelfit.catalog.models import Accelerator
from accelfit.planner.serving.lengths import Lengths
from accelfit.planner.memory import (
    BYTES_PER_WEIGHT, expert_split, kv_cache_bytes_per_token, model_dims, weights_bytes, weights_read_bytes,
)
from accelfit.planner.serving.engine_figures import expert_parallel_link, pipeline_link, tensor_parallel_link
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
    chips_per_node: int = 0  # GPUs per node, for groups over several nodes; 0: the group is one NVLink/ICI domain
    node_network_gbps: float = 0.0  # the node's network (Gbps), which pipeline stages on different nodes cross
    expert_parallel: bool = False  # a MoE group over nodes runs expert parallel (the engine's layout), not pipeline

    @property
    def weights(self) -> float:
        """Bytes held: every weight (the total parameters of a Mixture-of-Experts model)."""
        return weights_bytes(self.model)

    @property
    def dense_flops_per_token(self) -> float:
        return 2.0 * self.model.active

    def layout(self, group: int) -> tuple[int, int]:
        """(tensor parallel, nodes) for a group of `group` chips: the nodes are pipeline stages, or data-parallel
        attention ranks when the group runs expert parallel (`experts_across_nodes`)."""
        if self.chips_per_node and group > self.chips_per_node and group % self.chips_per_node == 0:
            return self.chips_per_node, group // self.chips_per_node
        return group, 1

    def experts_across_nodes(self, group: int) -> bool:
        """Whether this group runs expert parallel over several nodes (a MoE model, an engine that does)."""
        return self.expert_parallel and self.model.is_moe and self.layout(group)[1] > 1

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
        prefills `prefill_tokens` prompt tokens, each attending to `prefill_context` earlier tokens on average.

        Over several nodes (pipeline parallel) the sequences form one micro-batch per stage and the step is one
        round: each micro-batch through every stage, plus the sends between stages."""
        tensor, pipeline = self.layout(group)
        if pipeline == 1:
            return self._tensor_step(group, sequences, kv_tokens, prefill_tokens, prefill_context)
        if self.experts_across_nodes(group):
            return self.expert_step(group, sequences, kv_tokens, prefill_tokens, prefill_context)
        share = 1.0 / pipeline
        # A micro-batch passes all PP stages (each 1/PP of the model on `tensor` chips): the time of the whole model
        # on `tensor` chips for that micro-batch, the stages of the other micro-batches running meanwhile.
        stage = self._tensor_step(tensor, sequences * share, kv_tokens * share, prefill_tokens * share,
                                  prefill_context)
        hops = (pipeline - 1) * self.pipeline_send_seconds((sequences + prefill_tokens) * share)
        return Step(stage.seconds + hops, stage.memory_seconds, stage.compute_seconds,
                    stage.allreduce_seconds + hops)

    def expert_step(self, group: int, sequences: float, kv_tokens: float, prefill_tokens: float,
                    prefill_context: float, ranks: int = 0) -> Step:
        """One expert-parallel step of the group: `ranks` data-parallel attention ranks (default: one per node)
        share the sequences; the routed experts are spread over all `group` GPUs (see the module docstring)."""
        tensor, nodes = self.layout(group)
        ranks = ranks or nodes
        tokens = sequences + prefill_tokens
        chip_bandwidth = self.accelerator.memory_bandwidth_gbps * 1e9 * self.efficiency.decode_bandwidth
        chip_peak = serving_peak_flops(self.accelerator, self.model.precision) * self.efficiency.prefill_compute
        shared, expert, experts, per_token = expert_split(self.model)
        weight_bytes = BYTES_PER_WEIGHT[self.model.precision]
        # Each rank's GPUs read their node's copy of the shared weights; the experts its tokens touch (all ranks'
        # tokens together) sit on the GPUs that hold them, the busiest reading at least one per layer.
        touched = experts * (1.0 - (1.0 - per_token / experts) ** max(1.0, tokens)) if expert else 0.0
        busiest = max(touched / group, min(1.0, touched))
        weights_read = shared * weight_bytes / tensor + busiest * expert * weight_bytes
        matmul = max(weights_read / chip_bandwidth, tokens * self.dense_flops_per_token / (group * chip_peak))
        attending = ranks * tensor  # the GPUs of the ranks that hold these sequences' KV cache
        kv_read = kv_tokens * kv_cache_bytes_per_token(self.model) / (attending * chip_bandwidth)
        attention_flops = (self.attention_flops_per_token(1.0) * kv_tokens
                           + prefill_tokens * self.attention_flops_per_token(prefill_context))
        attention = max(kv_read, attention_flops / (attending * chip_peak))
        per_rank = max(tokens / ranks, min(tokens, 1.0))  # the busiest rank holds at least a whole sequence
        exchange = self.allreduce_seconds(tensor, per_rank) + self.all_to_all_seconds(per_rank, nodes)
        return Step(matmul + attention + exchange, weights_read / chip_bandwidth + kv_read,
                    tokens * self.dense_flops_per_token / (group * chip_peak) + attention_flops / (attending * chip_peak),
                    exchange)

    def all_to_all_seconds(self, tokens: float, nodes: int) -> float:
        """Dispatch and combine of every layer for one rank's `tokens`: each token goes to its experts_per_token
        experts (16-bit activations), the share on other nodes over the node's network."""
        layers, _, _, hidden = model_dims(self.model)
        _, _, _, per_token = expert_split(self.model)
        link = expert_parallel_link()
        leaving = tokens * per_token * hidden * ALLREDUCE_BYTES_PER_VALUE * (nodes - 1) / nodes
        bytes_per_second = self.node_network_gbps / 8.0 * 1e9 * link.efficiency
        one = link.latency_us * 1e-6 + (leaving / bytes_per_second if bytes_per_second > 0 else 0.0)
        return 2 * layers * one

    def pipeline_send_seconds(self, tokens: float) -> float:
        """One stage handing its micro-batch's activations (tokens × d_model, 16-bit) to the next node."""
        _, _, _, hidden = model_dims(self.model)
        link = pipeline_link()
        bytes_per_second = self.node_network_gbps / 8.0 * 1e9 * link.efficiency
        return tokens * hidden * ALLREDUCE_BYTES_PER_VALUE / bytes_per_second + link.latency_us * 1e-6

    def _tensor_step(self, group: int, sequences: float, kv_tokens: float, prefill_tokens: float,
                     prefill_context: float) -> Step:
        kv_per_token = kv_cache_bytes_per_token(self.model)
        bandwidth = group * self.accelerator.memory_bandwidth_gbps * 1e9 * self.efficiency.decode_bandwidth
        peak = group * serving_peak_flops(self.accelerator, self.model.precision) * self.efficiency.prefill_compute
        dense = self.dense_flops_per_token
        weights_read = weights_read_bytes(self.model, sequences + prefill_tokens)
        # The weight matmuls stream the weights while they compute: the slower of the two.
        matmul = max(weights_read / bandwidth, (sequences + prefill_tokens) * dense / peak)
        # Attention runs after them (its own kernels): decode reads every sequence's KV cache, prefill computes the
        # causal score matrix; each the slower of its reading and its math.
        kv_read = kv_tokens * kv_per_token / bandwidth
        attention_flops = (self.attention_flops_per_token(1.0) * kv_tokens
                           + prefill_tokens * self.attention_flops_per_token(prefill_context))
        attention = max(kv_read, attention_flops / peak)
        allreduce = self.allreduce_seconds(group, sequences + prefill_tokens)
        memory = weights_read / bandwidth + kv_read
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
        """Time to first token for one prompt run alone at full compute (chunked prefill runs it within steps).
        Over several nodes the prompt passes the stages one after another: the tensor-parallel time on one node's
        chips plus the sends between stages."""
        tensor, pipeline = self.layout(group)
        if self.experts_across_nodes(group):
            # The prompt runs on one data-parallel rank; its experts on every GPU of the group.
            return self.expert_step(group, 0.0, 0.0, input_tokens, input_tokens / 2.0, ranks=1).seconds
        dense = self.dense_flops_per_token
        flops = input_tokens * (dense + self.attention_flops_per_token(input_tokens / 2.0))
        peak = tensor * serving_peak_flops(self.accelerator, self.model.precision) * self.efficiency.prefill_compute
        bandwidth = tensor * self.accelerator.memory_bandwidth_gbps * 1e9 * self.efficiency.decode_bandwidth
        hops = (pipeline - 1) * self.pipeline_send_seconds(input_tokens) if pipeline > 1 else 0.0
        return (max(flops / peak, weights_read_bytes(self.model, input_tokens) / bandwidth)
                + self.allreduce_seconds(tensor, input_tokens) + hops)

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
        tokens = self.lengths.longest_tokens(self.model.context_tokens)
        return tokens * kv_cache_bytes_per_token(self.model)
