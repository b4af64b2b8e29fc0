"""The plan's serving section (issue 26): the model server an inference workload gets, and each of its serving pools
in route order, with the numbers the server is built from.

Nothing is sized twice: the tensor-parallel group, batch and replicas are the planner's own (`sizing.size_inference`
on the pool's offer, the search that chose the plan), and the latency figures come from the same replica model
(`replica.ReplicaModel` under load, `load.ReplicaLoad`): TTFT, TPOT and end-to-end p99s,
each at the pool's share of the planned
peak (requests_per_second × peak_factor), queueing included (load.py). vLLM flag values follow from them:
--tensor-parallel-size / --pipeline-parallel-size from the layout, --max-num-seqs the batch, --max-model-len the
longest request the KV cache was sized for, --gpu-memory-utilization the device-memory share the sizing used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from accelfit.engines import builds_server, engine
from accelfit.planner import preferences as pref
from accelfit.planner.memory import GIB, weights_bytes
from accelfit.planner.model import NodePool, ServingPlan, ServingPool
from accelfit.planner.options import Offer
from accelfit.planner.serving.replica import Efficiency
from accelfit.planner.serving.server_pods import pod_requests
from accelfit.planner.serving.load import ReplicaLoad
from accelfit.planner.serving.sizing import planned_load, replica_model, size_inference
from accelfit.planner.sizes import Unfit, peak_factor
from accelfit.planner.team_efficiency import TeamEfficiency
from accelfit.planner.serving.weights_read import read_gbps, read_source, startup
from accelfit.spec import Architecture, Precision, WorkloadSpec, weights_scheme
from accelfit.engines.vllm_quantization import AUTO

# vLLM --dtype per spec precision (docs.vllm.ai engine args: auto, half, float16, bfloat16, float, float32): the
# activations' type; fp8 runs bf16 activations. The weights' quantization is the checkpoint's own (its
# quantization_config, which vLLM reads when no --quantization is given: the usual FP8, INT8 and FP4 checkpoints
# declare compressed-tensors or modelopt) unless model.quantization names a method (accelfit/engines/vllm_quantization.py).
_DTYPE = {Precision.fp32: "float32", Precision.tf32: "float32", Precision.bf16: "bfloat16", Precision.fp16: "float16",
          Precision.fp8: "bfloat16", Precision.int8: "auto", Precision.fp4: "auto"}


@dataclass(frozen=True)
class ServingStep:
    """One serving pool to describe: its route rank, its node pools and the offer they were planned from."""

    rank: int
    fallback_rank: int
    pools: tuple[NodePool, ...]
    offer: Offer
    replicas: int | None = None  # the planned pool's replicas as planned (a lock may hold more than sizing needs)
    pricing: str | None = None  # the step's pricing when the offer was found on another tier


def serving_section(spec: WorkloadSpec, steps: Sequence[ServingStep],
                    team: TeamEfficiency | None = None) -> ServingPlan | None:
    """The serving section for an inference spec (None for training)."""
    inference = spec.inference
    if inference is None:
        return None
    server = spec.inference_server
    notes: list[str] = []
    pools: list[ServingPool] = []
    if spec.model.architecture is Architecture.other:
        notes.append("model.architecture other: no serving pools are described (the vLLM layout applies to "
                     "transformers)")
    else:
        for step in steps:
            try:
                pools.append(serving_pool(spec, step, team))
            except Unfit as unfit:  # a fallback step sized by another rule than the server's (kept honest, not hidden)
                notes.append(f"pool {step.pools[0].name}: not described ({unfit.reason})")
    scheme = weights_scheme(spec.model.weights) if spec.model.weights else None
    return ServingPlan(
        server=server.value, why=_why(spec), weights=spec.model.weights,
        weights_reader=read_source(scheme).reader if scheme else None, weights_token=spec.model.weights_token,
        requests_per_second=inference.requests_per_second, ttft_target_ms=inference.ttft_p99_ms,
        tpot_target_ms=inference.tpot_p99_ms, e2e_target_ms=inference.latency_p99_ms,
        route=_route(pools), pools=tuple(pools), notes=tuple(notes))


def serving_pool(spec: WorkloadSpec, step: ServingStep, team: TeamEfficiency | None) -> ServingPool:
    offer = step.offer
    efficiency = _team_efficiency(team, offer.accelerator.name)
    size = size_inference(spec, offer, efficiency)
    model = replica_model(spec, offer.accelerator, efficiency, offer)
    group, batch = size.devices_per_replica, size.batch
    per_node = step.pools[0].accelerators_per_node
    nodes_per_replica = _nodes_per_replica(offer, group, per_node)
    replicas_max = sum(pool.max_nodes // nodes_per_replica if nodes_per_replica > 1
                       else pool.max_nodes * max(1, per_node // group) for pool in step.pools)
    at_rate = step.replicas or size.replicas
    inference = spec.inference_block
    base = math.ceil(inference.requests_per_second / size.requests_per_replica) \
        if size.requests_per_replica else at_rate
    peak = inference.requests_per_second * peak_factor(inference)
    point = planned_load(ReplicaLoad(model, group, batch, size.token_budget), peak, at_rate)
    ttft, tpot, e2e = point.ttft_p99_ms, point.tpot_p99_ms, point.e2e_p99_ms
    lengths = model.lengths
    context = lengths.longest_tokens(spec.model.context_tokens)
    dtype, quantization = _DTYPE[spec.model.precision], server_quantization(spec, offer.accelerator.kind)
    if offer.accelerator.kind == "tpu":
        dtype = "bfloat16"  # vLLM TPU serves bf16 (docs.vllm.ai TPU: supported dtypes)
    weights = weights_bytes(spec.model)
    rate = _weights_read_gbps(spec, offer)
    share = weights / nodes_per_replica  # each pipeline stage (or TPU host) reads its own layers' files
    cpu_millis, memory_mib = _pod_requests(offer, per_node, group if nodes_per_replica == 1 else per_node)
    return ServingPool(
        rank=step.rank, fallback_rank=step.fallback_rank, node_pools=tuple(pool.name for pool in step.pools),
        accelerator=offer.accelerator.name, kind=offer.accelerator.kind, machine_type=step.pools[0].machine_type,
        accelerators_per_node=per_node, pricing=step.pricing or offer.pricing, tensor_parallel=size.tensor_parallel,
        pipeline_parallel=size.pipeline_parallel, data_parallel=size.data_parallel,
        expert_parallel=size.data_parallel > 1, chips_per_replica=group, nodes_per_replica=nodes_per_replica,
        replicas_at_rate=at_rate, replicas_min=0 if step.fallback_rank else min(base, max(replicas_max, 1)),
        replicas_max=max(replicas_max, 1), max_num_seqs=batch,
        in_flight_per_replica=round(point.in_flight / model.sequences_per_request, 1),
        max_model_len=int(context), dtype=dtype,
        quantization=quantization, gpu_memory_utilization=pref.USABLE_MEMORY_FRACTION,
        cpu_millis_per_pod=cpu_millis, memory_mib_per_pod=memory_mib,
        weights_gib=round(weights / GIB, 1), weights_read_gbps=round(rate, 2) if rate else None,
        weights_load_seconds=round(share * 8.0 / (rate * 1e9), 1) if rate else None,
        startup_seconds=startup(offer.accelerator.kind).seconds,
        ttft_p99_ms=round(ttft, 1), tpot_p99_ms=round(tpot, 2), e2e_p99_ms=round(e2e, 1),
        ttft_margin=_margin(inference.ttft_p99_ms, ttft), tpot_margin=_margin(inference.tpot_p99_ms, tpot),
        e2e_margin=_margin(inference.latency_p99_ms, e2e))


def _team_efficiency(team: TeamEfficiency | None, accelerator: str) -> Efficiency | None:
    """The team's measured serving efficiency on this accelerator, when it has calibrated one."""
    measured = team.serving_for(accelerator) if team else None
    if measured is None:
        return None
    return Efficiency(measured.decode_bandwidth, measured.prefill_compute)


def _nodes_per_replica(offer: Offer, group: int, per_node: int) -> int:
    """Nodes one server spans: a multi-host TPU slice's hosts, or the nodes its chips need."""
    if offer.tpu_slice is not None and offer.tpu_slice.hosts > 1:
        return offer.tpu_slice.hosts  # one multi-host slice, tensor parallel over its ICI
    return max(1, group // per_node) if group > per_node else 1


def _weights_read_gbps(spec: WorkloadSpec, offer: Offer) -> float | None:
    """How fast a node reads the weights from where model.weights names (None when it names nothing)."""
    scheme = weights_scheme(spec.model.weights) if spec.model.weights else None
    network = offer.instance.network_gbps if offer.instance is not None else None
    return read_gbps(scheme, network) if scheme else None


def _pod_requests(offer: Offer, per_node: int, per_pod: int) -> tuple[int, int]:
    """(CPU millicores, memory MiB) a server pod requests: from the node's shape (the instance type, or the TPU
    host), shared among the pods the node holds (server_pods.yaml)."""
    if offer.tpu_slice is not None:
        vcpus, memory_gib = offer.tpu_slice.host_vcpus, offer.tpu_slice.host_memory_gib
    elif offer.instance is not None:
        vcpus, memory_gib = offer.instance.vcpus, offer.instance.memory_gib
    else:
        return 0, 0
    return pod_requests(vcpus, memory_gib, max(1, per_node // max(per_pod, 1)))


def server_quantization(spec: WorkloadSpec, kind: str) -> str | None:
    """The engine's --quantization for a pool: None (no flag) unless model.quantization names a method; a method the
    engine refuses on this accelerator kind (vLLM's TPU platform) makes the pool unfit for the server rather than a
    server that cannot start."""
    named = spec.model.quantization
    if named == AUTO:
        return None
    server = engine(spec.inference_server.value)  # model.quantization is refused without an inference server
    accepted = server.quantizations(kind)
    if named not in accepted:
        raise Unfit("quantization", f"model.quantization {named}: {server.title} on {kind.upper()} accepts "
                    f"{', '.join(accepted)} only")
    return named


def _margin(target: float | None, value: float) -> float | None:
    return None if target is None else round((target - value) / target, 4)


def _why(spec: WorkloadSpec) -> str:
    server = spec.model_server
    builds = server is not None and builds_server(server.value)
    if spec.inference_block.server is not None:
        if builds and server is not None:
            title = engine(server.value).title
            return (f"inference.server {server.value} (set in the spec): the stack builds {title} on each serving "
                    f"pool from {spec.model.weights}")
        return "inference.server none (set in the spec): capacity only, the node pools without a model server"
    if builds:
        return (f"inference.server defaults to vllm because model.weights is set ({spec.model.weights}): the stack "
                "builds vLLM (GPUs and TPUs) on each serving pool; set server: none for capacity only")
    return ("inference.server defaults to none because model.weights is not set: capacity only (node pools, no "
            "server); set model.weights (gs://, s3:// or hf://) to have the stack build the vLLM server")


def _route(pools: Sequence[ServingPool]) -> str:
    if not pools:
        return "no serving pool"
    first = pools[0]
    head = f"the planned pool {first.node_pools[0]} ({first.accelerator}, {first.pricing}) first"
    if len(pools) == 1:
        return head + "; no fallback pool is built in the workload's cluster (see the fallback chain)"
    rest = ", then ".join(f"{pool.node_pools[0]} ({pool.accelerator}, {pool.pricing})" for pool in pools[1:])
    return (f"{head}, then {rest}: the fallback chain's order (other capacity tiers of the planned type, then the "
            "next-best eligible accelerator), taken when the pools before are saturated or unavailable")
