"""Turn the chosen, sized option into a Plan: node pools, TPU slices, network and storage, all decided here."""

from __future__ import annotations

import math

from accelfit.buying import all_buying_models, buying_model, find_buying_model
from accelfit.catalog import TpuSlice
from accelfit.clouds import cloud_named
from accelfit.clouds.gcp_flex_start import flex_start_placement_rejection
from accelfit.planner.costing.option_costs import (
    SYSTEM_POOL_DISK_GB, SYSTEM_POOL_MAX_NODES, SYSTEM_POOL_MIN_NODES, serving_window, storage_needs,
)
from accelfit.planner.limits import pods_cidr_for, pool_sizes
from accelfit.planner.model import (
    Estimate, NetworkPlan, NodePool, PlanAccelerator, StoragePlan, Taint, TpuVmSlice,
)
from accelfit.planner.options import Offer, Sized
from accelfit.planner.software import baremetal_gpu_driver, gke_gpu_driver_version, tpu_runtime_version
from accelfit.planner.sizes import peak_factor
from accelfit.spec import WorkloadSpec

GPU_TAINT = Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")
# Node label shared by the slice pools of one multislice job (value: the set's name; "tpu" for the planned set).
SLICE_SET_LABEL = "accelfit.io/slice-set"
TPU_TAINT = Taint(key="google.com/tpu", value="present", effect="NoSchedule")


def role_labels(spec: WorkloadSpec, accelerator: str) -> dict[str, str]:
    role = "inference" if spec.inference is not None else "training"
    return {"accelfit.io/role": role, "accelfit.io/workload": spec.name, "accelfit.io/accelerator": accelerator}


def plan_accelerator(sized: Sized) -> PlanAccelerator:
    offer = sized.offer
    if offer.tpu_slice is not None:
        return PlanAccelerator(name=offer.accelerator.name, kind="tpu", count=sized.devices,
                               topology=offer.tpu_slice.topology, slice=offer.tpu_slice.name, slices=sized.units)
    return PlanAccelerator(name=offer.accelerator.name, kind="gpu", count=sized.devices, instance_type=offer.machine,
                           nodes=sized.units, per_node=offer.devices_per_unit)


def _gpu_scaling(spec: WorkloadSpec, units: int) -> tuple[int, int, int]:
    """(min, max, initial) nodes. Training pools scale to zero after the run; serving pools keep the base load
    (the peak's nodes over the peak factor) when they run all day, and scale to zero when they serve only part of
    it. Rounded up: the planned pool's minimum servers (those that carry requests_per_second, ServingPool.
    replicas_min, at least the peak's replicas over the peak factor) then always fit on its minimum nodes; rounded
    down, 3 nodes of 2 servers held 6 of a minimum of 7 and the seventh kept a fourth node up all day."""
    if spec.training is not None:
        return 0, units, units
    inference = spec.inference
    assert inference is not None  # a spec is training or inference (WorkloadSpec's kind rules)
    headroom = peak_factor(inference)
    minimum = 0 if inference.hours_per_day < 24 else max(1, math.ceil(units / headroom))
    return minimum, units, max(minimum, 1)


def node_pools(spec: WorkloadSpec, sized: Sized) -> tuple[NodePool, ...]:
    offer = sized.offer
    if offer.platform == "tpu-vm":
        return ()
    labels = role_labels(spec, offer.accelerator.name)
    multi_node_training = spec.training is not None and sized.units > 1
    pools: list[NodePool] = []
    # Multi-node training keeps every node in one zone (compact placement, no cross-zone traffic); serving
    # spreads over the offer's zones. On GKE the system pool follows, so add-ons run where the work runs.
    pool_zones = offer.zones[:1] if multi_node_training else offer.zones
    if offer.platform in ("gke-gpu", "gke-tpu", "eks-gpu"):
        pools.append(NodePool(name="system", role="system", machine_type=cloud_named(offer.cloud).system_pool_machine,
                              min_nodes=SYSTEM_POOL_MIN_NODES, max_nodes=SYSTEM_POOL_MAX_NODES,
                              initial_nodes=SYSTEM_POOL_MIN_NODES,
                              zones=pool_zones if cloud_named(offer.cloud).system_pool_follows_work else offer.zones,
                              labels={"accelfit.io/role": "system"}, disk_size_gb=SYSTEM_POOL_DISK_GB))
    if offer.tpu_slice is not None:
        pools += _tpu_pools(spec, sized, offer.tpu_slice, labels)
    else:
        pools += _gpu_pools(spec, sized, labels, multi_node_training, pool_zones)
    return tuple(pools)


def pool_buying(offer: Offer) -> str:
    """The buying model a GPU offer's pools carry (NodePool.buying): the table's pool model of the offer's (a
    commitment's pools take on-demand nodes), a held Capacity Block's the capacity-block model (the node group
    launches into it by id), owned servers' on-demand (nothing is bought)."""
    if offer.capacity_block:
        return next(model.name for model in all_buying_models() if model.whole_block and model.needs_reservation)
    model = find_buying_model(offer.pricing)
    return model.pool_model if model is not None else "on-demand"


def _tpu_buying(offer: Offer) -> str:
    """A GKE TPU pool's: spot or on demand. A flex-start TPU offer still builds an on-demand pool (plan_args passes
    no flex_start to TpuNodePool): left as it was, see the issue 35 note."""
    model = find_buying_model(offer.pricing)
    return model.name if model is not None and model.preemptible else "on-demand"


def _tpu_pools(spec: WorkloadSpec, sized: Sized, tpu: TpuSlice, labels: dict[str, str]) -> list[NodePool]:
    """A GKE TPU offer's pools: one per slice for training (a multi-host slice is all its hosts or none), one
    scaling pool for serving."""
    offer = sized.offer
    common = dict(role="tpu", machine_type=tpu.gke_machine_type, accelerator=offer.accelerator.name,
                  accelerators_per_node=min(tpu.chips, tpu.chips_per_host), gke_accelerator=tpu.gke_accelerator,
                  buying=_tpu_buying(offer), zones=offer.zones, taints=(TPU_TAINT,), labels=labels, tpu_topology=tpu.topology,
                  tpu_slice=tpu.name)
    if spec.training is None:
        minimum, maximum, initial = _gpu_scaling(spec, sized.units)
        return [NodePool(name="tpu", min_nodes=minimum, max_nodes=maximum, initial_nodes=initial, **common)]
    if sized.units > 1:
        # Multislice: the slice pools are one Kueue flavor (components.kubernetes.queues.multislice_flavors),
        # which finds their nodes by this label; a standby set gets its own value (fleet/chain.py).
        common["labels"] = {**labels, SLICE_SET_LABEL: "tpu"}
    # A multi-host slice is atomic: one node pool per slice, all its hosts or none (scale to zero after).
    return [NodePool(name=f"tpu-{index}", min_nodes=0, max_nodes=tpu.hosts, initial_nodes=tpu.hosts,
                     compact_placement=tpu.multi_host, **common) for index in range(sized.units)]


def _gpu_driver(cloud: str, platform: str) -> str | None:
    """The NVIDIA driver the pool pins: bare metal's and GKE's sourced versions; EKS: the NVIDIA AMI ships it."""
    if cloud_named(cloud).owned:
        version: str = baremetal_gpu_driver()["version"]
        return version
    if platform == "gke-gpu":
        return gke_gpu_driver_version()
    return None


def _gpu_pools(spec: WorkloadSpec, sized: Sized, labels: dict[str, str], multi_node_training: bool,
               pool_zones: tuple[str, ...]) -> list[NodePool]:
    """A GPU offer's pools: one up to the platform's per-pool limit, several identical ones beyond it."""
    offer = sized.offer
    minimum, maximum, initial = _gpu_scaling(spec, sized.units)
    buying = pool_buying(offer)
    model = buying_model(buying)
    flex_start = model.queued
    # A Capacity Block's instances already sit close together: "there is no need to use a cluster placement group
    # with a Capacity Block" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html).
    block = model.whole_block
    if flex_start:
        # Flex-start nodes are created when capacity is found, for pending pods: the pool starts empty
        # (accelfit/clouds/data/flex_start.yaml; GpuNodePool refuses initial nodes on flex-start).
        minimum, initial = 0, 0
    instance = offer.instance
    driver = _gpu_driver(offer.cloud, offer.platform)
    owned = cloud_named(offer.cloud).owned
    efa_network = cloud_named(offer.cloud).multi_node_network == "efa"
    # A held reservation or Capacity Block holds its machines in one zone: the pool goes there only.
    zones = offer.zones[:1] if offer.reservation else pool_zones
    # One pool up to the platform's per-pool limit; a larger run spans several identical pools (gpu, gpu-1, ...).
    splits = [sized.units] if owned else pool_sizes(offer.platform, maximum)
    minimums, initials = _spread(minimum, splits), _spread(initial, splits)
    window = serving_window(spec, offer)
    return [NodePool(
        name="gpu" if index == 0 else f"gpu-{index}", role="gpu", machine_type=offer.machine,
        accelerator=offer.accelerator.name, accelerators_per_node=offer.devices_per_unit,
        gke_accelerator=instance.gke_accelerator if instance else None,
        min_nodes=sized.units if owned else minimums[index], max_nodes=size,
        initial_nodes=sized.units if owned else initials[index], buying=buying,
        zones=zones, taints=(GPU_TAINT,), labels=labels,
        compact_placement=_compact_gpu_pool(offer.machine, multi_node_training, flex_start, block),
        efa_interfaces=instance.efa_interfaces if (instance and multi_node_training and efa_network)
        else 0,
        gpudirect=instance.gpudirect if (instance and multi_node_training) else "none",
        local_nvme_gb=instance.local_nvme_gb if instance else 0, driver_version=driver,
        serving_start_utc=window[0] if window else None, serving_hours_per_day=window[1] if window else None,
        reservation=offer.reservation, measured_power_w=offer.owned.measured_power_w if offer.owned else None)
        for index, size in enumerate(splits)]


def _compact_gpu_pool(machine: str, multi_node_training: bool, flex_start: bool, block: bool) -> bool:
    """Compact placement for a multi-node training pool, except where the capacity decides placement: a Capacity
    Block (its instances already sit close together) and flex-start where the sourced rule refuses it. A multi-node
    flex-start training pool obtains its nodes through queued provisioning (accelfit.planner.fleet.provisioning), and
    a queued GPU pool takes no compact placement (data/flex_start.yaml compact_placement: Cluster Toolkit, xpk)."""
    if not multi_node_training or block:
        return False
    return not flex_start or flex_start_placement_rejection(machine, queued=True) is None


def _spread(total: int, capacities: list[int]) -> list[int]:
    """`total` nodes over pools of `capacities`, filling in order (each pool gets at most its capacity)."""
    out: list[int] = []
    left = total
    for capacity in capacities:
        out.append(min(capacity, left))
        left -= out[-1]
    return out


def tpu_vm_slices(spec: WorkloadSpec, sized: Sized) -> tuple[TpuVmSlice, ...]:
    offer = sized.offer
    if offer.platform != "tpu-vm" or offer.tpu_slice is None:
        return ()
    tpu = offer.tpu_slice
    runtime = tpu_runtime_version(offer.accelerator.name, spec.framework, tpu.multi_host)
    return tuple(TpuVmSlice(name=f"slice-{index}", accelerator_type=tpu.name,
                            accelerator_config_type=tpu.accelerator_config_type, topology=tpu.topology,
                            zone=offer.zones[0], runtime_version=runtime, spot=buying_model(_tpu_buying(offer)).preemptible)
                 for index in range(sized.units))


def network_plan(spec: WorkloadSpec, sized: Sized) -> NetworkPlan:
    offer = sized.offer
    multi_node_training = spec.training is not None and sized.units > 1
    instance = offer.instance
    network = cloud_named(offer.cloud).multi_node_network
    efa = bool(instance and network == "efa" and multi_node_training and instance.efa_interfaces > 0)
    extra = instance.extra_networks if (instance and network == "extra-networks" and multi_node_training) else 0
    default = NetworkPlan()
    pods = pods_cidr_for(sized.units, default.pods_cidr) if offer.platform == "gke-gpu" else default.pods_cidr
    return NetworkPlan(extra_networks=extra, efa=efa, placement_group=efa, pods_cidr=pods)


def storage_plan(spec: WorkloadSpec, sized: Sized) -> StoragePlan:
    needs = storage_needs(spec, sized.offer, sized.units)
    return StoragePlan(dataset_tb=needs.dataset_tb, checkpoint_tb=round(needs.checkpoint_tb, 3),
                       shared_filesystem=needs.shared_filesystem,
                       filesystem_capacity_gib=needs.filesystem_capacity_gib,
                       filesystem_throughput_mbps_per_tib=125 if needs.shared_filesystem == "fsx-lustre" else 0)


def estimate(sized: Sized, spec: WorkloadSpec) -> Estimate:
    training = spec.training is not None
    target = spec.inference.latency_p99_ms if spec.inference is not None else None
    headroom = (round((target - sized.latency_p99_ms) / target, 4)
                if target and sized.latency_p99_ms is not None else None)
    return Estimate(
        hours=round(sized.hours, 4), accelerator_hours=round(sized.accelerator_hours, 1), devices=sized.devices,
        mfu=round(sized.mfu, 4) if sized.mfu is not None else None, mfu_source=sized.mfu_source,
        replicas=sized.replicas,
        tokens_per_second=round(sized.tokens_per_second, 1) if sized.tokens_per_second else None,
        latency_p99_ms=round(sized.latency_p99_ms, 1) if sized.latency_p99_ms is not None else None,
        latency_target_p99_ms=target, latency_headroom=headroom,
        memory_per_device_gib=round(sized.memory_per_device_gib, 2),
        monthly_usd=round(sized.monthly_usd, 2), total_usd=round(sized.total_usd, 2),
        full_scale_monthly_usd=round(sized.full_scale_monthly_usd, 2),
        run_total_usd=round(sized.total_usd, 2) if training else None,
        cost_assumptions=sized.cost_assumptions,
        breakdown=tuple(line.model_copy(update={"monthly_usd": round(line.monthly_usd, 2),
                                                "full_scale_monthly_usd": round(line.full_scale_monthly_usd, 2),
                                                "total_usd": round(line.total_usd, 2)})
                        for line in sized.breakdown),
        prices_verified=sized.offer.price.verified if sized.offer.price else True)
