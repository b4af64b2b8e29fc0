"""The Kubernetes layer every accelfit cluster gets: NVIDIA GPU software where the platform lacks it, Kueue
routing with fallback (reservation -> on-demand -> spot; the plan's accelerator kind first) and DCGM telemetry.

`plan_layer` decides the layer's inputs for one cluster, a fleet's shared cluster or the single form's cluster of its
own alike (and fails before anything is created); `build_gke_layer`, `build_eks_layer` and `build_baremetal_layer`
then build it on the cluster that was made. The pure helpers (access, charts, queues, capacity, gpu_software)
import neither Pulumi nor a provider SDK; everything is imported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "KubernetesLayer": "layer", "KubernetesLayerArgs": "layer",
    "GpuOperator": "gpu_operator", "GpuOperatorArgs": "gpu_operator",
    "KueueRouting": "kueue", "KueueRoutingArgs": "kueue",
    "GpuTelemetry": "telemetry", "GpuTelemetryArgs": "telemetry",
    "LayerPlan": "build", "plan_layer": "build",
    "build_gke_layer": "build", "build_eks_layer": "build", "build_baremetal_layer": "build",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
