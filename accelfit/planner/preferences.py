"""The planner's judgement calls, in one place, each with its reason. Facts (specs, prices, MFU) are catalog data;
these are the engineering assumptions and soft preferences that turn facts into a choice.

Soft preferences are penalties, not rejections: an option's *score* is its cost times (1 + the sum of its
penalties), and the cheapest score wins. A penalty therefore means "choose this only if it is that much cheaper".
Each penalty appears by name in the plan's reasons or an alternative's `why_not`, so nothing is hidden.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from accelfit.clouds.registry import all_clouds, on_change
from accelfit.yamlio import read_package_yaml


@dataclass(frozen=True)
class Penalty:
    name: str
    fraction: float
    reason: str


# --- Soft preferences (design.md section 4, "the decision matrix made exact") -------------------------------------
PYTORCH_ON_TPU = Penalty(
    "pytorch-on-tpu", 0.30,
    "PyTorch on TPU runs through PyTorch/XLA: ops without XLA lowerings fall back to the CPU and graph breaks "
    "recompile, so expect porting work and lower efficiency than on GPUs")
DYNAMIC_SHAPES_ON_TPU = Penalty(
    "dynamic-shapes-on-tpu", 0.40,
    "data-dependent shapes make XLA recompile per shape; TPUs need static shapes (padding/bucketing) to run well")
EXPERIMENTAL_ON_TPU = Penalty(
    "experimental-code-on-tpu", 0.25,
    "experimental code changes often; GPU tooling (eager debugging, profilers, the CUDA ecosystem) iterates faster")
EVOLVING_ON_TPU = Penalty(
    "evolving-code-on-tpu", 0.10,
    "evolving code still changes; XLA compilation and debugging add friction on TPUs")
VARIABLE_INFERENCE_ON_TPU = Penalty(
    "variable-traffic-inference-on-tpu", 0.25,
    "bursty traffic with mixed batch sizes wastes TPU throughput on padding and recompiles; GPUs batch "
    "dynamically with continuous batching")
PORTABILITY_PREFERRED_ON_TPU = Penalty(
    "portability-preferred-tpu", 0.15,
    "portability is preferred and TPUs exist only on Google Cloud")

# --- Efficiency assumptions ----------------------------------------------------------------------------------------
# Time lost to checkpointing, restarts and evaluation on top of pure step time (reference section 8: 5-15%).
TRAINING_OVERHEAD_FRACTION = 0.10
# Extra time on spot capacity: preemptions cost the work since the last checkpoint plus a restart. Sourced data with
# its reasoning: data/spot_preemption.yaml.
SPOT_PREEMPTION_DATA = Path(__file__).parent / "data" / "spot_preemption.yaml"
SPOT_PREEMPTION = read_package_yaml(SPOT_PREEMPTION_DATA)
SPOT_TRAINING_OVERHEAD_FRACTION = float(SPOT_PREEMPTION["overhead_fraction"])
# Multi-node GPU training over a network slower than this per node loses efficiency (no RDMA-class fabric).
FAST_FABRIC_GBPS_PER_NODE = 400.0
SLOW_FABRIC_MFU_FACTOR = 0.75  # 0.30 vs 0.40 in the reference's starting values
# Multislice TPU jobs talk over the data-center network between slices.
MULTISLICE_MFU_FACTOR = 0.95
# LoRA skips weight gradients of frozen weights: about 4·N·D FLOPs instead of 6·N·D.
LORA_FLOPS_PER_PARAM_TOKEN = 4.0
FULL_FLOPS_PER_PARAM_TOKEN = 6.0
# architecture other: a training step is the forward pass plus a backward pass of about twice its FLOPs.
OTHER_TRAINING_PASSES = 3.0

# --- Memory assumptions (reference section 8) ----------------------------------------------------------------------
# Mixed-precision Adam: bf16 weights and grads plus fp32 master, momentum and variance = 16 bytes/parameter,
# sharded over all devices (ZeRO-3/FSDP). Activations are counted per layer in memory.py.
FULL_TRAINING_BYTES_PER_PARAM = 16.0
# Sequence length a training micro-batch holds when the spec gives no model.context_tokens (Llama 2 trained at 4,096).
TRAINING_SEQUENCE_TOKENS = 4096
# Recomputing a layer's activations repeats its forward pass: 2·N of the 6·N FLOPs per token, so recomputing a
# fraction f of the layers costs 6 / (6 + 2·f) of the throughput (Korthikanti et al. 2022, arXiv:2205.05198).
RECOMPUTE_FORWARD_FLOPS_PER_PARAM_TOKEN = 2.0
# LoRA trains ~1% of the parameters as adapters with full Adam state; the frozen base is held in its precision.
LORA_ADAPTER_FRACTION = 0.01
# Leave this share of device memory free for fragmentation, the CUDA/XLA runtime and buffers.
USABLE_MEMORY_FRACTION = 0.90

# --- Inference assumptions -----------------------------------------------------------------------------------------
# Serving efficiency per accelerator and engine, tensor-parallel links and engine limits are data: data/serving.yaml.
# inference.peak_factor when the spec leaves it out: bursts above requests_per_second that the replicas carry within
# every p99 target (judgement: variable traffic bursts about 30% over its busy-hour rate, steady traffic 15%).
PEAK_FACTOR_VARIABLE = 1.30
PEAK_FACTOR_STEADY = 1.15
# Most nodes one serving replica spans (pipeline stages over the node network); a larger model needs bigger nodes.
MAX_SERVING_NODES_PER_REPLICA = 8
# architecture other: most samples one serving batch holds (TF Serving / Triton dynamic batching, judgement).
OTHER_MAX_BATCH = 4096

# --- Sizes and limits ----------------------------------------------------------------------------------------------
# There is no fixed node cap: cluster, node-pool and node-group limits are data (data/scale_limits.yaml, limits.py).
# Checkpoints kept: bf16 weights (2) + fp32 master weights and Adam moments (12) bytes/parameter, three kept.
CHECKPOINT_BYTES_PER_PARAM = 14.0
CHECKPOINTS_KEPT = 3
# Multi-node GPU training with at least this much data gets a parallel file system in front of the bucket.
SHARED_FILESYSTEM_MIN_DATASET_TB = 1.0
HOURS_PER_MONTH = 730.0
DAYS_PER_MONTH = 30.42

# Owned (bare-metal) hardware: its cost (acquisition, energy, rack, staff) is accelfit.pricing.onprem's.

# Tie-break order when two options score the same to the cent: owned hardware first (already paid for), then
# managed TPU, then GPU clouds (their clusters, then GPU VMs); then cloud, region, accelerator name and count,
# alphabetically/ascending. Read from the records (`platform_order`), the clouds in registry order: baremetal-gpu,
# gke-tpu, tpu-vm, gke-gpu, eks-gpu, gce-gpu-vm, ec2-gpu-vm for the shipped ones.
@functools.cache
def platform_order() -> tuple[str, ...]:
    clouds = all_clouds()
    kinds = ([platform for cloud in clouds if cloud.owned for platform in cloud.platforms],
             [platform for cloud in clouds for platform in cloud.tpu_platforms],
             [cloud.cluster_platform for cloud in clouds if cloud.cluster_platform and not cloud.owned],
             [cloud.vm_platform for cloud in clouds if cloud.vm_platform],
             [platform for cloud in clouds for platform in cloud.platforms])  # any other, last
    return tuple(dict.fromkeys(platform for kind in kinds for platform in kind))


on_change(platform_order.cache_clear)  # a cloud registered or removed

