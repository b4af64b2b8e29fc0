"""How many serving replicas an offer needs, of which tensor-parallel group, and the batch each runs.

Per group size that holds the weights and the longest request: the batch (--max-num-seqs) is the largest the KV
cache, the engine limit and every latency target allow (load.largest_slots); the replica then carries the
most requests a second at which every modelled p99 (TTFT, TPOT, end to end, queueing included) stays its headroom
under its target (load.ReplicaLoad.capacity). The replicas carry requests_per_second × peak_factor. An offer
whose every group misses a target even at a light load is refused with that target, the figure and the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelfit.catalog.models import Accelerator
from accelfit.planner import preferences as pref
from accelfit.planner.serving.lengths import request_lengths
from accelfit.planner.memory import GIB
from accelfit.planner.options import Offer
from accelfit.planner.serving.other_models import size_other_inference
from accelfit.planner.serving.replica import Efficiency, ReplicaModel
from accelfit.planner.serving.engine_figures import (
    efficiency_for, engine_limits, max_num_batched_tokens, tensor_parallel_link,
)
from accelfit.planner.serving.load import (
    LIGHT, Budgets, LoadPoint, Miss, ReplicaLoad, budgets_for, largest_slots, light_load_misses,
)
from accelfit.planner.sizes import InferenceSize, Unfit, peak_factor
from accelfit.spec import Architecture, WorkloadSpec

# Serving engines keep weights plus this share of them for activations, CUDA graphs and allocator slack.
RUNTIME_OVERHEAD = 1.10


def replica_model(spec: WorkloadSpec, accelerator: Accelerator,
                  efficiency: Efficiency | None = None, offer: Offer | None = None) -> ReplicaModel:
    """The serving model for this spec on this accelerator; `efficiency` overrides the data (team calibration).
    With a GPU `offer`, groups larger than its node span nodes over the node's network."""
    if efficiency is None:
        row = efficiency_for(accelerator.name)
        efficiency = Efficiency(row.decode_bandwidth, row.prefill_compute)
    chips, network = 0, 0.0
    if offer is not None and offer.tpu_slice is None:
        chips = offer.devices_per_unit
        if offer.instance is not None:
            network = offer.instance.network_gbps
        elif offer.servers:
            network = min(server.network_gbps for server in offer.servers)
    return ReplicaModel(accelerator, spec.model, request_lengths(spec.inference_block, spec.model), efficiency,
                        chips_per_node=chips, node_network_gbps=network,
                        expert_parallel=experts_across_nodes(spec))


def experts_across_nodes(spec: WorkloadSpec) -> bool:
    """Whether the engine the stack builds runs a multi-node Mixture-of-Experts replica expert parallel (vLLM
    does); capacity-only plans (server none) are modelled as vLLM, the default engine, would serve them."""
    from accelfit.engines import builds_server, engine

    server = spec.model_server
    name = server.value if server is not None and builds_server(server.value) else "vllm"
    return engine(name).experts_across_nodes


def best_batch(model: ReplicaModel, group: int, memory_batch: int, most: int, latency_ms: float) -> int | None:
    """The largest batch that fits memory and `most` and whose end-to-end p99 without queueing meets `latency_ms`:
    a published benchmark's replica, which runs as full as its engine lets it (offline throughput runs)."""
    largest = max(0, min(most, memory_batch))
    if largest < 1 or model.p99_latency_seconds(group, 1) * 1000.0 > latency_ms:
        return None
    low, high = 1, largest
    while low < high:
        middle = (low + high + 1) // 2
        if model.p99_latency_seconds(group, middle) * 1000.0 <= latency_ms:
            low = middle
        else:
            high = middle - 1
    return low


def kv_room_bytes(model: ReplicaModel, group: int) -> float:
    """The KV cache of a replica on `group` chips: the usable device memory less the weights and runtime."""
    return group * model.accelerator.memory_gib * GIB * pref.USABLE_MEMORY_FRACTION - model.weights * RUNTIME_OVERHEAD


def usable_batch(model: ReplicaModel, group: int) -> int:
    """Sequences whose paged KV cache fits beside the weights on `group` chips; 0 when the longest request alone
    does not fit (the KV cache is allocated per block as sequences grow, not reserved at full context)."""
    room = kv_room_bytes(model, group)
    if room < model.max_sequence_kv_bytes():
        return 0
    return int(room // model.kv_bytes_per_sequence(engine_limits().kv_block_tokens))


@dataclass(frozen=True)
class ReplicaChoice:
    group: int
    batch: int  # --max-num-seqs
    requests_per_second: float  # the most one replica carries within every target
    load: ReplicaLoad


@dataclass(frozen=True)
class Search:
    """Every group that serves within the targets; the memory the smallest needs; what the closest group (the one
    least over its budgets) misses at a light load, empty when some group meets every target; whether any group held
    the model at all."""

    choices: list[ReplicaChoice]
    need_bytes: float
    misses: tuple[Miss, ...]
    fits: bool
    closest_group: int = 0


def replica_choices(spec: WorkloadSpec, model: ReplicaModel, group_sizes: list[int]) -> Search:
    """Each tensor-parallel group size that fits, with its batch and its capacity within the targets."""
    budgets = budgets_for(spec.inference_block)
    token_budget = max_num_batched_tokens(model.accelerator.name)
    choices: list[ReplicaChoice] = []
    closest: tuple[Miss, ...] = ()
    closest_group = 0
    fits = False
    for group in group_sizes:
        memory_batch = usable_batch(model, group)
        if memory_batch < 1:
            continue
        fits = True
        choice, misses = _choice(model, group, min(engine_limits().max_num_seqs, memory_batch), token_budget,
                                 budgets)
        if choice is not None:
            choices.append(choice)
        elif not closest or shortfall(misses) < shortfall(closest):
            closest, closest_group = tuple(misses), group
    need = model.weights * RUNTIME_OVERHEAD + model.max_sequence_kv_bytes()
    return Search(choices, need, () if choices else closest, fits, closest_group)


def shortfall(misses: tuple[Miss, ...] | list[Miss]) -> float:
    """How far a set of misses is from meeting its targets: the largest modelled p99 over its budget."""
    return max((miss.modelled_ms / miss.budget_ms for miss in misses), default=0.0)


def _choice(model: ReplicaModel, group: int, most: int, token_budget: int,
            budgets: Budgets) -> tuple[ReplicaChoice | None, list[Miss]]:
    slots = largest_slots(model, group, most, token_budget, budgets)
    if slots is None:
        return None, light_load_misses(model, group, token_budget, budgets)
    load = ReplicaLoad(model, group, slots, token_budget)
    capacity = load.capacity(budgets)
    if capacity is None:
        return None, load.at_batch(LIGHT * slots).misses(budgets)
    return ReplicaChoice(group, slots, capacity.rate, load), []


def latency_refusal(spec: WorkloadSpec, accelerator: Accelerator, group: int, misses: tuple[Miss, ...]) -> Unfit:
    """Which targets the offer's closest group misses even at a light load, by how much, and what to change."""
    headroom = spec.inference_block.headroom_pct
    parts = []
    for miss in misses:
        target = miss.budget_ms / (1.0 - headroom / 100.0)
        parts.append(f"{_label(miss.field)} p99 about {miss.modelled_ms:,.1f} ms even at a light load on "
                     f"{group} × {accelerator.name}; {miss.field} {target:g} ms less its {headroom:g}% "
                     f"headroom allows {miss.budget_ms:,.1f} ms (raise it to at least "
                     f"{miss.modelled_ms / (1.0 - headroom / 100.0):,.0f} ms, or use a faster accelerator)")
    e2e = next((miss.modelled_ms for miss in misses if miss.field == "inference.latency_p99_ms"), None)
    return Unfit("latency", "; ".join(parts), best=e2e, misses=misses)


def _label(field: str) -> str:
    return {"inference.ttft_p99_ms": "TTFT", "inference.tpot_p99_ms": "TPOT"}.get(field, "end-to-end")


def _group_sizes(spec: WorkloadSpec, model: ReplicaModel, offer: Offer) -> tuple[list[int], Search]:
    """The group sizes the offer allows and their search: one node's groups, a multi-host TPU slice's whole slice,
    or (a model one node cannot hold) the fewest whole nodes that hold it, pipeline parallel across them."""
    accelerator = offer.accelerator
    if offer.tpu_slice is not None and offer.tpu_slice.hosts > 1:
        # A multi-host slice serves only a model that one host cannot hold (then tensor parallel over the slice's
        # ICI, as JetStream and vLLM TPU do); anything smaller runs on single-host slices, which are simpler.
        if usable_batch(model, accelerator.max_per_server) >= 1:
            raise Unfit("tpu-serving", f"{offer.machine} spans {offer.tpu_slice.hosts} hosts; a model that fits one "
                                       "host serves on single-host slices")
        sizes = [offer.devices_per_unit]
        return sizes, replica_choices(spec, model, sizes)
    sizes = [size for size in (1, 2, 4, 8, 16) if size <= offer.devices_per_unit]
    search = replica_choices(spec, model, sizes)
    if not search.fits and offer.multi_unit and offer.tpu_slice is None and offer.devices_per_unit >= 8:
        most_nodes = min(offer.max_units, pref.MAX_SERVING_NODES_PER_REPLICA)
        for nodes in range(2, most_nodes + 1):
            group = nodes * offer.devices_per_unit
            if usable_batch(model, group) >= 1:
                return [group], replica_choices(spec, model, [group])
    return sizes, search


def size_inference(spec: WorkloadSpec, offer: Offer, efficiency: Efficiency | None = None) -> InferenceSize:
    """Search the tensor-parallel group size and the batch together for the fewest units (throughput per dollar)."""
    inference = spec.inference_block
    accelerator = offer.accelerator
    if spec.model.architecture is Architecture.other:
        return size_other_inference(spec, offer)  # the non-transformer serving model
    model = replica_model(spec, accelerator, efficiency, offer)
    group_sizes, search = _group_sizes(spec, model, offer)
    if not search.fits:
        most = group_sizes[-1] * accelerator.memory_gib * pref.USABLE_MEMORY_FRACTION
        raise Unfit("memory", f"weights and the longest sequence's KV cache need {search.need_bytes / GIB:,.0f} GiB; "
                              f"{group_sizes[-1]} × {accelerator.name} offer {most:,.0f} GiB")
    if not search.choices:
        raise latency_refusal(spec, accelerator, search.closest_group, search.misses)
    peak = inference.requests_per_second * peak_factor(inference)

    def units_for(choice: ReplicaChoice) -> tuple[int, int]:
        replicas = max(1, math.ceil(peak / choice.requests_per_second))
        if choice.group > offer.devices_per_unit:  # a replica spans whole nodes
            return replicas * (choice.group // offer.devices_per_unit), replicas
        return math.ceil(replicas / (offer.devices_per_unit // choice.group)), replicas

    # Fewest units (the price per unit is fixed within an offer); ties go to the smallest tensor-parallel group
    # that meets the targets (less communication, lower latency, more replicas to spread load over).
    chosen = min(search.choices, key=lambda choice: (units_for(choice)[0], choice.group))
    units, replicas = units_for(chosen)
    if units > offer.max_units:
        raise Unfit("capacity", f"needs {units} × {offer.machine}; at most {offer.max_units} are available",
                    best=None)
    return _size(spec, offer, model, chosen, units, replicas, peak)


def planned_load(load: ReplicaLoad, peak: float, replicas: int) -> LoadPoint:
    """The load point of one of `replicas` replicas sharing `peak` requests a second (the capacity bounds it)."""
    point = load.at_rate(peak / replicas)
    return point if point is not None else load.at_batch(load.slots - 1e-9)


def _size(spec: WorkloadSpec, offer: Offer, model: ReplicaModel, chosen: ReplicaChoice, units: int, replicas: int,
          peak: float) -> InferenceSize:
    accelerator = offer.accelerator
    point = planned_load(chosen.load, peak, replicas)
    sequences_memory = chosen.batch * model.kv_bytes_per_sequence(engine_limits().kv_block_tokens)
    tensor, pipeline = model.layout(chosen.group)
    data = 1
    link = "PCIe" if tensor_parallel_link(accelerator).over_pcie else accelerator.interconnect
    if pipeline > 1:
        network = offer.instance.network_gbps if offer.instance is not None else model.node_network_gbps
        if model.experts_across_nodes(chosen.group):
            data, pipeline = pipeline, 1
            link = (f"{link} inside each node, one data-parallel attention rank per node and the experts expert "
                    f"parallel over all {chosen.group} GPUs (two all-to-alls per layer over the {network:,.0f} Gbps "
                    "node network)")
        else:
            link = (f"{link} inside each node and pipeline parallel {pipeline} across {pipeline} nodes over the "
                    f"{network:,.0f} Gbps node network")
    return InferenceSize(
        units=units, devices=units * offer.devices_per_unit, replicas=replicas, devices_per_replica=chosen.group,
        batch=chosen.batch, latency_p99_ms=point.e2e_p99_ms,
        memory_per_device_gib=(model.weights * RUNTIME_OVERHEAD + sequences_memory) / chosen.group / GIB,
        tokens_per_second=spec.inference_block.requests_per_second * spec.inference_block.output_tokens,
        lengths=model.lengths.describe(), requests_per_replica=chosen.requests_per_second,
        tensor_parallel_link=link, tensor_parallel=tensor, pipeline_parallel=pipeline, data_parallel=data,
        ttft_p99_ms=point.ttft_p99_ms, tpot_p99_ms=point.tpot_p99_ms, in_flight=point.in_flight,
        token_budget=chosen.load.token_budget)
