"""Google Cloud: GKE (GPU and TPU node pools), Cloud TPU VMs, Compute Engine GPU VMs."""

from __future__ import annotations

from accelfit.clouds.cloud import Cloud

# Regions whose zone list has no "-a". Used when the catalog names a region but not its zones.
_FIRST_ZONE = {"us-east1": "us-east1-b", "europe-west1": "europe-west1-b", "asia-east1": "asia-east1-a"}


def zones_of_region(region: str) -> tuple[str, ...]:
    """A GPU pool's zone when the availability data lists only the region: the region's first zone."""
    return (_FIRST_ZONE.get(region, f"{region}-a"),)

CLOUD = Cloud(
    name="gcp",
    title="GCP",
    platforms=("gke-gpu", "gke-tpu", "tpu-vm", "gce-gpu-vm"),
    cluster_platform="gke-gpu",
    cluster_kind="gke",
    cluster_tpu_platform="gke-tpu",
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
    component_builders="components.build:GCP_BUILDERS",
    preflight_reader="accelfit.preflight.gcp:GcpReader",
    preflight_project_key="gcp:project",
    provider_config_check="accelfit.cloudrules.gcp.provider_config:provider_problems",
    provider_config_keys=("gcp:project",),
    plan_check="accelfit.cloudrules.gcp.validation:plan_problems",
    system_pool_machine="e2-standard-4",
    shared_cluster_parts=("project APIs", "GKE control plane", "VPC network, Cloud Router + Cloud NAT",
                          "system node pool", "Kueue and the GPU/TPU add-ons"),
    storage_schemes=("gs",),
    cluster_fee_service="gke-cluster",
    bucket_service="gcs-standard",
    node_disk_service="pd-balanced",  # GKE NodeConfig.diskType: "If unspecified, the default disk type is 'pd-balanced'"
    node_disk_by_family=True,
    shared_filesystem="filestore",
    zones_of_region=zones_of_region,
    listed_zones_are_names=True,
    instance_accelerator_fields=True,
    pods_range_fixed_at_creation=True,
    system_pool_follows_work=True,
    multi_node_network="extra-networks",
    queued_provisioning=True,
    zonal_reservations=True,
    capacity_groups="compute-class",
    zone_suffix=r"-[a-z]\Z",
    # A reservation is a Compute Engine resource: its name follows RFC 1035
    # (https://cloud.google.com/compute/docs/naming-resources#resource-name-format).
    reservation_name_pattern=r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?\Z",
    reservation_name_rule="a GCP reservation name (lowercase letters, digits and '-', starting with a letter, at "
                          "most 63); copy it from `gcloud compute reservations list`",
    pools_per_cluster="node pools per GKE cluster",
    metrics_billed_per_sample=True,
    serving_gateway="gke-gateway",
    cluster_version_field="gke_release_channel",
    example_region="us-central1",
    region_key="gcp:region",
    stack_keys="accelfit.stackkeys:GCP_KEYS",
    # A zone is <region>-<letter> (https://cloud.google.com/compute/docs/regions-zones: "zone names ... us-central1-a").
    zone_key="gcp:zone",
    zone_pattern=r"^(?P<region>[a-z]+-[a-z]+[0-9]+)-[a-z]\Z",
    zone_form="a region of Google Cloud and a letter: us-central1-a",
    provider_title="Google Cloud",
    serving_metrics="managed-prometheus",
    gpu_software="gke-managed",
    gpu_quota="the region's Compute Engine GPU quota for this GPU model (and GPUS_ALL_REGIONS)",
    vm_access="IAP TCP forwarding (`gcloud compute ssh --tunnel-through-iap`)",
    vm_spot_recovery="its managed instance group recreates it with the same boot disk when capacity returns",
    registry_auth="gcp",
    vm_in_instance_group=True,
)
