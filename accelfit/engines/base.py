"""The model-server engine interface: what the stack needs to know to build, probe, scale and route one engine.

Pure (no Pulumi, no planner import): each engine module (vllm.py, ...) states its facts with their sources and
renders its server's argv from a ServerShape the components fill from the plan's serving pool. What is built from
an engine: the server container (image, entry point, flags, port, probes), the LeaderWorkerSet group when a replica
spans nodes, the metrics the autoscaler (KEDA) and the endpoint picker (Gateway API Inference Extension) read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServerShape:
    """One serving pool's server, as the plan sizes it (every value reaches a flag)."""

    workload: str
    model: str = field(metadata={"doc": "What the server loads: a mount path, an s3:// URL or a repo id."})
    weights_scheme: str = field(metadata={"doc": "gs | s3 | hf: where the weights are read from."})
    tensor_parallel: int
    pipeline_parallel: int
    nodes: int
    max_running_requests: int
    max_model_len: int
    dtype: str
    memory_fraction: float = field(metadata={"doc": "Share of accelerator memory the engine may take."})
    quantization: str | None = None
    data_parallel: int = field(default=1, metadata={"doc": "Data-parallel attention ranks (one per node) of a "
                                                          "Mixture-of-Experts replica run expert parallel."})
    expert_parallel: bool = field(default=False, metadata={"doc": "The routed experts spread over every GPU of "
                                                                  "the replica (expert parallel)."})


@dataclass(frozen=True)
class EngineMetrics:
    """The Prometheus gauges of the Gateway API Inference Extension's model-server protocol
    (docs/proposals/003-model-server-protocol): waiting requests, running requests, KV-cache use (0..1)."""

    queue: str
    running: str
    kv_cache: str

    def names(self) -> tuple[str, str, str]:
        return self.queue, self.running, self.kv_cache


@dataclass(frozen=True)
class GroupCommand:
    """A container's command and args (args already escaped for Kubernetes by the caller) and extra env."""

    command: tuple[str, ...]
    args: tuple[str, ...] = ()
    env: tuple[Mapping[str, object], ...] = ()


@dataclass(frozen=True)
class Engine:
    """One model server. `flags` renders the server flags from a shape; `leader`/`worker` wrap the (escaped)
    server argv for a LeaderWorkerSet group whose replica spans nodes."""

    name: str
    title: str
    port: int
    health_path: str
    metrics_path: str
    metrics: EngineMetrics
    epp_flags: tuple[str, ...] = field(metadata={"doc": "Endpoint-picker args naming this engine's metrics "
                                                        "(none: the picker's defaults are this engine's)."})
    images: Mapping[str, str] = field(metadata={"doc": "Accelerator kind -> image key (serving_images.yaml); "
                                                       "a kind missing here is one the engine is not built on."})
    weights_schemes: tuple[str, ...]
    entrypoint: tuple[str, ...]
    flags: Callable[[ServerShape], list[str]]
    quantizations: Callable[[str], tuple[str, ...]]
    leader: Callable[[ServerShape, list[str]], GroupCommand]
    worker: Callable[[ServerShape, list[str]], GroupCommand]
    worker_component: str
    source: str
    experts_across_nodes: bool = field(default=False, metadata={"doc": "A Mixture-of-Experts replica over several "
                                       "nodes runs expert parallel with data-parallel attention per node (else "
                                       "tensor parallel per node, pipeline parallel across)."})

    @property
    def accelerator_kinds(self) -> tuple[str, ...]:
        return tuple(self.images)

    def argv(self, shape: ServerShape) -> list[str]:
        """The server's whole command line: entry point, then flags."""
        return [*self.entrypoint, *self.flags(shape)]

    def image_key(self, kind: str) -> str:
        return self.images[kind]
