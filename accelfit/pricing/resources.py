"""The three cost figures of a stack (`accelfit.pricing.figures`) from its resources, with the usage assumption
stated for each.

Pure: takes neutral resources (type token, name, camelCase inputs — as mocks record them, as CrossGuard sees
them and as `pulumi preview --json` prints them) and returns figures. The same code prices the in-process preview
and a real `pulumi preview --json` document, so the two can never disagree.

How long each resource runs is read from what the stack builds, never assumed:
- an accelerator pool bills the training run's hours only when it can scale to zero: minimum 0 nodes and an
  autoscaler that removes idle nodes (GKE: the pool's own autoscaling; EKS: a Cluster Autoscaler or Karpenter
  release in the stack); otherwise it bills all month;
- a serving pool bills part of the day only when a schedule in the stack scales it down (AWS: scheduled actions
  named `<pool>-schedule-start` / `-stop` on its Auto Scaling group); otherwise all day;
- TPU VMs and queued resources bill every hour they exist;
- system pools run their minimum all month (their maximum at full scale); control planes and NAT run all month;
- buckets are sized from the spec's dataset plus checkpoints; egress comes from the spec.
What the resources cannot say (the run's length, the bucket's size) comes from the plan through `PricingContext`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelfit.catalog.models import Catalog, Cloud, TpuSlice
from accelfit.pricing.figures import (
    COMMITMENT_TERM_HOURS, HOURS_PER_MONTH, Part, RunWindow, accelerator_pool, always_on, figures, per_month,
    serving_hours_per_month, vm_part,
)
from accelfit.pricing.capacity_blocks import block_for
from accelfit.pricing.node_disks import EKS_ROOT_VOLUME_SERVICE, GKE_DEFAULT_DISK_TYPE, disk_hourly_usd
from accelfit.pricing.onprem import onprem_unit_hourly_usd
from accelfit.pricing.serving_objects import (
    GATEWAY_TYPE, GCP_CLASS_PREFIX, POD_MONITORING_TYPE, SCALED_OBJECT_TYPE, kept_series, planned_servers, route_of,
)

GIB_PER_TB = 1e12 / 2.0**30
AUTOSCALER_CHARTS = ("cluster-autoscaler", "karpenter")
SCHEDULE_TYPE = "aws:autoscaling/schedule:Schedule"
LAUNCH_TEMPLATE_TYPE = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE_TEMPLATE_TYPE = "gcp:compute/instanceTemplate:InstanceTemplate"
INSTANCE_GROUP_TYPE = "gcp:compute/instanceGroupManager:InstanceGroupManager"
GKE_DEFAULT_DISK_SIZE_GB = 100  # GKE NodeConfig.diskSizeGb: "If unspecified, the default disk size is 100GB"
ROLE_LABEL = "accelfit.io/role"
# A fleet workload's standby pool for step N of its fallback chain carries this node label (N > 0; the planner's
# fleet_fallback sets it). It scales from 0 nodes and runs only when the pools before it have no capacity.
FALLBACK_RANK_LABEL = "accelfit.io/fallback-rank"


@dataclass(frozen=True)
class NeutralResource:
    type: str
    name: str
    props: Mapping[str, Any]
    urn: str = ""


@dataclass(frozen=True)
class PricingContext:
    """What the resources alone do not say: default regions, bucket sizes, the plan's pricing model, the training
    run (None: not a training run, or not known) and the spec's egress."""

    gcp_region: str | None = None
    aws_region: str | None = None
    bucket_gib: float = 0.0
    bucket_basis: str = "no dataset size known"
    pricing: str = "on-demand"  # committed plans price non-spot compute at their committed rate
    run: RunWindow | None = None
    egress_tb_per_month: float = 0.0
    egress_cloud: str | None = None
    egress_region: str | None = None
    # Request and response bytes a month through each serving route's load balancer, by route (its workload).
    serving_gb_per_month: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ResourceCost:
    urn: str
    type: str
    name: str
    monthly_usd: float
    full_scale_monthly_usd: float
    run_usd: float | None
    basis: str


@dataclass(frozen=True)
class CostReport:
    resources: tuple[ResourceCost, ...]
    usage: tuple[ResourceCost, ...]  # priced from the spec, not from a resource (egress)
    monthly_usd: float
    full_scale_monthly_usd: float
    run_total_usd: float | None
    assumptions: tuple[str, ...]
    unpriced: tuple[str, ...] = field(default=())

    def by_urn(self) -> dict[str, ResourceCost]:
        return {cost.urn or cost.name: cost for cost in self.resources}

    def figures_json(self) -> dict[str, float | None]:
        return {"monthly_usd": self.monthly_usd, "full_scale_monthly_usd": self.full_scale_monthly_usd,
                "run_total_usd": self.run_total_usd}


ASSUMPTIONS = (
    "monthly_usd: what the stack costs per month while it exists, as planned: always-on parts (control plane, NAT, "
    "the system pool at its minimum, storage) all month, accelerator pools for the hours they run in the month.",
    "full_scale_monthly_usd: every pool at its maximum all month (the most the autoscaler can spend).",
    "An accelerator pool bills only the run's hours when it can scale to zero (min 0 and an autoscaler), only the "
    "scheduled hours when a schedule scales it down, and all month otherwise; TPU VMs bill every hour they exist.",
    "Prices are list prices from the catalog, per region and pricing model, with their as-of dates.",
    "NAT data processing is not priced (bucket traffic uses private Google access or the S3 gateway endpoint).",
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


@dataclass(frozen=True)
class Priced:
    """A resource's rate and how it bills: a pool (nodes between min and max), a slice (TPU VMs, all or nothing),
    an always-on part (per hour) or a per-month part (storage)."""

    shape: str  # pool | slice | always-on | per-month | owned
    hourly_max: float = 0.0
    hourly_min: float = 0.0
    basis: str = ""
    monthly: float = 0.0
    min_nodes: float = 0.0
    autoscaled: bool = False  # the pool carries its own autoscaler (GKE node pool autoscaling)
    spot: bool = False
    system: bool = False  # a pool for cluster add-ons, not accelerators
    standby: bool = False  # a fleet workload's standby fallback pool (FALLBACK_RANK_LABEL above 0)
    disk_hourly: float = 0.0  # a GPU VM's boot disk
    idle_tail_hours: float = 0.0  # a GPU VM: how long it bills idle before autostop
    autostop_action: str = ""  # a GPU VM: stop | delete ("" = no autostop: it runs all month)
    # An AWS Capacity Block: the block's own hourly rate at the pool's maximum (hourly_max adds the root volumes);
    # the block bills every hour of its length (accelfit.pricing.capacity_blocks), paid up front.
    block_hourly_max: float = 0.0


def _is_standby(labels: Any) -> bool:
    rank = labels.get(FALLBACK_RANK_LABEL) if isinstance(labels, Mapping) else None
    return str(rank or "0").isdigit() and int(str(rank or "0")) > 0


def _is_system(labels: Mapping[str, Any], no_accelerator: bool) -> bool:
    role = labels.get(ROLE_LABEL) if isinstance(labels, Mapping) else None
    return role == "system" if role is not None else no_accelerator


_CRON = re.compile(r"^\s*(\d+)\s+(\d+)\s+\*\s+\*\s+\*\s*\Z")


def scheduled_hours_per_day(start_recurrence: str, stop_recurrence: str) -> float | None:
    """Hours a day between a daily start and stop ("M H * * *" each); None for any other recurrence."""
    start, stop = _CRON.match(start_recurrence or ""), _CRON.match(stop_recurrence or "")
    if not start or not stop:
        return None
    start_minutes = int(start.group(2)) * 60 + int(start.group(1))
    stop_minutes = int(stop.group(2)) * 60 + int(stop.group(1))
    return ((stop_minutes - start_minutes) % (24 * 60)) / 60.0


@dataclass(frozen=True)
class StackUsage:
    """What the stack builds that decides how long its pools run: an autoscaler, and daily schedules."""

    cluster_autoscaler: bool
    schedules: Mapping[str, Mapping[str, Any]]  # resource name -> inputs of aws:autoscaling/schedule:Schedule

    @classmethod
    def of(cls, resources: list[NeutralResource]) -> StackUsage:
        autoscaler = any(resource.type == "kubernetes:helm.sh/v3:Release"
                         and any(chart in str(resource.props.get("chart", "")) for chart in AUTOSCALER_CHARTS)
                         for resource in resources)
        schedules = {resource.name: resource.props for resource in resources if resource.type == SCHEDULE_TYPE}
        return cls(autoscaler, schedules)

    def hours_per_day(self, pool_name: str) -> float | None:
        """A node group `<pool>-ng` is scaled by schedules `<pool>-schedule-start` and `<pool>-schedule-stop`."""
        prefix = pool_name.removesuffix("-ng")
        start = self.schedules.get(f"{prefix}-schedule-start")
        stop = self.schedules.get(f"{prefix}-schedule-stop")
        if start is None or stop is None:
            return None
        return scheduled_hours_per_day(str(start.get("recurrence", "")), str(stop.get("recurrence", "")))

    def part(self, resource: NeutralResource, priced: Priced, context: PricingContext) -> tuple[Part, str]:
        run = context.run
        if priced.shape == "vm":
            committed = None if priced.spot else COMMITMENT_TERM_HOURS.get(context.pricing)
            if not priced.autostop_action:
                return (accelerator_pool(resource.name, priced.hourly_max + priced.disk_hourly, HOURS_PER_MONTH, run),
                        "a VM without autostop: all month")
            return (vm_part(resource.name, priced.hourly_max, priced.disk_hourly, priced.autostop_action, run,
                            priced.idle_tail_hours, committed),
                    f"the run plus {priced.idle_tail_hours * 60:g} min idle until autostop "
                    f"{priced.autostop_action}s it" + ("; its boot disk all month (kept while stopped)"
                                                       if priced.autostop_action == "stop" else ""))
        if priced.shape == "per-month":
            return per_month(resource.name, priced.monthly, run), "billed by the month"
        if priced.shape == "always-on" or (priced.shape == "pool" and priced.system):
            return (always_on(resource.name, priced.hourly_min, priced.hourly_max, run),
                    "all month" + (" at its minimum (its maximum at full scale)"
                                   if priced.hourly_min != priced.hourly_max else ""))
        if priced.standby:
            # Priced as planned at nothing: the pool exists at 0 nodes and the plan runs the workload on the pools
            # before it; at full scale it runs at its maximum all month like any pool.
            full = priced.hourly_max * HOURS_PER_MONTH
            return (Part(resource.name, 0.0, full, 0.0 if run else None),
                    "standby fallback pool: 0 nodes as planned (runs only when the pools before it are full), "
                    "its maximum all month at full scale")
        if priced.block_hourly_max and run is not None:
            block = block_for(run.accelerator_hours)
            disks = priced.hourly_max - priced.block_hourly_max
            return (Part(resource.name,
                         priced.block_hourly_max * min(block.hours, HOURS_PER_MONTH)
                         + disks * min(run.accelerator_hours, HOURS_PER_MONTH),
                         priced.hourly_max * HOURS_PER_MONTH,
                         priced.block_hourly_max * block.hours + disks * run.accelerator_hours),
                    f"a Capacity Block bills every hour of its {block.reason}, paid up front; its root volumes "
                    "while the run's nodes exist")
        committed = None if priced.spot else COMMITMENT_TERM_HOURS.get(context.pricing)
        if committed:
            return (accelerator_pool(resource.name, priced.hourly_max, HOURS_PER_MONTH, run, committed_term_hours=committed),
                    f"{context.pricing} bills every hour of its term")
        if priced.shape == "slice":
            return (accelerator_pool(resource.name, priced.hourly_max, HOURS_PER_MONTH, run),
                    "TPU VMs bill every hour they exist" + (": the run total counts the run only" if run else ""))
        if priced.shape == "owned":
            hours = run.accelerator_hours if run else HOURS_PER_MONTH
            return (accelerator_pool(resource.name, priced.hourly_max, hours, run),
                    "owned server at its power cost while it " + ("runs the training job" if run else "serves"))
        can_scale_to_zero = priced.min_nodes == 0 and (priced.autoscaled or self.cluster_autoscaler)
        if run is not None:
            if can_scale_to_zero:
                return (accelerator_pool(resource.name, priced.hourly_max, run.accelerator_hours, run),
                        f"at its maximum for the {run.accelerator_hours:,.1f} h run, then scaled to zero")
            why = ("its minimum is above 0" if priced.min_nodes else
                   "no autoscaler in the stack removes idle nodes")
            return (accelerator_pool(resource.name, priced.hourly_max, HOURS_PER_MONTH, run),
                    f"at its maximum all month: {why}")
        hours_per_day = self.hours_per_day(resource.name)
        if hours_per_day is not None:
            return (accelerator_pool(resource.name, priced.hourly_max, serving_hours_per_month(hours_per_day), run),
                    f"at its maximum {hours_per_day:g} h a day (scheduled), zero the rest")
        return accelerator_pool(resource.name, priced.hourly_max, HOURS_PER_MONTH, run), "at its maximum all month"


class _Pricer:
    def __init__(self, catalog: Catalog, context: PricingContext,
                 launch_templates: Mapping[str, Mapping[str, Any]] | None = None,
                 servers: Mapping[str, tuple[int, int]] | None = None):
        self.catalog = catalog
        self.context = context
        self.servers = servers or {}  # serving route -> its planned pool's (min, max) servers, from its autoscaler
        self.launch_templates = launch_templates or {}  # resource name -> inputs, for node groups' root volumes
        self.tpu_by_machine: dict[str, TpuSlice] = {}
        for tpu in catalog.tpu_slices:
            # Per-host machine types: the slice whose chips fit one host tells chips per node for the type.
            current = self.tpu_by_machine.get(tpu.gke_machine_type)
            if current is None or tpu.chips_per_host >= current.chips_per_host:
                self.tpu_by_machine[tpu.gke_machine_type] = tpu

    def compute_hourly(self, cloud: Cloud, sku: str, region: str | None,
                       spot: bool, buying: str | None = None) -> tuple[float, str, bool] | None:
        """(hourly, basis, general-purpose machine) for a machine type or accelerator SKU. `buying`: the pricing
        model the resource's own inputs name (flex-start, capacity-block), which wins over the plan's."""
        if region is None:
            return None
        # A resource that is not spot runs on demand, unless the plan bought a commitment for its compute.
        pricing = buying or ("spot" if spot else (self.context.pricing if self.context.pricing.startswith("committed")
                                                  else "on-demand"))
        if buying is not None:
            price = self.catalog.price(cloud, sku, region, buying)
            return None if price is None else (
                price.hourly_usd, f"{buying} ${price.hourly_usd:,.4g}/{price.unit} (as of {price.as_of})", False)
        price = self.catalog.price(cloud, sku, region, pricing) or (
            None if spot else self.catalog.price(cloud, sku, region, "on-demand"))
        if price is None:
            # General-purpose machines (system pools) are service rows "vm-<type>", priced on demand.
            general = self.catalog.service_price(cloud, f"vm-{sku}", region)
            if general is None:
                return None
            return general.usd, f"on-demand ${general.usd:,.4g}/hour (as of {general.as_of})", True
        return (price.hourly_usd, f"{price.pricing.value} ${price.hourly_usd:,.4g}/{price.unit} (as of {price.as_of})",
                False)

    def service(self, cloud: Cloud, service: str, region: str | None) -> float:
        found = self.catalog.service_price(cloud, service, region or "*")
        return found.usd if found else 0.0

    def reserved(self, cloud: Cloud, sku: str, region: str | None, reservation: str) -> tuple[float, str, bool]:
        """A machine on a held reservation: already paid (a sunk cost), so $0 here; its on-demand worth stated."""
        value = self.catalog.price(cloud, sku, region or "", "on-demand")
        worth = (f"on-demand equivalent ${value.hourly_usd:,.4g}/{value.unit} (as of {value.as_of})" if value
                 else "no on-demand price to value it")
        return 0.0, f"reservation {reservation}: already paid, $0 here ({worth})", False

    def launch_template(self, node_group_name: str) -> Mapping[str, Any]:
        """The launch template a node group `<pool>-ng` uses (`<pool>-lt`), or {}."""
        return self.launch_templates.get(f"{node_group_name.removesuffix('-ng')}-lt") or {}

    def root_volume_gb(self, node_group_name: str, disk_size_gb: Any = None) -> float:
        """GiB of EBS volumes per node from the node group's launch template (`<pool>-ng` uses `<pool>-lt`);
        without one, EKS gives a node a 20 GiB root volume (NodeGroup.diskSize default)."""
        template = self.launch_templates.get(f"{node_group_name.removesuffix('-ng')}-lt")
        if template is None:
            return _first(disk_size_gb, 20)
        return sum(float(((mapping or {}).get("ebs") or {}).get("volumeSize") or 0)
                   for mapping in (template.get("blockDeviceMappings") or []))

    # --- GCP -------------------------------------------------------------------------------------------------
    def gcp_node_pool(self, props: Mapping[str, Any]) -> Priced | None:
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
        affinity = node_config.get("reservationAffinity") or {}
        reservation = (", ".join(str(value) for value in affinity.get("values") or ()) or "(by key)") if str(
            affinity.get("consumeReservationType", "")).upper() == "SPECIFIC_RESERVATION" else None
        buying = "flex-start" if node_config.get("flexStart") else None
        if tpu is not None:
            found = self.compute_hourly(Cloud.gcp, tpu.accelerator, region, spot, buying)
            if found is None:
                return None
            hourly = found[0] * tpu.chips_per_host
            basis = f"{machine}: {tpu.chips_per_host} {tpu.accelerator} chips per node, {found[1]}"
        else:
            found = (self.reserved(Cloud.gcp, machine or "", region, reservation) if reservation and not spot
                     and self.catalog.instance_type(Cloud.gcp, machine or "") is not None
                     else self.compute_hourly(Cloud.gcp, machine or "", region, spot, buying))
            if found is None:
                return None
            # Each node's boot disk exists while the node does: priced with the node (accelfit.pricing.node_disks).
            disk_gb = _first(node_config.get("diskSizeGb"), GKE_DEFAULT_DISK_SIZE_GB)
            disk_type = str(node_config.get("diskType") or GKE_DEFAULT_DISK_TYPE)
            disk_rate = self.service(Cloud.gcp, disk_type, region)
            hourly = found[0] + disk_hourly_usd(disk_gb, disk_rate)
            basis = f"{machine}: {found[1]} + {disk_gb:g} GB {disk_type} boot disk at ${disk_rate:g}/GiB-month"
        labels = node_config.get("labels") or {}
        return Priced("pool", hourly * float(maximum) * zones, hourly * float(minimum) * zones,
                      f"{basis}; {int(minimum) * zones}-{int(maximum) * zones} nodes in {region}",
                      min_nodes=float(minimum) * zones, autoscaled=bool(autoscaling), spot=spot,
                      system=_is_system(labels, tpu is None and found[2]), standby=_is_standby(labels))

    def gcp_tpu_vm(self, props: Mapping[str, Any], chips: int, generation: str, zone: str | None) -> Priced | None:
        region = _region_of_location(zone) or self.context.gcp_region
        scheduling = props.get("schedulingConfig") or {}
        spot = bool(scheduling.get("spot") or scheduling.get("preemptible"))
        found = self.compute_hourly(Cloud.gcp, generation, region, spot)
        if found is None:
            return None
        hourly = found[0] * chips
        return Priced("slice", hourly, hourly, f"{chips} {generation} chips, {found[1]}, in {region}", spot=spot)

    def gcp_gpu_vm(self, props: Mapping[str, Any]) -> Priced | None:
        """A Compute Engine VM (gce-gpu-vm): its machine type, spot or not, its boot disk, and the autostop its
        labels declare (components/gcp/gpu_vm.py sets them with the idle check it installs)."""
        region = _region_of_location(props.get("zone")) or self.context.gcp_region
        spot = str((props.get("scheduling") or {}).get("provisioningModel", "")).upper() == "SPOT"
        found = self.compute_hourly(Cloud.gcp, str(props.get("machineType", "")), region, spot)
        if found is None:
            return None
        params = ((props.get("bootDisk") or {}).get("initializeParams") or {})
        disk_gb = _first(params.get("size"), 10)
        disk_type = str(params.get("type") or GKE_DEFAULT_DISK_TYPE)
        disk_rate = self.service(Cloud.gcp, disk_type, region)
        return self._vm(found, disk_gb, disk_type, disk_rate, props.get("labels") or {}, spot, region)

    def gcp_gpu_group(self, name: str, props: Mapping[str, Any]) -> Priced | None:
        """A GPU VM's managed instance group (gce-gpu-vm, components/gcp/gpu_vm.py): its target size of VMs made
        from its instance template (`<vm>-mig` uses `<vm>-template`): machine type, spot or not, boot disk, and the
        autostop its labels declare. A template alone costs nothing; the group runs it."""
        template = self.launch_templates.get(f"{name.removesuffix('-mig')}-template")
        if template is None:
            return None
        region = _region_of_location(props.get("zone")) or self.context.gcp_region
        spot = str((template.get("scheduling") or {}).get("provisioningModel", "")).upper() == "SPOT"
        found = self.compute_hourly(Cloud.gcp, str(template.get("machineType", "")), region, spot)
        if found is None:
            return None
        count = _first(props.get("targetSize"), 0)
        boot = next((disk for disk in template.get("disks") or [] if disk.get("boot")), {})
        disk_gb = _first(boot.get("diskSizeGb"), 10)
        disk_type = str(boot.get("diskType") or GKE_DEFAULT_DISK_TYPE)
        disk_rate = self.service(Cloud.gcp, disk_type, region)
        one = self._vm(found, disk_gb, disk_type, disk_rate, template.get("labels") or {}, spot, region)
        return Priced("vm", one.hourly_max * count, one.hourly_max * count, f"{count:g} × {one.basis}", spot=spot,
                      disk_hourly=one.disk_hourly * count, idle_tail_hours=one.idle_tail_hours,
                      autostop_action=one.autostop_action)

    def aws_gpu_vm(self, props: Mapping[str, Any]) -> Priced | None:
        """An EC2 instance (ec2-gpu-vm): its type, spot market, root volume and the autostop its tags declare."""
        region = self.context.aws_region
        spot = str((props.get("instanceMarketOptions") or {}).get("marketType", "")) == "spot"
        found = self.compute_hourly(Cloud.aws, str(props.get("instanceType", "")), region, spot)
        if found is None:
            return None
        root = props.get("rootBlockDevice") or {}
        disk_gb = _first(root.get("volumeSize"), 8)
        disk_rate = self.service(Cloud.aws, EKS_ROOT_VOLUME_SERVICE, region)
        return self._vm(found, disk_gb, str(root.get("volumeType") or "gp3"), disk_rate, props.get("tags") or {},
                        spot, region)

    @staticmethod
    def _vm(found: tuple[float, str, bool], disk_gb: float, disk_type: str, disk_rate: float,
            labels: Mapping[str, Any], spot: bool, region: str | None) -> Priced:
        minutes = str(labels.get("autostop-idle-minutes", ""))
        action = str(labels.get("autostop-action", "")) if minutes.isdigit() else ""
        return Priced("vm", found[0], found[0],
                      f"{found[1]} + {disk_gb:g} GB {disk_type} boot disk at ${disk_rate:g}/GiB-month, in {region}",
                      spot=spot, disk_hourly=disk_hourly_usd(disk_gb, disk_rate),
                      idle_tail_hours=int(minutes) / 60.0 if action else 0.0, autostop_action=action)

    def owned_server(self, props: Mapping[str, Any]) -> Priced | None:
        """A bare-metal node (the NodePatch that labels it) at its power cost; other node patches cost nothing."""
        labels = ((props.get("metadata") or {}).get("labels") or {})
        model, count = labels.get("accelfit.io/gpu-model"), labels.get("accelfit.io/gpu-count")
        if not model or not str(count or "").isdigit():
            return None
        accelerator = self.catalog.accelerator(str(model))
        hourly = onprem_unit_hourly_usd(accelerator.power_w, int(count))
        return Priced("owned", hourly, hourly, f"owned {count} × {accelerator.name} server: ${hourly:,.3g}/h of power")

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


def price_resource(resource: NeutralResource, pricer: _Pricer) -> Priced | None:
    """How a priced type costs (its hourly or monthly rate and shape); None for a type that costs nothing itself."""
    props = resource.props
    context = pricer.context
    kind = resource.type
    if kind in (GATEWAY_TYPE, POD_MONITORING_TYPE):
        return price_serving_route(resource, pricer)
    if kind == "gcp:container/nodePool:NodePool":
        return pricer.gcp_node_pool(props)
    if kind == "gcp:compute/instance:Instance":
        return pricer.gcp_gpu_vm(props)
    if kind == INSTANCE_GROUP_TYPE:
        return pricer.gcp_gpu_group(resource.name, props)
    if kind == "aws:ec2/instance:Instance":
        return pricer.aws_gpu_vm(props)
    if kind == "gcp:tpu/v2Vm:V2Vm":
        shape = (pricer.tpu_from_config(props["acceleratorConfig"]) if props.get("acceleratorConfig")
                 else pricer.tpu_from_accelerator_type(str(props.get("acceleratorType", "v2-8"))))
        return pricer.gcp_tpu_vm(props, *shape, props.get("zone")) if shape else None
    if kind == "gcp:tpu/v2QueuedResource:V2QueuedResource":
        slices = []
        for spec in ((props.get("tpu") or {}).get("nodeSpecs") or []):
            node = spec.get("node") or {}
            shape = (pricer.tpu_from_config(node["acceleratorConfig"]) if node.get("acceleratorConfig")
                     else pricer.tpu_from_accelerator_type(str(node.get("acceleratorType", ""))))
            priced = pricer.gcp_tpu_vm(props, *shape, props.get("zone")) if shape else None
            if priced:
                slices.append(priced)
        if not slices:
            return None
        hourly = sum(priced.hourly_max for priced in slices)
        return Priced("slice", hourly, hourly, "; ".join(priced.basis for priced in slices), spot=slices[0].spot)
    if kind in ("gcp:container/cluster:Cluster", "aws:eks/cluster:Cluster"):
        cloud = Cloud.gcp if kind.startswith("gcp") else Cloud.aws
        fee = pricer.service(cloud, "gke-cluster" if cloud is Cloud.gcp else "eks-cluster",
                             context.gcp_region if cloud is Cloud.gcp else context.aws_region)
        return Priced("always-on", fee, fee, f"control-plane fee ${fee:g}/h")
    if kind in ("gcp:compute/routerNat:RouterNat", "aws:ec2/natGateway:NatGateway"):
        cloud = Cloud.gcp if kind.startswith("gcp") else Cloud.aws
        hourly = pricer.service(cloud, "nat-hour", props.get("region") or (
            context.gcp_region if cloud is Cloud.gcp else context.aws_region))
        return Priced("always-on", hourly, hourly, f"NAT gateway ${hourly:g}/h")
    if kind in ("gcp:storage/bucket:Bucket", "aws:s3/bucket:Bucket"):
        cloud = Cloud.gcp if kind.startswith("gcp") else Cloud.aws
        service = "gcs-standard" if cloud is Cloud.gcp else "s3-standard"
        region = (_region_of_location(str(props.get("location", "")).lower()) if cloud is Cloud.gcp
                  else context.aws_region)
        rate = pricer.service(cloud, service, region)
        return Priced("per-month", monthly=context.bucket_gib * rate,
                      basis=f"{context.bucket_gib:,.0f} GiB ({context.bucket_basis}) at ${rate:g}/GiB-month")
    if kind == "gcp:filestore/instance:Instance":
        shares = props.get("fileShares") or {}
        capacity = float(shares.get("capacityGb", 0)) if isinstance(shares, Mapping) else 0.0
        tier = str(props.get("tier", "ZONAL")).lower().replace("_", "-")
        service = {"basic-hdd": "filestore-basic-hdd", "basic-ssd": "filestore-basic-ssd"}.get(tier, "filestore-zonal")
        rate = pricer.service(Cloud.gcp, service, context.gcp_region)
        return Priced("per-month", monthly=capacity * rate,
                      basis=f"{capacity:,.0f} GiB {service} at ${rate:g}/GiB-month")
    if kind == "gcp:compute/disk:Disk":
        size = float(props.get("size", 0))
        disk_type = str(props.get("type", "pd-balanced"))
        rate = pricer.service(Cloud.gcp, disk_type if disk_type.startswith("pd-") else "pd-balanced",
                              context.gcp_region)
        return Priced("per-month", monthly=size * rate, basis=f"{size:,.0f} GiB {disk_type} at ${rate:g}/GiB-month")
    if kind == "aws:eks/nodeGroup:NodeGroup":
        template = pricer.launch_template(resource.name)
        # A Capacity Block node group names its type in the launch template only (capacity-blocks-mng.html).
        instance_types = props.get("instanceTypes") or ([template["instanceType"]] if template.get("instanceType")
                                                        else [])
        scaling = props.get("scalingConfig") or {}
        capacity = str(props.get("capacityType", "ON_DEMAND")).upper()
        spot = capacity == "SPOT"
        region = props.get("region") or context.aws_region
        target = ((template.get("capacityReservationSpecification") or {}).get("capacityReservationTarget") or {})
        sku = instance_types[0] if instance_types else ""
        if capacity == "CAPACITY_BLOCK":
            found = pricer.compute_hourly(Cloud.aws, sku, region, False, "capacity-block")
        elif target.get("capacityReservationId") and not spot:
            found = pricer.reserved(Cloud.aws, sku, region, str(target["capacityReservationId"]))
        else:
            found = pricer.compute_hourly(Cloud.aws, sku, region, spot)
        if found is None:
            return None
        minimum, maximum = float(scaling.get("minSize", 0)), float(scaling.get("maxSize", 0))
        root_gb = pricer.root_volume_gb(resource.name, props.get("diskSize"))
        disk_rate = pricer.service(Cloud.aws, EKS_ROOT_VOLUME_SERVICE, region)
        hourly = found[0] + disk_hourly_usd(root_gb, disk_rate)
        return Priced("pool", hourly * maximum, hourly * minimum,
                      f"{instance_types[0]}: {found[1]} + {root_gb:g} GB gp3 root volume at ${disk_rate:g}/GiB-month; "
                      f"{int(minimum)}-{int(maximum)} nodes in {region}",
                      min_nodes=minimum, autoscaled=False, spot=spot,
                      block_hourly_max=found[0] * maximum if capacity == "CAPACITY_BLOCK" else 0.0,
                      system=_is_system(props.get("labels") or {}, found[2]),
                      standby=_is_standby(props.get("labels") or {}))
    if kind == "aws:fsx/lustreFileSystem:LustreFileSystem":
        capacity = float(props.get("storageCapacity", 0))
        deployment = str(props.get("deploymentType", "PERSISTENT_2"))
        throughput = int(float(props.get("perUnitStorageThroughput", 125)))
        service = "fsx-lustre-scratch2" if deployment.startswith("SCRATCH") else f"fsx-lustre-persistent2-{throughput}"
        rate = pricer.service(Cloud.aws, service, props.get("region") or context.aws_region)
        return Priced("per-month", monthly=capacity * rate,
                      basis=f"{capacity:,.0f} GiB {service} at ${rate:g}/GiB-month")
    if kind == "kubernetes:core/v1:NodePatch":
        return pricer.owned_server(props)
    return None


PRICED_TYPES = frozenset({
    "gcp:container/nodePool:NodePool", "gcp:tpu/v2Vm:V2Vm", "gcp:tpu/v2QueuedResource:V2QueuedResource",
    "gcp:container/cluster:Cluster", "aws:eks/cluster:Cluster", "gcp:compute/routerNat:RouterNat",
    "aws:ec2/natGateway:NatGateway", "gcp:storage/bucket:Bucket", "aws:s3/bucket:Bucket",
    "gcp:filestore/instance:Instance", "gcp:compute/disk:Disk", "aws:eks/nodeGroup:NodeGroup",
    "aws:fsx/lustreFileSystem:LustreFileSystem", "kubernetes:core/v1:NodePatch",
    "gcp:compute/instance:Instance", "aws:ec2/instance:Instance", GATEWAY_TYPE, POD_MONITORING_TYPE,
    INSTANCE_GROUP_TYPE,
})


def price_resources(resources: Iterable[NeutralResource], catalog: Catalog,
                    context: PricingContext | None = None,
                    surroundings: Iterable[NeutralResource] = ()) -> CostReport:
    """Price every resource of a priced type with the usage the stack itself provides for it; others cost nothing
    by themselves (a subnet, a role). `surroundings`: the rest of the cluster `resources` run in, when they are
    priced on their own (a fleet workload's pools with the shared cluster's autoscaler); read for usage only."""
    context = context or PricingContext()
    resources = list(resources)
    around = [*resources, *surroundings]
    pricer = _Pricer(catalog, context, {resource.name: resource.props for resource in around
                                        if resource.type in (LAUNCH_TEMPLATE_TYPE, INSTANCE_TEMPLATE_TYPE)},
                     planned_servers(resource.props for resource in around if resource.type == SCALED_OBJECT_TYPE))
    usage = StackUsage.of(around)
    costs: list[ResourceCost] = []
    unpriced: list[str] = []
    for resource in resources:
        if resource.type not in PRICED_TYPES:
            continue
        priced = price_resource(resource, pricer)
        if priced is None:
            # A node patch without inventory data, and a Gateway or PodMonitoring that is not a serving route's
            # (the GPU telemetry's), cost nothing themselves.
            free = resource.type == "kubernetes:core/v1:NodePatch" or (
                resource.type in (GATEWAY_TYPE, POD_MONITORING_TYPE) and route_of(resource.props) is None)
            if not free:
                unpriced.append(f"{resource.name} ({resource.type}): no catalog price for its type/region/pricing")
            continue
        part, how = usage.part(resource, priced, context)
        costs.append(ResourceCost(urn=resource.urn, type=resource.type, name=resource.name,
                                  monthly_usd=round(part.monthly_usd, 2),
                                  full_scale_monthly_usd=round(part.full_scale_monthly_usd, 2),
                                  run_usd=None if part.run_usd is None else round(part.run_usd, 2),
                                  basis=f"{priced.basis}; {how}"))
    spec_usage = tuple(_egress(pricer, context))
    parts = [Part(c.name, c.monthly_usd, c.full_scale_monthly_usd, c.run_usd) for c in costs + list(spec_usage)]
    totals = figures(parts, training=context.run is not None)
    assumptions = (*ASSUMPTIONS, f"Buckets are sized from the spec: {context.bucket_basis}.")
    return CostReport(resources=tuple(costs), usage=spec_usage, monthly_usd=totals.monthly_usd,
                      full_scale_monthly_usd=totals.full_scale_monthly_usd, run_total_usd=totals.run_total_usd,
                      assumptions=assumptions + tuple(f"Unpriced: {item}" for item in unpriced),
                      unpriced=tuple(unpriced))


def _egress(pricer: _Pricer, context: PricingContext) -> list[ResourceCost]:
    if not context.egress_tb_per_month or context.egress_cloud not in ("gcp", "aws"):
        return []
    rate = pricer.service(Cloud(context.egress_cloud), "egress-internet", context.egress_region)
    part = per_month("egress", context.egress_tb_per_month * 1000.0 * rate, context.run)
    return [ResourceCost(urn="", type="usage:egress", name="egress", monthly_usd=round(part.monthly_usd, 2),
                         full_scale_monthly_usd=round(part.full_scale_monthly_usd, 2),
                         run_usd=None if part.run_usd is None else round(part.run_usd, 2),
                         basis=f"{context.egress_tb_per_month:g} TB/month to the internet (from the spec) at "
                               f"${rate:g}/GB")]


def monthly_cost_of_resources(resources: Iterable[Mapping[str, Any] | NeutralResource], catalog: Catalog,
                              context: PricingContext | None = None) -> CostReport:
    """Convenience for callers holding dicts {type, name, props|inputs, urn} (policies, preview JSON)."""
    neutral = [resource if isinstance(resource, NeutralResource) else NeutralResource(
        type=resource["type"], name=resource["name"], props=resource.get("props", resource.get("inputs", {})),
        urn=resource.get("urn", "")) for resource in resources]
    return price_resources(neutral, catalog, context)


def price_serving_route(resource: NeutralResource, pricer: _Pricer) -> Priced | None:
    """The serving route's Gateway and metrics (accelfit.pricing.serving_objects), with the plan's formulas."""
    from accelfit.pricing.serving_route import gateway_part, metrics_part

    props = resource.props
    route = route_of(props)
    if route is None:
        return None
    if resource.type == GATEWAY_TYPE:
        gcp = str((props.get("spec") or {}).get("gatewayClassName", "")).startswith(GCP_CLASS_PREFIX)
        cloud = Cloud.gcp if gcp else Cloud.aws
        region = pricer.context.gcp_region if gcp else pricer.context.aws_region
        part = gateway_part(pricer.service(cloud, "serving-lb-hour", region),
                            pricer.context.serving_gb_per_month.get(route, 0.0),
                            pricer.service(cloud, "serving-lb-data", region), None)
        return Priced("per-month", monthly=part.monthly_usd, basis=part.note)
    series, interval = kept_series(props)
    low, high = pricer.servers.get(route, (0, 0))
    part = metrics_part(series, low, high, interval,
                        pricer.service(Cloud.gcp, "managed-prometheus-samples", pricer.context.gcp_region), None)
    return Priced("always-on", part.full_scale_monthly_usd / HOURS_PER_MONTH, part.monthly_usd / HOURS_PER_MONTH,
                  basis=part.note)
