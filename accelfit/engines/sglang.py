"""SGLang, the second engine: `python3 -m sglang.launch_server`, its facts in data/sglang.yaml (each with its source).

Flags (ServerArgs, python/sglang/srt/server_args.py): `--model-path`, `--served-model-name`, `--tp-size`,
`--pp-size`, `--max-running-requests` (the plan's batch), `--context-length`, `--dtype`, `--mem-fraction-static`
(the share of accelerator memory for weights and KV cache), `--quantization`, and `--enable-metrics` so the
autoscaler and the endpoint picker have the gauges they read. A replica over several nodes runs as the LWS SGLang
example does: every pod of the group runs the same server with `--dist-init-addr`, `--nnodes` and `--node-rank`
from the variables LWS sets (Kubernetes expands `$(VAR)` in command and args).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from accelfit.engines.base import Engine, EngineMetrics, GroupCommand, ServerShape
from accelfit.yamlio import read_package_yaml

_DATA = Path(__file__).parent / "data" / "sglang.yaml"


@functools.cache
def facts() -> dict[str, Any]:
    return dict(read_package_yaml(_DATA))


def flags(shape: ServerShape) -> list[str]:
    """SGLang's server flags, every value from the plan."""
    out = [f"--model-path={shape.model}", f"--served-model-name={shape.workload}", "--host=0.0.0.0",
           f"--port={facts()['port']}", f"--tp-size={shape.tensor_parallel}", f"--pp-size={shape.pipeline_parallel}",
           f"--max-running-requests={shape.max_running_requests}", f"--context-length={shape.max_model_len}",
           f"--dtype={shape.dtype}", f"--mem-fraction-static={shape.memory_fraction:g}", "--enable-metrics"]
    if shape.quantization:
        out.append(f"--quantization={shape.quantization}")
    return out


def quantizations(kind: str) -> tuple[str, ...]:
    return tuple(facts()["quantization_methods"]) if kind in facts()["accelerator_kinds"] else ()


def _group_flags() -> tuple[str, ...]:
    # Not escaped: these $(VAR) references are the ones Kubernetes must expand (the LWS example's own).
    return (f"--dist-init-addr=$(LWS_LEADER_ADDRESS):{facts()['dist_init_port']}", "--nnodes=$(LWS_GROUP_SIZE)",
            "--node-rank=$(LWS_WORKER_INDEX)")


def leader(shape: ServerShape, serve: list[str]) -> GroupCommand:
    return GroupCommand(command=tuple(serve), args=_group_flags())


def worker(shape: ServerShape, serve: list[str]) -> GroupCommand:
    return GroupCommand(command=tuple(serve), args=_group_flags())


def _engine() -> Engine:
    data = facts()
    metrics = EngineMetrics(**data["metrics"])
    return Engine(
        name="sglang", title="SGLang", port=data["port"], health_path=data["health_path"],
        metrics_path=data["metrics_path"], metrics=metrics,
        epp_flags=(f"--total-queued-requests-metric={metrics.queue}",
                   f"--total-running-requests-metric={metrics.running}",
                   f"--kv-cache-usage-percentage-metric={metrics.kv_cache}", "--lora-info-metric="),
        images={kind: f"sglang-{'cuda' if kind == 'gpu' else kind}" for kind in data["accelerator_kinds"]},
        weights_schemes=tuple(data["weights_schemes"]),
        entrypoint=("python3", "-m", "sglang.launch_server"), flags=flags, quantizations=quantizations,
        leader=leader, worker=worker, worker_component="sglang-worker", source=data["source"])


ENGINE = _engine()
