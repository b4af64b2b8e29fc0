"""Google Cloud: GKE (GPU and TPU node pools), Cloud TPU VMs, Compute Engine GPU VMs."""

from __future__ import annotations

from accelfit.clouds.cloud import Cloud

CLOUD = Cloud(
    name="gcp",
    title="GCP",
    platforms=("gke-gpu", "gke-tpu", "tpu-vm", "gce-gpu-vm"),
    cluster_platform="gke-gpu",
    vm_platform="gce-gpu-vm",
    server_platforms=("gke-gpu", "gke-tpu"),
    tpu_platforms=("gke-tpu", "tpu-vm"),
    catalog_files=("instances_gcp.yaml", "prices_gcp.yaml", "not_sold_gcp.yaml"),
    priced_resource_types=(
        "gcp:container/nodePool:NodePool", "gcp:container/cluster:Cluster", "gcp:tpu/v2Vm:V2Vm",
        "gcp:tpu/v2QueuedResource:V2QueuedResource", "gcp:compute/routerNat:RouterNat", "gcp:storage/bucket:Bucket",
        "gcp:filestore/instance:Instance", "gcp:compute/disk:Disk", "gcp:compute/instance:Instance",
        "gcp:compute/instanceGroupManager:InstanceGroupManager",
    ),
    pricer_module="accelfit.pricing.pricers.gcp",
    template_resource_types=("gcp:compute/instanceTemplate:InstanceTemplate",),
    preflight_reader="accelfit.preflight.gcp:GcpReader",
    buying_models=("flex-start",),
    storage_schemes=("gs",),
)
