"""Server balance: CPU, host memory, NVMe and network per accelerator, against the thresholds in data/balance.yaml."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from accelfit.yamlio import read_package_yaml

BALANCE_FILE = Path(__file__).parent / "data" / "balance.yaml"


@dataclass(frozen=True)
class BalanceThresholds:
    min_cpu_cores_per_gpu: float
    min_host_memory_per_gpu_memory: float
    min_nvme_tb_per_gpu_training: float
    min_network_gbps_per_gpu_multinode: float


@functools.cache
def thresholds() -> BalanceThresholds:
    data = read_package_yaml(BALANCE_FILE)
    data.pop("schema_version", None)
    return BalanceThresholds(**data)


@dataclass(frozen=True)
class NodeShape:
    """What balance needs to know about one node: its GPUs and what the host gives them."""

    name: str
    gpus: int
    gpu_memory_gib: float
    cpu_cores: float
    memory_gib: float
    nvme_tb: float
    network_gbps: float


def balance_problems(node: NodeShape, training: bool, multi_node: bool,
                     limits: BalanceThresholds | None = None) -> list[str]:
    """Human-readable shortfalls of one node; empty when it is balanced for the workload."""
    limits = limits or thresholds()
    found = []
    cores = node.cpu_cores / node.gpus
    if cores < limits.min_cpu_cores_per_gpu:
        found.append(f"{node.name}: {cores:g} CPU cores per GPU, below {limits.min_cpu_cores_per_gpu:g}")
    ratio = node.memory_gib / (node.gpus * node.gpu_memory_gib)
    if ratio < limits.min_host_memory_per_gpu_memory:
        found.append(f"{node.name}: host memory is {ratio:.2f}x GPU memory, below "
                     f"{limits.min_host_memory_per_gpu_memory:g}x")
    if training:
        nvme = node.nvme_tb / node.gpus
        if nvme < limits.min_nvme_tb_per_gpu_training:
            found.append(f"{node.name}: {nvme:.2f} TB NVMe per GPU, below {limits.min_nvme_tb_per_gpu_training:g}")
    if training and multi_node:
        network = node.network_gbps / node.gpus
        if network < limits.min_network_gbps_per_gpu_multinode:
            found.append(f"{node.name}: {network:g} Gbps network per GPU, below "
                         f"{limits.min_network_gbps_per_gpu_multinode:g} for multi-node training")
    return found
