"""The pricers of AWS's resource types (accelfit/clouds/aws.py lists them): EKS node groups (on demand, spot, a
held reservation or a Capacity Block) and clusters, EC2 GPU VMs, NAT gateways, S3 buckets and FSx for Lustre."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelfit.buying import buying_model
from accelfit.catalog.models import Cloud
from accelfit.cloudrules.aws.capacity_types import ON_DEMAND, buying_of_capacity_type
from accelfit.pricing.node_disks import EKS_ROOT_VOLUME_SERVICE, disk_hourly_usd
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import (
    NeutralResource, Priced, RateBook, always_on_fee, first_set, is_standby, is_system, overflow_hours,
    storage_per_month, vm_priced,
)


def _buying(props: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[str, str | None]:
    """(buying model, reservation id) of a node group, as built: its capacityType (the table the component writes it
    from), and an on-demand group's launch template targeting a held On-Demand Capacity Reservation."""
    buying = buying_of_capacity_type(str(props.get("capacityType", ON_DEMAND)))
    target = ((template.get("capacityReservationSpecification") or {}).get("capacityReservationTarget") or {})
    held = target.get("capacityReservationId")
    if held and buying_model(buying).takes_open_reservations:
        return "reservation", str(held)
    return buying, None


@prices("aws:eks/nodeGroup:NodeGroup")
def node_group(resource: NeutralResource, book: RateBook) -> Priced | None:
    props = resource.props
    template = book.launch_template(resource.name)
    # A Capacity Block node group names its type in the launch template only (capacity-blocks-mng.html).
    instance_types = props.get("instanceTypes") or ([template["instanceType"]] if template.get("instanceType")
                                                    else [])
    region = props.get("region") or book.context.region(Cloud.aws)
    buying, reservation = _buying(props, template)
    model = buying_model(buying)
    found = book.node_hourly(Cloud.aws, instance_types[0] if instance_types else "", region, buying, reservation)
    if found is None:
        return None
    scaling = props.get("scalingConfig") or {}
    minimum, maximum = float(scaling.get("minSize", 0)), float(scaling.get("maxSize", 0))
    root_gb = book.root_volume_gb(resource.name, props.get("diskSize"))
    disk_rate = book.service(Cloud.aws, EKS_ROOT_VOLUME_SERVICE, region)
    hourly = found[0] + disk_hourly_usd(root_gb, disk_rate)
    return Priced("pool", hourly * maximum, hourly * minimum,
                  f"{instance_types[0]}: {found[1]} + {root_gb:g} GB gp3 root volume at ${disk_rate:g}/GiB-month; "
                  f"{int(minimum)}-{int(maximum)} nodes in {region}",
                  min_nodes=minimum, autoscaled=False, spot=model.preemptible,
                  block_hourly_max=found[0] * maximum if model.whole_block else 0.0,
                  system=is_system(props.get("labels") or {}, found[2]),
                  standby=is_standby(props.get("labels") or {}), overflow_hours=overflow_hours(props.get("labels")))


@prices("aws:ec2/instance:Instance")
def gpu_vm(resource: NeutralResource, book: RateBook) -> Priced | None:
    """An EC2 instance (ec2-gpu-vm): its type, spot market, root volume and the autostop its tags declare."""
    props = resource.props
    region = book.context.region(Cloud.aws)
    spot = str((props.get("instanceMarketOptions") or {}).get("marketType", "")) == "spot"
    found = book.compute_hourly(Cloud.aws, str(props.get("instanceType", "")), region, spot)
    if found is None:
        return None
    root = props.get("rootBlockDevice") or {}
    disk_gb = first_set(root.get("volumeSize"), 8)
    disk_rate = book.service(Cloud.aws, EKS_ROOT_VOLUME_SERVICE, region)
    return vm_priced(found, disk_gb, str(root.get("volumeType") or "gp3"), disk_rate, props.get("tags") or {},
                     spot, region)


@prices("aws:eks/cluster:Cluster")
def cluster(resource: NeutralResource, book: RateBook) -> Priced:
    return always_on_fee(book, Cloud.aws, "eks-cluster", book.context.region(Cloud.aws), "control-plane fee")


@prices("aws:ec2/natGateway:NatGateway")
def nat(resource: NeutralResource, book: RateBook) -> Priced:
    return always_on_fee(book, Cloud.aws, "nat-hour", resource.props.get("region") or book.context.region(Cloud.aws),
                         "NAT gateway")


@prices("aws:s3/bucket:Bucket")
def bucket(resource: NeutralResource, book: RateBook) -> Priced:
    context = book.context
    return storage_per_month(book, Cloud.aws, "s3-standard", context.region(Cloud.aws), context.bucket_gib,
                             f"{context.bucket_gib:,.0f} GiB ({context.bucket_basis})")


@prices("aws:fsx/lustreFileSystem:LustreFileSystem")
def lustre(resource: NeutralResource, book: RateBook) -> Priced:
    props = resource.props
    capacity = float(props.get("storageCapacity", 0))
    deployment = str(props.get("deploymentType", "PERSISTENT_2"))
    throughput = int(float(props.get("perUnitStorageThroughput", 125)))
    service = "fsx-lustre-scratch2" if deployment.startswith("SCRATCH") else f"fsx-lustre-persistent2-{throughput}"
    return storage_per_month(book, Cloud.aws, service, props.get("region") or book.context.region(Cloud.aws), capacity,
                             f"{capacity:,.0f} GiB {service}")
