"""The pricers of GCP's resource types (accelfit/clouds/gcp.py lists them): GKE node pools and clusters, Cloud
TPU VMs and queued resources, Compute Engine GPU VMs and their managed instance groups, NAT, buckets, Filestore and
persistent disks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelfit.buying import buying_model
from accelfit.catalog.models import Cloud
from accelfit.pricing.node_disks import GKE_DEFAULT_DISK_TYPE, disk_hourly_usd
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import (
    NeutralResource, Priced, RateBook, always_on_fee, first_set, is_standby, is_system, overflow_hours,
    region_of_location,
    storage_per_month, vm_priced,
)

GKE_DEFAULT_DISK_SIZE_GB = 100  # GKE NodeConfig.diskSizeGb: "If unspecified, the default disk size is 100GB"
INSTANCE_GROUP_TYPE = "gcp:compute/instanceGroupManager:InstanceGroupManager"


def _pool_nodes(props: Mapping[str, Any]) -> tuple[float, float, int]:
    """(minimum, maximum, zones): per-zone autoscaling limits over several node locations multiply by the zones."""
    autoscaling = props.get("autoscaling") or {}
    count = first_set(props.get("nodeCount"), props.get("initialNodeCount"))
    maximum = first_set(autoscaling.get("totalMaxNodeCount"), autoscaling.get("maxNodeCount"), count)
    minimum = first_set(autoscaling.get("totalMinNodeCount"), autoscaling.get("minNodeCount"), count)
    locations = props.get("nodeLocations") or []
    per_zone = not autoscaling.get("totalMaxNodeCount") and autoscaling.get("maxNodeCount") and len(locations) > 1
    return minimum, maximum, len(locations) if per_zone else 1


def _reservation(node_config: Mapping[str, Any]) -> str | None:
    affinity = node_config.get("reservationAffinity") or {}
    if str(affinity.get("consumeReservationType", "")).upper() != "SPECIFIC_RESERVATION":
        return None
    return ", ".join(str(value) for value in affinity.get("values") or ()) or "(by key)"


def _buying(node_config: Mapping[str, Any], held: str | None) -> str:
    """The buying model a GKE node pool's nodes are obtained under, as built: NodeConfig spot (or preemptible), a
    SPECIFIC_RESERVATION it consumes (`held`: None where there is none, or nothing to price it by), flexStart."""
    if node_config.get("spot") or node_config.get("preemptible"):
        return "spot"
    if held is not None:
        return "reservation"
    return "flex-start" if node_config.get("flexStart") else "on-demand"


def _tpu_node(book: RateBook, node_config: Mapping[str, Any], region: str | None) -> tuple[float, str, bool] | None:
    machine = node_config.get("machineType")
    tpu = book.tpu_by_machine[machine or ""]
    found = book.node_hourly(Cloud.gcp, tpu.accelerator, region, _buying(node_config, None))
    if found is None:
        return None
    return (found[0] * tpu.chips_per_host, f"{machine}: {tpu.chips_per_host} {tpu.accelerator} chips per node, "
                                          f"{found[1]}", False)


def _machine_node(book: RateBook, node_config: Mapping[str, Any], region: str | None) -> tuple[float, str, bool] | None:
    machine = str(node_config.get("machineType") or "")
    # A reservation of a machine the catalog does not know (a general-purpose type) is priced as if not held.
    reservation = _reservation(node_config) if book.catalog.instance_type(Cloud.gcp, machine) is not None else None
    found = book.node_hourly(Cloud.gcp, machine, region, _buying(node_config, reservation), reservation)
    if found is None:
        return None
    # Each node's boot disk exists while the node does: priced with the node (accelfit.pricing.node_disks).
    disk_gb = first_set(node_config.get("diskSizeGb"), GKE_DEFAULT_DISK_SIZE_GB)
    disk_type = str(node_config.get("diskType") or GKE_DEFAULT_DISK_TYPE)
    disk_rate = book.service(Cloud.gcp, disk_type, region)
    return (found[0] + disk_hourly_usd(disk_gb, disk_rate),
            f"{node_config.get('machineType')}: {found[1]} + {disk_gb:g} GB {disk_type} boot disk at "
            f"${disk_rate:g}/GiB-month", found[2])


@prices("gcp:container/nodePool:NodePool")
def node_pool(resource: NeutralResource, book: RateBook) -> Priced | None:
    props = resource.props
    node_config = props.get("nodeConfig") or {}
    region = region_of_location(props.get("location")) or book.context.region(Cloud.gcp)
    spot = buying_model(_buying(node_config, None)).preemptible
    tpu = (node_config.get("machineType") or "") in book.tpu_by_machine
    found = (_tpu_node if tpu else _machine_node)(book, node_config, region)
    if found is None:
        return None
    hourly, basis, general = found
    minimum, maximum, zones = _pool_nodes(props)
    labels = node_config.get("labels") or {}
    return Priced("pool", hourly * float(maximum) * zones, hourly * float(minimum) * zones,
                  f"{basis}; {int(minimum) * zones}-{int(maximum) * zones} nodes in {region}",
                  min_nodes=float(minimum) * zones, autoscaled=bool(props.get("autoscaling") or {}), spot=spot,
                  system=is_system(labels, not tpu and general), standby=is_standby(labels),
                  overflow_hours=overflow_hours(labels))


def _tpu_vm(book: RateBook, props: Mapping[str, Any], chips: int, generation: str, zone: str | None) -> Priced | None:
    region = region_of_location(zone) or book.context.region(Cloud.gcp)
    scheduling = props.get("schedulingConfig") or {}
    spot = bool(scheduling.get("spot") or scheduling.get("preemptible"))
    found = book.compute_hourly(Cloud.gcp, generation, region, spot)
    if found is None:
        return None
    hourly = found[0] * chips
    return Priced("slice", hourly, hourly, f"{chips} {generation} chips, {found[1]}, in {region}", spot=spot)


def _slice_shape(book: RateBook, node: Mapping[str, Any], default_type: str) -> tuple[int, str] | None:
    return (book.tpu_from_config(node["acceleratorConfig"]) if node.get("acceleratorConfig")
            else book.tpu_from_accelerator_type(str(node.get("acceleratorType", default_type))))


@prices("gcp:tpu/v2Vm:V2Vm")
def tpu_vm(resource: NeutralResource, book: RateBook) -> Priced | None:
    props = resource.props
    shape = _slice_shape(book, props, "v2-8")
    return _tpu_vm(book, props, *shape, props.get("zone")) if shape else None


@prices("gcp:tpu/v2QueuedResource:V2QueuedResource")
def queued_resource(resource: NeutralResource, book: RateBook) -> Priced | None:
    props = resource.props
    slices = []
    for spec in ((props.get("tpu") or {}).get("nodeSpecs") or []):
        shape = _slice_shape(book, spec.get("node") or {}, "")
        priced = _tpu_vm(book, props, *shape, props.get("zone")) if shape else None
        if priced:
            slices.append(priced)
    if not slices:
        return None
    hourly = sum(priced.hourly_max for priced in slices)
    return Priced("slice", hourly, hourly, "; ".join(priced.basis for priced in slices), spot=slices[0].spot)


@prices("gcp:compute/instance:Instance")
def gpu_vm(resource: NeutralResource, book: RateBook) -> Priced | None:
    """A Compute Engine VM (gce-gpu-vm): its machine type, spot or not, its boot disk, and the autostop its
    labels declare (components/gcp/gpu_vm.py sets them with the idle check it installs)."""
    props = resource.props
    region = region_of_location(props.get("zone")) or book.context.region(Cloud.gcp)
    spot = str((props.get("scheduling") or {}).get("provisioningModel", "")).upper() == "SPOT"
    found = book.compute_hourly(Cloud.gcp, str(props.get("machineType", "")), region, spot)
    if found is None:
        return None
    params = ((props.get("bootDisk") or {}).get("initializeParams") or {})
    disk_gb = first_set(params.get("size"), 10)
    disk_type = str(params.get("type") or GKE_DEFAULT_DISK_TYPE)
    disk_rate = book.service(Cloud.gcp, disk_type, region)
    return vm_priced(found, disk_gb, disk_type, disk_rate, props.get("labels") or {}, spot, region)


@prices(INSTANCE_GROUP_TYPE)
def gpu_group(resource: NeutralResource, book: RateBook) -> Priced | None:
    """A GPU VM's managed instance group (gce-gpu-vm, components/gcp/gpu_vm.py): its target size of VMs made
    from its instance template (`<vm>-mig` uses `<vm>-template`): machine type, spot or not, boot disk, and the
    autostop its labels declare. A template alone costs nothing; the group runs it."""
    props = resource.props
    template = book.launch_templates.get(f"{resource.name.removesuffix('-mig')}-template")
    if template is None:
        return None
    region = region_of_location(props.get("zone")) or book.context.region(Cloud.gcp)
    spot = str((template.get("scheduling") or {}).get("provisioningModel", "")).upper() == "SPOT"
    found = book.compute_hourly(Cloud.gcp, str(template.get("machineType", "")), region, spot)
    if found is None:
        return None
    count = first_set(props.get("targetSize"), 0)
    boot: Mapping[str, Any] = next((disk for disk in template.get("disks") or [] if disk.get("boot")), {})
    disk_gb = first_set(boot.get("diskSizeGb"), 10)
    disk_type = str(boot.get("diskType") or GKE_DEFAULT_DISK_TYPE)
    disk_rate = book.service(Cloud.gcp, disk_type, region)
    one = vm_priced(found, disk_gb, disk_type, disk_rate, template.get("labels") or {}, spot, region)
    return Priced("vm", one.hourly_max * count, one.hourly_max * count, f"{count:g} × {one.basis}", spot=spot,
                  disk_hourly=one.disk_hourly * count, idle_tail_hours=one.idle_tail_hours,
                  autostop_action=one.autostop_action)


@prices("gcp:container/cluster:Cluster")
def cluster(resource: NeutralResource, book: RateBook) -> Priced:
    return always_on_fee(book, Cloud.gcp, "gke-cluster", book.context.region(Cloud.gcp), "control-plane fee")


@prices("gcp:compute/routerNat:RouterNat")
def nat(resource: NeutralResource, book: RateBook) -> Priced:
    return always_on_fee(book, Cloud.gcp, "nat-hour", resource.props.get("region") or book.context.region(Cloud.gcp),
                         "NAT gateway")


@prices("gcp:storage/bucket:Bucket")
def bucket(resource: NeutralResource, book: RateBook) -> Priced:
    context = book.context
    region = region_of_location(str(resource.props.get("location", "")).lower())
    return storage_per_month(book, Cloud.gcp, "gcs-standard", region, context.bucket_gib,
                             f"{context.bucket_gib:,.0f} GiB ({context.bucket_basis})")


@prices("gcp:filestore/instance:Instance")
def filestore(resource: NeutralResource, book: RateBook) -> Priced:
    props = resource.props
    shares = props.get("fileShares") or {}
    capacity = float(shares.get("capacityGb", 0)) if isinstance(shares, Mapping) else 0.0
    tier = str(props.get("tier", "ZONAL")).lower().replace("_", "-")
    service = {"basic-hdd": "filestore-basic-hdd", "basic-ssd": "filestore-basic-ssd"}.get(tier, "filestore-zonal")
    return storage_per_month(book, Cloud.gcp, service, book.context.region(Cloud.gcp), capacity,
                             f"{capacity:,.0f} GiB {service}")


@prices("gcp:compute/disk:Disk")
def disk(resource: NeutralResource, book: RateBook) -> Priced:
    size = float(resource.props.get("size", 0))
    disk_type = str(resource.props.get("type", "pd-balanced"))
    return storage_per_month(book, Cloud.gcp, disk_type if disk_type.startswith("pd-") else "pd-balanced",
                             book.context.region(Cloud.gcp), size, f"{size:,.0f} GiB {disk_type}")
