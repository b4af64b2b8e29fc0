"""What a model-server pod requests besides its accelerators (data/server_pods.yaml): its accelerators' share of the
node's vCPUs and memory, halved for what the node keeps for itself and its DaemonSets. Loaded once; sourced."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Literal

from pydantic import Field

from accelfit.catalog.rows import Frozen, Sourced
from accelfit.yamlio import read_package_yaml

SERVER_PODS_FILE = Path(__file__).parents[1] / "data" / "server_pods.yaml"


class PodRequest(Sourced):
    share_of_node: float = Field(gt=0, lt=1, description="Share of the pod's part of the node it requests.")


class ServerPodsData(Frozen):
    schema_version: Literal[1]
    request: PodRequest


@functools.cache
def server_pods_data() -> ServerPodsData:
    return ServerPodsData.model_validate(read_package_yaml(SERVER_PODS_FILE))


def pod_requests(node_vcpus: float, node_memory_gib: float, pods_per_node: int) -> tuple[int, int]:
    """(CPU millicores, memory MiB) one server pod requests on a node holding `pods_per_node` of them."""
    share = server_pods_data().request.share_of_node / max(pods_per_node, 1)
    return math.floor(node_vcpus * share * 1000), math.floor(node_memory_gib * share * 1024)
