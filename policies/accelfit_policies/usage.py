"""What accelerators a resource asks for: which chip, how many per node, how many nodes at most/least, spot.

Shared by the cost and accelerator rules so every rule counts a GKE pool, a TPU VM or an EKS node group the
same way. Unknown machine or instance types fall back to the raw string, so an allow-list still catches them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accelfit.buying import buying_model
from accelfit.catalog import Catalog, TpuSlice, UnknownAcceleratorError, load_catalog
from accelfit.cloudrules.aws.capacity_types import buying_of_capacity_type
from accelfit.clouds import all_clouds, hook

from .view import ResourceView, get, items, number, truthy

GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
GCE_INSTANCE = "gcp:compute/instance:Instance"
# A GPU VM's managed instance group makes its one VM from this template (components/gcp/gpu_vm.py).
GCE_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
TPU_VM = "gcp:tpu/v2Vm:V2Vm"
TPU_QUEUED = "gcp:tpu/v2QueuedResource:V2QueuedResource"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
EKS_CLUSTER = "aws:eks/cluster:Cluster"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"

ACCELERATOR_TYPES = frozenset({GKE_NODE_POOL, GCE_INSTANCE, GCE_TEMPLATE, TPU_VM, TPU_QUEUED, EKS_NODE_GROUP})


@dataclass(frozen=True)
class AcceleratorUse:
    accelerator: str
    """Canonical name (h100-80gb, tpu-v5p), or the raw API string when the catalog does not know it."""
    kind: str
    """gpu or tpu."""
    per_node: int
    max_nodes: int | None
    """None when nothing bounds the count (no autoscaling max and no fixed size)."""
    min_nodes: int | None
    spot: bool

    @property
    def max_total(self) -> int | None:
        return None if self.max_nodes is None else self.per_node * self.max_nodes


def default_catalog() -> Catalog:
    """The active catalog; the loader keeps it once per process and set of registered clouds, so a cloud
    registered later (its own catalog folder) is in it."""
    return load_catalog()


def canonical(name: str, catalog: Catalog) -> str:
    try:
        return catalog.canonical(name)
    except UnknownAcceleratorError:
        return name


def _int(value: Any) -> int | None:
    found = number(value)
    return None if found is None else int(found)


def gke_node_bounds(props: Any) -> tuple[int | None, int | None]:
    """(min, max) nodes of a GKE pool. total_* bounds are pool-wide, min/max_node_count are per zone
    (https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler); no autoscaling = fixed."""
    zones = max(len(items(get(props, "nodeLocations"))), 1)
    autoscaling = get(props, "autoscaling")
    if autoscaling:
        high = _int(get(autoscaling, "totalMaxNodeCount"))
        low = _int(get(autoscaling, "totalMinNodeCount"))
        if high is None and (per_zone := _int(get(autoscaling, "maxNodeCount"))) is not None:
            high = per_zone * zones
        if low is None and (per_zone := _int(get(autoscaling, "minNodeCount"))) is not None:
            low = per_zone * zones
        return (low if low is not None else 0), high
    fixed = _int(get(props, "nodeCount"))
    if fixed is None:
        fixed = _int(get(props, "initialNodeCount"))
    fixed = None if fixed is None else fixed * zones
    return fixed, fixed


def tpu_slice_of_machine(machine_type: str, catalog: Catalog) -> TpuSlice | None:
    """Any catalog slice whose GKE hosts use this machine type (for the generation and chips per host)."""
    for tpu_slice in catalog.tpu_slices:
        if tpu_slice.gke_machine_type == machine_type:
            return tpu_slice
    return None


def topology_chips(topology: str) -> int | None:
    product = 1
    for side in str(topology).lower().split("x"):
        if not side.isdigit():
            return None
        product *= int(side)
    return product


def _gke_pool(view: ResourceView, catalog: Catalog) -> AcceleratorUse | None:
    props = view.props
    low, high = gke_node_bounds(props)
    spot = truthy(get(props, "nodeConfig.spot")) or truthy(get(props, "nodeConfig.preemptible"))
    guests = items(get(props, "nodeConfig.guestAccelerators"))
    if guests:
        first = guests[0]
        per_node = sum(_int(get(guest, "count")) or 0 for guest in guests)
        return AcceleratorUse(canonical(str(get(first, "type", "")), catalog), "gpu", per_node, high, low, spot)
    machine = str(get(props, "nodeConfig.machineType", ""))
    tpu_slice = tpu_slice_of_machine(machine, catalog) if machine else None
    if tpu_slice is not None:
        return AcceleratorUse(tpu_slice.accelerator, "tpu", tpu_slice.chips_per_host, high, low, spot)
    if machine.startswith("ct"):  # a TPU host type the catalog does not list yet
        return AcceleratorUse(machine, "tpu", 1, high, low, spot)
    return None


def _tpu_vm(view: ResourceView, catalog: Catalog) -> AcceleratorUse | None:
    props = view.props
    spot = truthy(get(props, "schedulingConfig.spot")) or truthy(get(props, "schedulingConfig.preemptible"))
    config_type = get(props, "acceleratorConfig.type")
    if config_type:
        chips = topology_chips(str(get(props, "acceleratorConfig.topology", ""))) or 1
        generation = next((s.accelerator for s in catalog.tpu_slices if s.accelerator_config_type == config_type),
                          str(config_type))
        return AcceleratorUse(generation, "tpu", chips, 1, 1, spot)
    accelerator_type = str(get(props, "acceleratorType", "v2-8"))  # neither set means v2-8 (reference 3.1)
    tpu_slice = catalog.tpu_slice(accelerator_type)
    if tpu_slice is None:
        return AcceleratorUse(accelerator_type, "tpu", 1, 1, 1, spot)
    return AcceleratorUse(tpu_slice.accelerator, "tpu", tpu_slice.chips, 1, 1, spot)


def _tpu_queued(view: ResourceView, catalog: Catalog) -> AcceleratorUse | None:
    specs = items(get(view.props, "tpu.nodeSpecs"))
    if not specs:
        return None
    names = [str(get(spec, "node.acceleratorType", "")) for spec in specs]
    slices = [catalog.tpu_slice(name) for name in names]
    first = slices[0]
    if first is None or any(tpu_slice is None for tpu_slice in slices):
        return AcceleratorUse(names[0], "tpu", 1, len(specs), len(specs), False)
    # Queued resources in pulumi-gcp 10.2.0 have no spot field (reference 3.1), so they are never spot.
    return AcceleratorUse(first.accelerator, "tpu", first.chips, len(specs), len(specs), False)


def _eks_node_group(view: ResourceView, catalog: Catalog) -> AcceleratorUse | None:
    props = view.props
    instance = str((items(get(props, "instanceTypes")) or ["t3.medium"])[0])
    shape = catalog.instance_type("aws", instance)
    # The capacityType the node group component writes from the same table (accelfit/cloudrules/aws/capacity_types.py).
    spot = buying_model(buying_of_capacity_type(str(get(props, "capacityType", "")))).preemptible
    high = _int(get(props, "scalingConfig.maxSize"))
    low = _int(get(props, "scalingConfig.minSize"))
    if shape is not None:
        return AcceleratorUse(shape.accelerator, "gpu", shape.accelerator_count, high, low, spot)
    if "NVIDIA" in str(get(props, "amiType", "")).upper() or instance.split(".")[0][:1] in ("p", "g"):
        return AcceleratorUse(instance, "gpu", 1, high, low, spot)  # a GPU type the catalog does not list
    return None


def _gce_instance(view: ResourceView, catalog: Catalog) -> AcceleratorUse | None:
    guests = items(get(view.props, "guestAccelerators"))
    if not guests:
        return None
    spot = str(get(view.props, "scheduling.provisioningModel", "")).upper() == "SPOT"
    per_node = sum(_int(get(guest, "count")) or 0 for guest in guests)
    return AcceleratorUse(canonical(str(get(guests[0], "type", "")), catalog), "gpu", per_node, 1, 1, spot)


def _gce_template(view: ResourceView, catalog: Catalog) -> AcceleratorUse | None:
    """The VM of a GPU VM's group of one: its GPUs come with the accelerator-optimized machine type (A2, A3, G2)."""
    shape = catalog.instance_type("gcp", str(get(view.props, "machineType", "")))
    if shape is None:
        return None
    spot = str(get(view.props, "scheduling.provisioningModel", "")).upper() == "SPOT"
    return AcceleratorUse(shape.accelerator, "gpu", shape.accelerator_count, 1, 1, spot)


_READERS = {GKE_NODE_POOL: _gke_pool, TPU_VM: _tpu_vm, TPU_QUEUED: _tpu_queued, EKS_NODE_GROUP: _eks_node_group,
            GCE_INSTANCE: _gce_instance, GCE_TEMPLATE: _gce_template}


def _reader(resource_type: str) -> Any:
    """The shipped clouds' readers above; for a registered cloud's own priced types, the reader its record names
    (`Cloud.accelerator_reader`), so the accelerator rules count its nodes too."""
    found = _READERS.get(resource_type)
    if found is not None:
        return found
    return next((hook(cloud.accelerator_reader) for cloud in all_clouds()
                 if cloud.accelerator_reader and resource_type in cloud.priced_resource_types), None)


def accelerator_use(view: ResourceView, catalog: Catalog | None = None) -> AcceleratorUse | None:
    """The accelerators `view` asks for, or None when it carries none (system pools, networks...)."""
    reader = _reader(view.type)
    return reader(view, catalog or default_catalog()) if reader else None
