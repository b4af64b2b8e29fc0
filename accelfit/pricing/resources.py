"""Monthly cost of each priced resource type, from the catalog, with the usage assumption stated for each.

Pure: takes neutral resources (type token, name, camelCase inputs — as mocks record them, as CrossGuard sees
them and as `pulumi preview --json` prints them) and returns figures. The same code prices the in-process preview
and a real `pulumi preview --json` document, so the two can never disagree.

Assumptions (each also appears in the output):
- Accelerator pools and node groups are priced at their maximum size running all month: the most the autoscaler
  can spend, which is what a budget must cover. The minimum is reported alongside.
- Buckets are sized from the spec's dataset plus checkpoints; NAT gateways and cluster fees run all month.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelfit.catalog.models import Catalog, Cloud, TpuSlice

HOURS_PER_MONTH = 730.0
GIB_PER_TB = 1e12 / 2.0**30


@dataclass(frozen=True)
class NeutralResource:
    type: str
    name: str
    props: Mapping[str, Any]
    urn: str = ""


@dataclass(frozen=True)
class PricingContext:
    """What the resources alone do not say: default regions, bucket sizes, the plan's pricing model."""

    gcp_region: str | None = None
    aws_region: str | None = None
    bucket_gib: float = 0.0
    bucket_basis: str = "no dataset size known"
    pricing: str = "on-demand"  # committed plans price non-spot compute at their committed rate


@dataclass(frozen=True)
class ResourceCost:
    urn: str
    type: str
    name: str
    monthly_usd: float
    min_monthly_usd: float
    basis: str


@dataclass(frozen=True)
class CostReport:
    resources: tuple[ResourceCost, ...]
    monthly_usd: float
    min_monthly_usd: float
    assumptions: tuple[str, ...]
    unpriced: tuple[str, ...] = field(default=())

    def by_urn(self) -> dict[str, ResourceCost]:
        return {cost.urn or cost.name: cost for cost in self.resources}


ASSUMPTIONS = (
    "Node pools, node groups and TPU slices are priced at their maximum size running all month (the most the "
    "autoscaler can spend); the minimum is shown as min_monthly_usd.",
    "Prices are list prices from the catalog, per region and pricing model, with their as-of dates.",
    "GKE/EKS control planes and NAT gateways run all month; NAT data processing is not priced (bucket traffic "
    "uses private Google access or the S3 gateway endpoint).",
)


def _region_of_location(location: str | None) -> str | None:
    """'us-central1-a' -> 'us-central1'; a region stays itself; AWS AZ 'us-east-1a' -> 'us-east-1'."""
    if not location:
        return None
    parts = location.split("-")
    if len(parts) == 3 and len(parts[-1]) == 1 and parts[-1].isalpha():  # GCP zone
        return "-".join(parts[:2])
    if location[-1].isalpha() and location[-2].isdigit():  # AWS availability zone
        return location[:-1]
    return location


def _first(*values: Any) -> float:
    """The first value that is set; 0 is a real value here (a pool that scales to zero)."""
    return float(next((value for value in values if value is not None), 0))


class _Pricer:
    def __init__(self, catalog: Catalog, context: PricingContext):
        self.catalog = catalog
        self.context = context
        self.tpu_by_machine: dict[str, TpuSlice] = {}
        for tpu in catalog.tpu_slices:
            # Per-host machine types: the slice whose chips fit one host tells chips per node for the type.
            current = self.tpu_by_machine.get(tpu.gke_machine_type)
            if current is None or tpu.chips_per_host >= current.chips_per_host:
                self.tpu_by_machine[tpu.gke_machine_type] = tpu

    def compute_hourly(self, cloud: Cloud, sku: str, region: str | None, spot: bool) -> tuple[float, str] | None:
        if region is None:
            return None
        # A resource that is not spot runs on demand, unless the plan bought a commitment for its compute.
        pricing = "spot" if spot else (self.context.pricing if self.context.pricing.startswith("committed")
                                       else "on-demand")
        price = self.catalog.price(cloud, sku, region, pricing) or (
            None if spot else self.catalog.price(cloud, sku, region, "on-demand"))
        if price is None:
            # General-purpose machines (system pools) are service rows "vm-<type>", priced on demand.
            general = self.catalog.service_price(cloud, f"vm-{sku}", region)
            if general is None:
                return None
            return general.usd, f"on-demand ${general.usd:,.4g}/hour (as of {general.as_of})"
        return price.hourly_usd, f"{price.pricing.value} ${price.hourly_usd:,.4g}/{price.unit} (as of {price.as_of})"

    def service(self, cloud: Cloud, service: str, region: str | None) -> float:
        found = self.catalog.service_price(cloud, service, region or "*")
        return found.usd if found else 0.0

    # --- GCP -------------------------------------------------------------------------------------------------
    def gcp_node_pool(self, props: Mapping[str, Any]) -> tuple[float, float, str] | None:
        node_config = props.get("nodeConfig") or {}
        machine = node_config.get("machineType")
        region = _region_of_location(props.get("location")) or self.context.gcp_region
        spot = bool(node_config.get("spot") or node_config.get("preemptible"))
        autoscaling = props.get("autoscaling") or {}
        count = _first(props.get("nodeCount"), props.get("initialNodeCount"))
        maximum = _first(autoscaling.get("totalMaxNodeCount"), autoscaling.get("maxNodeCount"), count)
        minimum = _first(autoscaling.get("totalMinNodeCount"), autoscaling.get("minNodeCount"), count)
        locations = props.get("nodeLocations") or []
        per_zone = not autoscaling.get("totalMaxNodeCount") and autoscaling.get("maxNodeCount") and len(locations) > 1
        zones = len(locations) if per_zone else 1
        tpu = self.tpu_by_machine.get(machine or "")
        if tpu is not None:
            found = self.compute_hourly(Cloud.gcp, tpu.accelerator, region, spot)
            if found is None:
                return None
            hourly = found[0] * tpu.chips_per_host
            basis = f"{machine}: {tpu.chips_per_host} {tpu.accelerator} chips per node, {found[1]}"
        else:
            found = self.compute_hourly(Cloud.gcp, machine or "", region, spot)
            if found is None:
                return None
            hourly, basis = found[0], f"{machine}: {found[1]}"
        high = hourly * float(maximum) * zones * HOURS_PER_MONTH
        low = hourly * float(minimum) * zones * HOURS_PER_MONTH
        return high, low, f"{basis}; {int(minimum) * zones}-{int(maximum) * zones} nodes in {region}"

    def gcp_tpu_vm(self, props: Mapping[str, Any], chips: int, generation: str, zone: str | None) -> tuple | None:
        region = _region_of_location(zone) or self.context.gcp_region
        scheduling = props.get("schedulingConfig") or {}
        found = self.compute_hourly(Cloud.gcp, generation, region, bool(scheduling.get("spot")
                                                                         or scheduling.get("preemptible")))
        if found is None:
            return None
        monthly = found[0] * chips * HOURS_PER_MONTH
        return monthly, monthly, f"{chips} {generation} chips, {found[1]}, all month in {region}"

    def tpu_from_accelerator_type(self, accelerator_type: str) -> tuple[int, str] | None:
        tpu = self.catalog.tpu_slice(accelerator_type)
        return (tpu.chips, tpu.accelerator) if tpu else None

    def tpu_from_config(self, config: Mapping[str, Any]) -> tuple[int, str] | None:
        kind = str(config.get("type", "")).upper()
        topology = str(config.get("topology", ""))
        for tpu in self.catalog.tpu_slices:
            if tpu.accelerator_config_type == kind and tpu.topology == topology:
                return tpu.chips, tpu.accelerator
        if topology:
            chips = math.prod(int(part) for part in topology.split("x") if part.isdigit())
            for tpu in self.catalog.tpu_slices:
                if tpu.accelerator_config_type == kind:
                    return chips, tpu.accelerator
        return None


def price_resource(resource: NeutralResource, pricer: _Pricer) -> tuple[float, float, str] | None:
    """(monthly at max, monthly at min, basis) for a priced type; None for a type that costs nothing itself."""
    props = resource.props
    context = pricer.context
    kind = resource.type
    if kind == "gcp:container/nodePool:NodePool":
        return pricer.gcp_node_pool(props)
    if kind == "gcp:tpu/v2Vm:V2Vm":
        shape = (pricer.tpu_from_config(props["acceleratorConfig"]) if props.get("acceleratorConfig")
                 else pricer.tpu_from_accelerator_type(str(props.get("acceleratorType", "v2-8"))))
        return pricer.gcp_tpu_vm(props, *shape, props.get("zone")) if shape else None
    if kind == "gcp:tpu/v2QueuedResource:V2QueuedResource":
        total_high = total_low = 0.0
        bases = []
        for spec in ((props.get("tpu") or {}).get("nodeSpecs") or []):
            node = spec.get("node") or {}
            shape = (pricer.tpu_from_config(node["acceleratorConfig"]) if node.get("acceleratorConfig")
                     else pricer.tpu_from_accelerator_type(str(node.get("acceleratorType", ""))))
            priced = pricer.gcp_tpu_vm(props, *shape, props.get("zone")) if shape else None
            if priced:
                total_high, total_low = total_high + priced[0], total_low + priced[1]
                bases.append(priced[2])
        return (total_high, total_low, "; ".join(bases)) if bases else None
    if kind in ("gcp:container/cluster:Cluster", "aws:eks/cluster:Cluster"):
        cloud = Cloud.gcp if kind.startswith("gcp") else Cloud.aws
        fee = pricer.service(cloud, "gke-cluster" if cloud is Cloud.gcp else "eks-cluster",
                             context.gcp_region if cloud is Cloud.gcp else context.aws_region)
        return fee * HOURS_PER_MONTH, fee * HOURS_PER_MONTH, f"control-plane fee ${fee:g}/h all month"
    if kind in ("gcp:compute/routerNat:RouterNat", "aws:ec2/natGateway:NatGateway"):
        cloud = Cloud.gcp if kind.startswith("gcp") else Cloud.aws
        hourly = pricer.service(cloud, "nat-hour", props.get("region") or (
            context.gcp_region if cloud is Cloud.gcp else context.aws_region))
        return hourly * HOURS_PER_MONTH, hourly * HOURS_PER_MONTH, f"NAT gateway ${hourly:g}/h all month"
    if kind in ("gcp:storage/bucket:Bucket", "aws:s3/bucket:Bucket"):
        cloud = Cloud.gcp if kind.startswith("gcp") else Cloud.aws
        service = "gcs-standard" if cloud is Cloud.gcp else "s3-standard"
        region = (_region_of_location(str(props.get("location", "")).lower()) if cloud is Cloud.gcp
                  else context.aws_region)
        rate = pricer.service(cloud, service, region)
        monthly = context.bucket_gib * rate
        return monthly, monthly, f"{context.bucket_gib:,.0f} GiB ({context.bucket_basis}) at ${rate:g}/GiB-month"
    if kind == "gcp:filestore/instance:Instance":
        shares = props.get("fileShares") or {}
        capacity = float(shares.get("capacityGb", 0)) if isinstance(shares, Mapping) else 0.0
        tier = str(props.get("tier", "ZONAL")).lower().replace("_", "-")
        service = {"basic-hdd": "filestore-basic-hdd", "basic-ssd": "filestore-basic-ssd"}.get(tier, "filestore-zonal")
        rate = pricer.service(Cloud.gcp, service, context.gcp_region)
        return capacity * rate, capacity * rate, f"{capacity:,.0f} GiB {service} at ${rate:g}/GiB-month"
    if kind == "gcp:compute/disk:Disk":
        size = float(props.get("size", 0))
        disk_type = str(props.get("type", "pd-balanced"))
        rate = pricer.service(Cloud.gcp, disk_type if disk_type.startswith("pd-") else "pd-balanced",
                              context.gcp_region)
        return size * rate, size * rate, f"{size:,.0f} GiB {disk_type} at ${rate:g}/GiB-month"
    if kind == "aws:eks/nodeGroup:NodeGroup":
        instance_types = props.get("instanceTypes") or []
        scaling = props.get("scalingConfig") or {}
        spot = str(props.get("capacityType", "ON_DEMAND")).upper() == "SPOT"
        region = props.get("region") or context.aws_region
        found = pricer.compute_hourly(Cloud.aws, instance_types[0] if instance_types else "", region, spot)
        if found is None:
            return None
        high = found[0] * float(scaling.get("maxSize", 0)) * HOURS_PER_MONTH
        low = found[0] * float(scaling.get("minSize", 0)) * HOURS_PER_MONTH
        return high, low, (f"{instance_types[0]}: {found[1]}; {int(scaling.get('minSize', 0))}-"
                           f"{int(scaling.get('maxSize', 0))} nodes in {region}")
    if kind == "aws:fsx/lustreFileSystem:LustreFileSystem":
        capacity = float(props.get("storageCapacity", 0))
        deployment = str(props.get("deploymentType", "PERSISTENT_2"))
        throughput = int(float(props.get("perUnitStorageThroughput", 125)))
        service = "fsx-lustre-scratch2" if deployment.startswith("SCRATCH") else f"fsx-lustre-persistent2-{throughput}"
        rate = pricer.service(Cloud.aws, service, props.get("region") or context.aws_region)
        return capacity * rate, capacity * rate, f"{capacity:,.0f} GiB {service} at ${rate:g}/GiB-month"
    return None


PRICED_TYPES = frozenset({
    "gcp:container/nodePool:NodePool", "gcp:tpu/v2Vm:V2Vm", "gcp:tpu/v2QueuedResource:V2QueuedResource",
    "gcp:container/cluster:Cluster", "aws:eks/cluster:Cluster", "gcp:compute/routerNat:RouterNat",
    "aws:ec2/natGateway:NatGateway", "gcp:storage/bucket:Bucket", "aws:s3/bucket:Bucket",
    "gcp:filestore/instance:Instance", "gcp:compute/disk:Disk", "aws:eks/nodeGroup:NodeGroup",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
})


def price_resources(resources: Iterable[NeutralResource], catalog: Catalog,
                    context: PricingContext | None = None) -> CostReport:
    """Price every resource of a priced type; others cost nothing by themselves (a subnet, a role)."""
    context = context or PricingContext()
    pricer = _Pricer(catalog, context)
    costs: list[ResourceCost] = []
    unpriced: list[str] = []
    for resource in resources:
        if resource.type not in PRICED_TYPES:
            continue
        priced = price_resource(resource, pricer)
        if priced is None:
            unpriced.append(f"{resource.name} ({resource.type}): no catalog price for its type/region/pricing")
            continue
        high, low, basis = priced
        costs.append(ResourceCost(urn=resource.urn, type=resource.type, name=resource.name,
                                  monthly_usd=round(high, 2), min_monthly_usd=round(low, 2), basis=basis))
    assumptions = ASSUMPTIONS + (f"Buckets are sized from the spec: {context.bucket_basis}.",)
    return CostReport(resources=tuple(costs), monthly_usd=round(sum(c.monthly_usd for c in costs), 2),
                      min_monthly_usd=round(sum(c.min_monthly_usd for c in costs), 2),
                      assumptions=assumptions + tuple(f"Unpriced: {item}" for item in unpriced),
                      unpriced=tuple(unpriced))


def monthly_cost_of_resources(resources: Iterable[Mapping[str, Any] | NeutralResource], catalog: Catalog,
                              context: PricingContext | None = None) -> CostReport:
    """Convenience for callers holding dicts {type, name, props|inputs, urn} (policies, preview JSON)."""
    neutral = [resource if isinstance(resource, NeutralResource) else NeutralResource(
        type=resource["type"], name=resource["name"], props=resource.get("props", resource.get("inputs", {})),
        urn=resource.get("urn", "")) for resource in resources]
    return price_resources(neutral, catalog, context)
