"""What every resource-type pricer shares (accelfit.pricing.pricers): the neutral resource, the pricing context, a
priced rate (`Priced`), and `RateBook`, which looks rates up in the catalog for the resources of one stack. Pure."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accelfit.catalog.models import Catalog, Cloud, TpuSlice
from accelfit.buying import buying_model, term_hours
from accelfit.pricing.figures import RunWindow
from accelfit.pricing.node_disks import disk_hourly_usd

ROLE_LABEL = "accelfit.io/role"
# A fleet workload's standby pool for step N of its fallback chain carries this node label (N > 0; the planner's
# accelfit/planner/fleet/chain.py sets it). It scales from 0 nodes and runs only when the pools before it have no
# capacity.
FALLBACK_RANK_LABEL = "accelfit.io/fallback-rank"
# A hybrid workload's cloud overflow pool carries the hours a month it is planned to run at its full size
# (accelfit.planner.fleet.hybrid); the preview prices it for those hours.
OVERFLOW_HOURS_LABEL = "accelfit.io/overflow-hours-per-month"


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

    # Each cloud's default region (the stack's region key, the plan's region for the cloud it runs on), by cloud.
    regions: Mapping[str, str | None] = field(default_factory=dict)
    bucket_gib: float = 0.0
    bucket_basis: str = "no dataset size known"
    pricing: str = "on-demand"  # committed plans price non-spot compute at their committed rate
    run: RunWindow | None = None
    egress_tb_per_month: float = 0.0
    egress_cloud: str | None = None
    egress_region: str | None = None
    # Request and response bytes a month through each serving route's load balancer, by route (its workload).
    serving_gb_per_month: Mapping[str, float] = field(default_factory=dict)

    def region(self, cloud: str) -> str | None:
        """The cloud's default region, for a resource that names none; None where the stack says none."""
        return self.regions.get(cloud)


@dataclass(frozen=True)
class Priced:
    """A resource's rate and how it bills: a pool (nodes between min and max), a slice (TPU VMs, all or nothing),
    an always-on part (per hour) or a per-month part (storage)."""

    shape: str  # pool | slice | always-on | per-month | owned | vm
    hourly_max: float = 0.0
    hourly_min: float = 0.0
    basis: str = ""
    monthly: float = 0.0
    min_nodes: float = 0.0
    autoscaled: bool = False  # the pool carries its own autoscaler (GKE node pool autoscaling)
    spot: bool = False
    system: bool = False  # a pool for cluster add-ons, not accelerators
    standby: bool = False  # a fleet workload's standby fallback pool (FALLBACK_RANK_LABEL above 0)
    overflow_hours: float | None = None  # a hybrid workload's overflow pool: its hours a month (OVERFLOW_HOURS_LABEL)
    disk_hourly: float = 0.0  # a GPU VM's boot disk
    idle_tail_hours: float = 0.0  # a GPU VM: how long it bills idle before autostop
    autostop_action: str = ""  # a GPU VM: stop | delete ("" = no autostop: it runs all month)
    # An AWS Capacity Block: the block's own hourly rate at the pool's maximum (hourly_max adds the root volumes);
    # the block bills every hour of its length (accelfit.pricing.capacity_blocks), paid up front.
    block_hourly_max: float = 0.0


def region_of_location(location: str | None) -> str | None:
    """'us-central1-a' -> 'us-central1'; a region stays itself; AWS AZ 'us-east-1a' -> 'us-east-1'."""
    if not location:
        return None
    parts = location.split("-")
    if len(parts) == 3 and len(parts[-1]) == 1 and parts[-1].isalpha():  # GCP zone
        return "-".join(parts[:2])
    if location[-1].isalpha() and location[-2].isdigit():  # AWS availability zone
        return location[:-1]
    return location


def first_set(*values: Any) -> float:
    """The first value that is set; 0 is a real value here (a pool that scales to zero)."""
    return float(next((value for value in values if value is not None), 0))


def is_standby(labels: Any) -> bool:
    rank = labels.get(FALLBACK_RANK_LABEL) if isinstance(labels, Mapping) else None
    return str(rank or "0").isdigit() and int(str(rank or "0")) > 0


def overflow_hours(labels: Any) -> float | None:
    """The hours a month an overflow pool is planned to run (OVERFLOW_HOURS_LABEL), or None for any other pool."""
    value = labels.get(OVERFLOW_HOURS_LABEL) if isinstance(labels, Mapping) else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def is_system(labels: Mapping[str, Any], no_accelerator: bool) -> bool:
    role = labels.get(ROLE_LABEL) if isinstance(labels, Mapping) else None
    return role == "system" if role is not None else no_accelerator


def vm_priced(found: tuple[float, str, bool], disk_gb: float, disk_type: str, disk_rate: float,
              labels: Mapping[str, Any], spot: bool, region: str | None) -> Priced:
    """A GPU VM: its machine, its boot disk and the autostop its labels (GCE) or tags (EC2) declare."""
    minutes = str(labels.get("autostop-idle-minutes", ""))
    action = str(labels.get("autostop-action", "")) if minutes.isdigit() else ""
    return Priced("vm", found[0], found[0],
                  f"{found[1]} + {disk_gb:g} GB {disk_type} boot disk at ${disk_rate:g}/GiB-month, in {region}",
                  spot=spot, disk_hourly=disk_hourly_usd(disk_gb, disk_rate),
                  idle_tail_hours=int(minutes) / 60.0 if action else 0.0, autostop_action=action)


class RateBook:
    """The catalog's rates for one stack's resources, with what pricing them needs from around them: the launch
    and instance templates their groups use, and each serving route's planned servers."""

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
        pricing = buying or ("spot" if spot else (self.context.pricing if term_hours(self.context.pricing)
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

    def node_hourly(self, cloud: Cloud, sku: str, region: str | None, buying: str,
                    reservation: str | None = None) -> tuple[float, str, bool] | None:
        """(hourly, basis, general-purpose machine) of a node obtained under `buying` (the model its cloud's pricer
        reads from the rendered resource), by what the buying-model table says of it: held capacity is sunk
        (`reserved`); spot at spot rows; ordinary on-demand capacity (the kind that takes open reservations) on
        demand, or at the plan's commitment, general-purpose machines at their service rows; any other model
        (flex-start, a Capacity Block) at its own rows only."""
        model = buying_model(buying)
        if model.price_source == "held":
            return self.reserved(cloud, sku, region, reservation or "")
        own_rows = not (model.preemptible or model.takes_open_reservations)
        return self.compute_hourly(cloud, sku, region, model.preemptible, model.name if own_rows else None)

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
            return first_set(disk_size_gb, 20)
        return sum(float(((mapping or {}).get("ebs") or {}).get("volumeSize") or 0)
                   for mapping in (template.get("blockDeviceMappings") or []))

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


def always_on_fee(book: RateBook, cloud: Cloud, service: str, region: str | None, what: str) -> Priced:
    """A part billed by the hour all month at a service rate (a control plane, a NAT gateway)."""
    fee = book.service(cloud, service, region)
    return Priced("always-on", fee, fee, f"{what} ${fee:g}/h")


def storage_per_month(book: RateBook, cloud: Cloud, service: str, region: str | None, gib: float,
                      described: str) -> Priced:
    """A part billed by the GiB-month (a bucket, a file system, a disk)."""
    rate = book.service(cloud, service, region)
    return Priced("per-month", monthly=gib * rate, basis=f"{described} at ${rate:g}/GiB-month")
