"""The Kubernetes layer every accelfit cluster gets: NVIDIA GPU software where the platform lacks it, Kueue
routing with fallback (reservation -> on-demand -> spot; the plan's accelerator kind first) and DCGM telemetry.

`plan_cloud_layer`/`plan_baremetal_layer` decide the layer's inputs from a plan (and fail before anything is
created); `build_for_gke`, `build_for_eks` and `build_for_baremetal` then build it on the cluster made for the plan. The pure helpers (access, charts, queues, capacity, gpu_software) import
neither Pulumi nor a provider SDK; everything is imported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "KubernetesLayer": "layer", "KubernetesLayerArgs": "layer",
    "GpuOperator": "gpu_operator", "GpuOperatorArgs": "gpu_operator",
    "KueueRouting": "kueue", "KueueRoutingArgs": "kueue",
    "GpuTelemetry": "telemetry", "GpuTelemetryArgs": "telemetry",
    "LayerPlan": "build", "plan_cloud_layer": "build", "plan_baremetal_layer": "build",
    "build_for_gke": "build", "build_for_eks": "build", "build_for_baremetal": "build",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
