"""Total cost of ownership of a sized option, as parts of the one cost model (`accelfit.pricing.figures`):
accelerator capacity under its pricing model, the system pool, cluster fees, NAT, storage for the dataset and
checkpoints, a shared file system where the plan has one, egress.

What each part assumes is what the stack builds (design.md section 7):
- Training pools on a cluster scale to zero after the run (min 0 nodes, the cluster autoscaler removes idle
  nodes), so they bill the run's hours; TPU VMs have no autoscaler and bill every hour they exist; a commitment
  bills its whole term whether the fleet runs or not.
- Inference bills `hours_per_day` of serving only where a schedule scales the pool down the rest of the day
  (EKS: scheduled actions on the node group's Auto Scaling group); elsewhere it is priced 24 hours a day and the
  note says why.
- The system pool runs its minimum all month; the control plane and NAT run all month.
- Storage and egress are billed by the month; a training run pays them for the share of a month it lasts.
"""

from __future__ import annotations

from typing import Any

import math
from dataclasses import dataclass

from accelfit.buying import find_buying_model, term_hours
from accelfit.catalog.models import Catalog
from accelfit.clouds import cloud_named, cloud_of_platform
from accelfit.planner.costing import filestore_capacity
from accelfit.planner.costing.data_transfer import transfer_part
from accelfit.planner import preferences as pref
from accelfit.planner.memory import weights_bytes
from accelfit.planner.model import NodePool
from accelfit.planner.options import Offer
from accelfit.planner.serving.traffic import serving_traffic_facts
from accelfit.pricing.figures import (
    HOURS_PER_MONTH, CostFigures, Part, RunWindow, accelerator_pool, always_on, figures, per_month,
    serving_hours_per_month,
)
from accelfit.pricing.server_windows import stop_tail_hours
from accelfit.pricing.node_disks import disk_hourly_usd, gke_boot_disk_type
from accelfit.pricing.capacity_blocks import block_for
from accelfit.pricing.overheads import overhead_for, run_window
from accelfit.durations import duration
from accelfit.spec import WorkloadSpec
from accelfit.spec.models import ModelServer

GIB_PER_TB = 1e12 / 2.0**30
# The system pool of a cluster: add-ons (DNS, Kueue, the autoscaler, telemetry) on 1 node, growing to 3.
SYSTEM_POOL_MIN_NODES = 1
SYSTEM_POOL_MAX_NODES = 3
SYSTEM_POOL_DISK_GB = 100
CLUSTER_PLATFORMS = ("gke-gpu", "gke-tpu", "eks-gpu")
# Platforms that take a part-day service's pools to zero outside its daily window, and how (the plan's note):
# - EKS: scheduled actions on the node group's Auto Scaling group set it to zero nodes (components/aws/schedule.py).
# - GKE (GPU pools): a KEDA cron trigger holds the servers for the window and lets them go after it (minReplicaCount
#   0; keda.sh/docs/2.18/scalers/cron, scaledobject-spec cooldownPeriod), and the cluster autoscaler removes the
#   empty nodes down to the pool's minimum of 0 ("When demand is low, the cluster autoscaler scales back down to a
#   minimum size that you designate": cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler, as of
#   2026-11-29). The preview prices such a pool for the window only when it finds that chain
#   (accelfit/pricing/resources.py, StackUsage.server_windows).
# TPU serving pools are not scheduled: a part-day TPU service is priced all day and says why.
@dataclass(frozen=True)
class ServingSchedule:
    how: str  # the plan's note
    needs_server: bool  # the window is kept by the model servers' autoscaler, so only where the stack builds them
    stop_tail: bool = False  # the nodes bill on after the window until the autoscalers let them go (stop_tail_hours)


SCHEDULED_SERVING_PLATFORMS = {
    "eks-gpu": ServingSchedule("a schedule scales the node group to zero the rest of the day", needs_server=False),
    "gke-gpu": ServingSchedule("a cron trigger lets the servers go the rest of the day (once idle) and the cluster "
                               "autoscaler removes the empty nodes", needs_server=True, stop_tail=True),
}
# When a part-day service starts (UTC) unless the spec says (inference.serving_start_utc).
SERVING_START_UTC = "08:00"


def serving_window(spec: WorkloadSpec, offer: Offer) -> tuple[str, float] | None:
    """(start HH:MM UTC, hours) when the stack scales the serving pool on a schedule; None when it runs all day."""
    if spec.inference is None or spec.inference.hours_per_day >= 24 or term_hours(offer.pricing):
        return None
    schedule = SCHEDULED_SERVING_PLATFORMS.get(offer.platform)
    if schedule is None or (schedule.needs_server and spec.model_server in (None, ModelServer.none)):
        return None
    return spec.inference.serving_start_utc or SERVING_START_UTC, spec.inference.hours_per_day


@dataclass(frozen=True)
class StorageNeeds:
    dataset_tb: float
    checkpoint_tb: float
    shared_filesystem: str  # none | filestore | fsx-lustre
    filesystem_capacity_gib: int


def checkpoint_tb(spec: WorkloadSpec) -> float:
    """What the bucket keeps besides the dataset. Full training: the last checkpoints of the whole training state.
    LoRA: the frozen base weights once, plus the last checkpoints of the adapter (its weights and Adam state).
    Inference: the weights served."""
    if spec.model.architecture.value == "other":
        # Weights plus optimizer state are within model.memory_gib; keep that per checkpoint (an upper bound).
        per = spec.model.copy_memory_gib * 2.0**30 / 1e12
        return per * (pref.CHECKPOINTS_KEPT if spec.training is not None else 1)
    if spec.training is None:
        return weights_bytes(spec.model) / 1e12
    parameters = spec.model.total_parameters  # a Mixture-of-Experts checkpoint holds every expert
    if spec.training.method.value == "lora":
        adapter = parameters * pref.LORA_ADAPTER_FRACTION
        return (parameters * 2 + adapter * pref.CHECKPOINT_BYTES_PER_PARAM * pref.CHECKPOINTS_KEPT) / 1e12
    return parameters * pref.CHECKPOINT_BYTES_PER_PARAM * pref.CHECKPOINTS_KEPT / 1e12


def storage_needs(spec: WorkloadSpec, offer: Offer, units: int) -> StorageNeeds:
    training = spec.training is not None
    shared = "none"
    capacity_gib = 0
    multi_node_gpu = training and offer.accelerator.kind == "gpu" and units > 1
    filesystem = cloud_named(offer.cloud).shared_filesystem
    if multi_node_gpu and spec.data.dataset_tb >= pref.SHARED_FILESYSTEM_MIN_DATASET_TB and filesystem:
        shared = filesystem
        wanted_gib = spec.data.dataset_tb * GIB_PER_TB
        if shared == "filestore":
            # The tier's real sizes (Zonal: 256 GiB steps to 9.75 TiB, then 2.5 TiB steps to 100 TiB).
            # A dataset beyond the tier's largest share stays in the bucket; the share caches what fits.
            tier = filestore_capacity.PLANNED_TIER
            capacity_gib = filestore_capacity.round_up_gib(tier, min(wanted_gib, filestore_capacity.largest_gib(tier)))
        else:
            # FSx for Lustre PERSISTENT_2 grows in 2400 GiB steps (min 1200).
            capacity_gib = max(1200, math.ceil(wanted_gib / 2400) * 2400)
    return StorageNeeds(spec.data.dataset_tb, checkpoint_tb(spec), shared, capacity_gib)


def _service(catalog: Catalog, cloud: str, service: str, region: str) -> float:
    found = None if cloud_named(cloud).owned else catalog.service_price(cloud, service, region)
    return found.usd if found else 0.0


def nat_gateways(offer: Offer) -> int:
    """AWS builds one NAT gateway per zone (each private subnet routes through its own), except for one GPU VM: a
    single NAT gateway in the VM's zone (components/aws/gpu_vm.py); GCP one Cloud NAT."""
    cloud = cloud_named(offer.cloud)
    if not cloud.nat_per_zone or offer.platform == cloud.vm_platform:
        return 1
    return len(offer.zones)


def run_of(spec: WorkloadSpec, offer: Offer, run_hours: float) -> RunWindow | None:
    return run_window(offer.platform, run_hours) if spec.training is not None else None


def serving_plan(spec: WorkloadSpec, offer: Offer) -> tuple[float, str]:
    """(hours a month the accelerators are planned to run, why) for inference."""
    hours_per_day = spec.inference_block.hours_per_day
    if hours_per_day >= 24:
        return HOURS_PER_MONTH, "24 h a day"
    if term_hours(offer.pricing):
        return HOURS_PER_MONTH, f"{hours_per_day:g} h a day, but committed capacity bills every hour"
    window = serving_window(spec, offer)
    if window is not None:
        schedule = SCHEDULED_SERVING_PLATFORMS[offer.platform]
        tail = stop_tail_hours(serving_traffic_facts().autoscaling.cooldown_period_seconds) if schedule.stop_tail \
            else 0.0
        after = f" (+{tail * 60:g} min until the last node goes)" if tail else ""
        return serving_hours_per_month(hours_per_day + tail), (f"{hours_per_day:g} h a day from {window[0]} UTC"
                                                               f"{after}: {schedule.how}")
    fix = ("set model.weights so the stack builds the model server, whose autoscaler keeps the window"
           if offer.platform in SCHEDULED_SERVING_PLATFORMS else
           "scale your serving workload to zero off-hours and the autoscaler removes the idle nodes")
    return HOURS_PER_MONTH, (f"priced 24 h a day although the spec serves {hours_per_day:g} h: {offer.platform} "
                             f"builds no schedule that scales the pool down ({fix})")


def node_boot_disk(catalog: Catalog, offer: Offer, system: bool) -> tuple[float, str]:
    """(hourly USD, description) of one node's boot disk as the stack builds it: the plan's pool disk size
    (GPU pools the NodePool default, the system pool SYSTEM_POOL_DISK_GB) and the type the stack sets.
    TPU machines and owned servers: none priced (accelfit.pricing.node_disks)."""
    if cloud_named(offer.cloud).owned or (offer.tpu_slice is not None and not system):
        return 0.0, ""
    if system:
        return system_boot_disk(catalog, offer.cloud, offer.region)
    size_gb = NodePool.model_fields["disk_size_gb"].default
    cloud = cloud_named(offer.cloud)
    service = (gke_boot_disk_type(offer.instance.family if offer.instance else "") if cloud.node_disk_by_family
               else cloud.node_disk_service)
    rate = _service(catalog, offer.cloud, service, offer.region)
    return disk_hourly_usd(size_gb, rate), f"{size_gb} GB {service} boot disk per node"


def system_boot_disk(catalog: Catalog, cloud: str, region: str) -> tuple[float, str]:
    """(hourly USD, description) of one system-pool node's boot disk (SYSTEM_POOL_DISK_GB, the type the stack sets)."""
    service = cloud_named(cloud).node_disk_service
    rate = _service(catalog, cloud, service, region)
    return disk_hourly_usd(SYSTEM_POOL_DISK_GB, rate), f"{SYSTEM_POOL_DISK_GB} GB {service} boot disk per node"


def cost_parts(spec: WorkloadSpec, catalog: Catalog, offer: Offer, units: int, run_hours: float,
               storage: StorageNeeds, shared: dict[Any, Any] | None = None) -> tuple[Part, ...]:
    """Every priced part of the option. For training `run_hours` is the run; for inference it is ignored.

    `shared` (a dict the caller keeps while it costs one spec's offers) holds the parts that depend only on the
    place (cluster, NAT, storage, egress), computed once per platform, region, zones and run: a full catalog offers
    hundreds of machine types in the same regions."""
    cloud, region = offer.cloud, offer.region
    run = run_of(spec, offer, run_hours)
    vm = None
    if offer.platform in ("gce-gpu-vm", "ec2-gpu-vm"):
        from accelfit.planner.gpu_vms import vm_parts

        vm = vm_parts(spec, catalog, offer, run)
    disk_hourly, disk_note = (node_boot_disk(catalog, offer, system=False) if offer.platform in CLUSTER_PLATFORMS
                              else (0.0, ""))
    fleet_hourly = units * (offer.unit_hourly_usd + disk_hourly)
    committed_term = term_hours(offer.pricing)

    if run is not None:
        if committed_term:
            note = f"{offer.pricing} bills {units} × {offer.machine} for the whole {committed_term:,.0f} h term"
            planned = HOURS_PER_MONTH
        elif offer.platform == "tpu-vm":
            note = (f"{units} × {offer.machine}: TPU VMs bill every hour they exist (nothing scales them to zero); "
                    f"the run needs {duration(run.accelerator_hours)}")
            planned = HOURS_PER_MONTH
        else:
            note = (f"{units} × {offer.machine} for the {duration(run.compute_hours)} run and {run.start_hours:g} h "
                    "of start, then scaled to zero (min 0 nodes, the cluster autoscaler removes idle nodes)")
            planned = run.accelerator_hours
    else:
        planned, why = serving_plan(spec, offer)
        note = f"{units} × {offer.machine}, {why}"
    if disk_note:
        note += f" (with a {disk_note})"
    compute = (accelerator_pool("compute", fleet_hourly, planned, run, note, committed_term) if vm is None
               else None)
    model = find_buying_model(offer.pricing)  # None: owned servers
    if model is not None and model.sunk:
        if compute is None:  # held capacity is built as a node pool, never a GPU VM (planner/buying.py rejects it)
            raise AssertionError(f"{offer.machine}: a {offer.pricing} offer on {offer.platform}")
        compute = _reserved(compute, offer, units)
    elif model is not None and model.whole_block and run is not None:
        compute = _capacity_block(offer, units, disk_hourly, run, note)
    key = (offer.platform, cloud, region, nat_gateways(offer), run, storage)
    rest = shared.get(key) if shared is not None else None
    if rest is None:
        rest = place_parts(spec, catalog, *key)
        if shared is not None:
            shared[key] = rest
    return (*(vm if vm is not None else (compute,)), *rest)


def _reserved(compute: Part, offer: Offer, units: int) -> Part:
    """A held reservation is already paid (a sunk cost): the plan adds $0 for its machines, only their boot
    disks (a reservation holds VMs, not their disks). Its on-demand-equivalent value is stated beside it."""
    value = offer.price
    worth = (f"its on-demand equivalent is ${value.hourly_usd * units:,.2f}/h for {units} × {offer.machine} "
             f"(as of {value.as_of}), which it saves" if value is not None
             else f"the catalog has no on-demand price to value {offer.machine} with")
    return Part(compute.item, compute.monthly_usd, compute.full_scale_monthly_usd, compute.run_usd,
                f"reservation {offer.reservation}: already paid (a sunk cost), so its machines add $0 here; {worth}"
                f"; {compute.note}")


def _capacity_block(offer: Offer, units: int, disk_hourly: float, run: RunWindow, note: str) -> Part:
    """An EC2 Capacity Block bills every hour of the block, up front, in the lengths AWS sells; the nodes' root
    volumes bill while they run."""
    block = block_for(run.accelerator_hours)
    block_usd = units * offer.unit_hourly_usd * block.hours
    disks_usd = units * disk_hourly * run.accelerator_hours
    full = units * (offer.unit_hourly_usd + disk_hourly) * HOURS_PER_MONTH
    monthly = units * offer.unit_hourly_usd * min(block.hours, HOURS_PER_MONTH) + units * disk_hourly * min(
        run.accelerator_hours, HOURS_PER_MONTH)
    return Part("compute", monthly, full, block_usd + disks_usd,
                f"Capacity Block of {units} × {offer.machine} for a {block.reason}: ${block_usd:,.0f} paid up front "
                f"for {block.hours:,.0f} h (${offer.unit_hourly_usd:,.4g}/instance-hour) whether the run uses them "
                f"or not; {note}")


def place_parts(spec: WorkloadSpec, catalog: Catalog, platform: str, cloud: str, region: str, gateways: int,
                run: RunWindow | None, storage: StorageNeeds) -> tuple[Part, ...]:
    """The parts besides the accelerators: cluster, NAT, bucket, shared file system, egress."""
    parts: list[Part] = []
    if platform in CLUSTER_PLATFORMS:
        parts.extend(cluster_parts(catalog, cloud, region, run))
    if not cloud_of_platform(platform).owned:
        parts.append(nat_part(catalog, cloud, region, gateways, run))

    if not cloud_named(cloud).owned:
        bucket_gib = (storage.dataset_tb + storage.checkpoint_tb) * GIB_PER_TB
        bucket = bucket_gib * _service(catalog, cloud, cloud_named(cloud).bucket_service, region)
        parts.append(per_month("storage", bucket, run, f"bucket: {storage.dataset_tb:g} TB dataset + "
                                                        f"{storage.checkpoint_tb:.3g} TB checkpoints and weights"))
        if storage.shared_filesystem != "none":
            service = "filestore-zonal" if storage.shared_filesystem == "filestore" else "fsx-lustre-persistent2-125"
            monthly = storage.filesystem_capacity_gib * _service(catalog, cloud, service, region)
            parts.append(per_month("filesystem", monthly, run,
                                   f"{storage.shared_filesystem} {storage.filesystem_capacity_gib} GiB"))
        egress = spec.data.egress_tb_per_month * 1000.0 * _service(catalog, cloud, "egress-internet", region)
        if egress:
            parts.append(per_month("egress", egress, run, f"{spec.data.egress_tb_per_month:g} TB/month to the "
                                                          "internet"))
    moved = transfer_part(spec, catalog, cloud, region, storage.checkpoint_tb, run)  # out of data.region
    if moved is not None:
        parts.append(moved)
    return tuple(parts)


def cluster_parts(catalog: Catalog, cloud: str, region: str, run: RunWindow | None) -> tuple[Part, Part]:
    """The system pool and the control plane of one cluster: what a cluster costs whatever runs on it. A fleet's
    shared cluster prices them with this same function, once (accelfit.planner.fleet.costs)."""
    system = cloud_named(cloud).system_pool_machine
    system_disk_hourly, system_disk_note = system_boot_disk(catalog, cloud, region)
    hourly = _service(catalog, cloud, f"vm-{system}", region) + system_disk_hourly
    fee = _service(catalog, cloud, cloud_named(cloud).cluster_fee_service, region)
    return (always_on("system", hourly * SYSTEM_POOL_MIN_NODES, hourly * SYSTEM_POOL_MAX_NODES, run,
                      f"system pool {system} with a {system_disk_note}, {SYSTEM_POOL_MIN_NODES} node all "
                      f"month (up to {SYSTEM_POOL_MAX_NODES} at full scale)"),
            always_on("cluster", fee, fee, run, "control-plane fee"))


def nat_part(catalog: Catalog, cloud: str, region: str, gateways: int, run: RunWindow | None) -> Part:
    """The network's NAT: `gateways` NAT gateways (AWS one per zone, GCP one Cloud NAT) all month."""
    nat = _service(catalog, cloud, "nat-hour", region) * gateways
    return always_on("nat", nat, nat, run, f"{gateways} NAT gateway{'s' if gateways > 1 else ''}; bucket "
                                           "traffic uses private access/endpoints, not NAT")


def plan_figures(spec: WorkloadSpec, parts: tuple[Part, ...]) -> CostFigures:
    return figures(parts, training=spec.training is not None)


def cost_assumptions(spec: WorkloadSpec, offer: Offer, run_hours: float) -> tuple[str, ...]:
    out = ["monthly_usd: always-on parts (control plane, NAT, the system pool at its minimum, storage) all month, "
           "accelerator capacity for the hours it is planned to run in the month; full_scale_monthly_usd: every pool "
           "at its maximum all month."]
    if spec.training is not None:
        run = run_window(offer.platform, run_hours)
        overhead = overhead_for(offer.platform)
        out.append(f"run_total_usd: {run.setup_hours:g} h of stack creation (always-on parts bill), "
                   f"{run.start_hours:g} h of accelerator start (boot, image pull, weights) and "
                   f"{duration(run.compute_hours)} of training; storage for the share of a month the run lasts. "
                   f"Overheads: {overhead.source}")
        if offer.platform in ("gce-gpu-vm", "ec2-gpu-vm"):
            out.append(f"The GPU VM bills the run plus {spec.placement.autostop_idle_minutes} min of idle GPUs before "
                       f"autostop {spec.placement.autostop_action.value}s it; no cluster fee or system pool.")
        if offer.platform == "tpu-vm":
            out.append("TPU VMs bill every hour they exist: the run total assumes the stack is destroyed when the run "
                       "ends; monthly_usd is what they cost per month while they exist.")
    if offer.owned is not None:
        out.append(offer.owned.statement())
    return tuple(out)
