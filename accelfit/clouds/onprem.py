"""Owned bare-metal servers from an inventory: Kubernetes on the servers, priced at their power."""

from __future__ import annotations

from accelfit.clouds.cloud import Cloud

CLOUD = Cloud(
    name="onprem",
    title="owned servers",
    platforms=("baremetal-gpu",),
    owned=True,
    gpu_software="gpu-operator",  # host preparation installs the pinned driver and toolkit (components/baremetal)
    # The NodePatch that labels an inventory server with its GPUs (components/baremetal) carries its power cost.
    priced_resource_types=("kubernetes:core/v1:NodePatch",),
    pricer_module="accelfit.pricing.pricers.onprem",
    unsupported=(
        ("model-server", "inference.server is built on GKE or EKS clusters accelfit creates, not on owned servers"),
        ("tpu", "owned servers carry GPUs only"),
        ("gpu-vm", "owned servers run Kubernetes, not single GPU VMs"),
        ("shared-filesystem", "owned servers use the storage they have; accelfit creates no shared file system there"),
        ("fallback-tiers", "owned servers have none"),
    ),
)
