"""Model-server engines, registered by name (`inference.server`). Pure: no Pulumi, no planner import.

Adding an engine: one module stating its facts (base.Engine), its image in components/kubernetes/data/
serving_images.yaml, its name in spec.models.ModelServer, and one line in ENGINES below.
"""

from __future__ import annotations

import functools

from accelfit.engines.base import Engine, EngineMetrics, GroupCommand, ServerShape

NONE = "none"
"""inference.server none: capacity only, no engine."""


@functools.cache
def engines() -> dict[str, Engine]:
    from accelfit.engines import sglang, vllm  # imported on first use: the spec reads this registry while it loads

    return {engine.name: engine for engine in (vllm.ENGINE, sglang.ENGINE)}


def engine(name: str) -> Engine:
    """The engine called `name`; KeyError for `none` or an unknown name (the spec refuses those earlier)."""
    return engines()[name]


def builds_server(server: str | None) -> bool:
    """Whether a plan's serving.server names an engine the stack builds (not none, not unset)."""
    return server is not None and server in engines()


__all__ = ["NONE", "Engine", "EngineMetrics", "GroupCommand", "ServerShape", "builds_server", "engine", "engines"]
