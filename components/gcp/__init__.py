"""Google Cloud components: network, GKE with GPU and TPU node pools, TPU VMs, storage.

`build(plan, ownership)` creates everything a GCP Plan needs; the components can also be composed by hand
(`from components.gcp import Network, NetworkArgs`). Everything is imported lazily, so a GCP program never imports
`pulumi_aws`. The rules a GCP plan is checked against live in the core (`accelfit.cloudrules.gcp`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelfit.catalog.models import Catalog
    from accelfit.planner.model import Plan
    from components.common import Ownership
    from components.gcp.stack import GcpStack

# Public name -> module that defines it.
_EXPORTS = {
    "Network": "network", "NetworkArgs": "network",
    "NodeServiceAccount": "service_account", "NodeServiceAccountArgs": "service_account",
    "GkeCluster": "gke_cluster", "GkeClusterArgs": "gke_cluster", "SystemPoolArgs": "gke_cluster",
    "GpuNodePool": "gpu_node_pool", "GpuNodePoolArgs": "gpu_node_pool",
    "TpuNodePool": "tpu_node_pool", "TpuNodePoolArgs": "tpu_node_pool",
    "TpuVmSlice": "tpu_vm", "TpuVmSliceArgs": "tpu_vm",
    "TpuQueuedSlices": "tpu_queued", "TpuQueuedSlicesArgs": "tpu_queued", "QueuedSlice": "tpu_queued",
    "DataBucket": "bucket", "DataBucketArgs": "bucket",
    "SharedFilestore": "filestore", "SharedFilestoreArgs": "filestore",
    "GcpStack": "stack",
}

__all__ = ["build", *_EXPORTS]


def build(plan: Plan, ownership: Ownership, *, catalog: Catalog | None = None,
          project: str | None = None) -> GcpStack:
    """Create every GCP resource `plan` needs. Validates the whole plan first; raises InputError before any
    resource exists. `catalog` defaults to the packaged catalog, `project` to the stack's `gcp:project`."""
    from components.gcp.stack import build_stack

    return build_stack(plan, ownership, catalog=catalog, project=project)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
