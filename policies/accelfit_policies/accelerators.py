"""Accelerator-correctness rules: accelerator nodes tainted, GPU drivers pinned, Helm charts pinned, TPU
topologies that exist for their type, EFA only inside a placement group, NVIDIA AMIs on GPU node groups and
bare-metal servers balanced for their GPUs."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pulumi_policy import Policy, EnforcementLevel, ResourceValidationPolicy

from accelfit.catalog import Catalog, TpuSlice

from .framework import Settings, resource_policy
from .nodes import node_group
from .usage import (
    EKS_NODE_GROUP,
    GKE_NODE_POOL,
    LAUNCH_TEMPLATE,
    TPU_VM,
    accelerator_use,
    default_catalog,
    gke_node_bounds,
)
from .view import ResourceView, fmt, get, items, number

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"
DRIVER_LABEL = "accelfit.io/gpu-driver"  # where GpuNodePool puts a pinned driver for the GPU operator


def has_key(mapping: Any, key: str) -> bool:
    """Presence without reading the value, so a value unknown during preview still counts as set."""
    return isinstance(mapping, Mapping) and key in set(mapping)


# ---- accelerator-pools-tainted ------------------------------------------------------------------------------

TAINT_OPTIONS = {
    "gpuTaintKey": {"type": "string", "default": "nvidia.com/gpu"},
    "tpuTaintKey": {"type": "string", "default": "google.com/tpu"},
}


def check_tainted(view: ResourceView, settings: Settings) -> list[str]:
    node = node_group(view)
    if node is None:
        return []
    use = accelerator_use(view)
    if use is None:
        return []
    key = str(settings.get("gpuTaintKey" if use.kind == "gpu" else "tpuTaintKey",
                           "nvidia.com/gpu" if use.kind == "gpu" else "google.com/tpu"))
    taints = node.taints
    effects = {str(get(taint, "effect", "")) for taint in taints if get(taint, "key") == key}
    if "NO_SCHEDULE" in effects or "NO_EXECUTE" in effects:
        return []
    found = ", ".join(f"{get(t, 'key')}:{get(t, 'effect')}" for t in taints) or "none"
    return [f"{view.label} has {use.kind.upper()} nodes without the {key} NoSchedule taint (taints: {found}); "
            f"required: {key}=present:NO_SCHEDULE. Fix: add the taint so only pods that request "
            f"{'GPUs' if use.kind == 'gpu' else 'TPUs'} land on these nodes."]


def tainted_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("accelerator-pools-tainted", "GPU and TPU nodes are tainted for accelerator pods only.",
                           check_tainted, TAINT_OPTIONS, enforcement_level)


# ---- gke-gpu-driver-pinned ----------------------------------------------------------------------------------

DRIVER_OPTIONS = {
    "allowedDriverVersions": {"type": "array", "items": {"type": "string"}, "default": ["DEFAULT", "LATEST"],
                              "description": "GKE gpuDriverVersion values allowed (prod: DEFAULT only)."},
}


def check_gpu_driver(view: ResourceView, settings: Settings) -> list[str]:
    if view.type != GKE_NODE_POOL:
        return []
    allowed = [str(value).upper() for value in settings.get("allowedDriverVersions") or ["DEFAULT", "LATEST"]]
    labels = get(view.props, "nodeConfig.labels", {})
    pinned_label = labels.get(DRIVER_LABEL) if isinstance(labels, Mapping) else None
    out = []
    for guest in items(get(view.props, "nodeConfig.guestAccelerators")):
        version = str(get(guest, "gpuDriverInstallationConfig.gpuDriverVersion", "unset")).upper()
        if version == "INSTALLATION_DISABLED" and pinned_label:
            continue  # an exact version, installed by the GPU operator from the node label
        if version in allowed:
            continue
        why = {"LATEST": "LATEST changes the driver under running jobs",
               "INSTALLATION_DISABLED": f"no driver is installed and no {DRIVER_LABEL} label pins one",
               "UNSET": "GKE then installs no driver on older versions"}.get(version, "not a pinned choice")
        out.append(f"{view.label} installs GPU driver {version} for {get(guest, 'type', '?')} ({why}); allowed: "
                   f"{', '.join(allowed)} or an exact version via {DRIVER_LABEL}. Fix: set driver_version to "
                   "DEFAULT or a pinned version in the plan.")
    return out


def gpu_driver_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("gke-gpu-driver-pinned", "GKE GPU pools install a pinned driver.", check_gpu_driver,
                           DRIVER_OPTIONS, enforcement_level)


# ---- helm-chart-version-pinned ------------------------------------------------------------------------------

_EXACT_VERSION = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?\Z")


def check_helm_pinned(view: ResourceView, settings: Settings) -> list[str]:
    if view.type not in (HELM_RELEASE, HELM_CHART_V4):
        return []
    version = get(view.props, "version")
    if version is not None and _EXACT_VERSION.match(str(version)):
        return []
    return [f"{view.label} installs chart {get(view.props, 'chart', '?')} at version {version or 'unset (latest)'}; "
            "allowed: an exact version such as v25.3.0. Fix: set version to the tested release (GPU operator and "
            "device plugin versions must match the driver)."]


def helm_pinned_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("helm-chart-version-pinned", "Helm charts are installed at an exact version.",
                           check_helm_pinned, None, enforcement_level)


# ---- tpu-topology-matches-type ------------------------------------------------------------------------------

def _shapes(slices: list[TpuSlice]) -> str:
    return ", ".join(f"{s.topology} ({s.name})" for s in slices[:8]) + (" ..." if len(slices) > 8 else "")


def check_tpu_topology(view: ResourceView, settings: Settings) -> list[str]:
    catalog = default_catalog()
    check = _TPU_TOPOLOGY_CHECKS.get(view.type)
    return check(view, catalog) if check is not None else []


def _tpu_vm_topology(view: ResourceView, catalog: Catalog) -> list[str]:
    """A TPU VM's acceleratorConfig topology offered for its type, or its acceleratorType a catalog slice."""
    props = view.props
    if get(props, "acceleratorConfig"):
        kind, topology = str(get(props, "acceleratorConfig.type")), str(get(props, "acceleratorConfig.topology"))
        shapes = [s for s in catalog.tpu_slices if s.accelerator_config_type == kind]
        if shapes and topology not in {s.topology for s in shapes}:
            return [f"{view.label} asks for a {kind} slice of topology {topology}, which {kind} does not offer; "
                    f"allowed: {_shapes(shapes)}. Fix: use a listed topology (the plan's tpu slice)."]
        return []
    if get(props, "acceleratorType") and catalog.tpu_slice(str(get(props, "acceleratorType"))) is None:
        return [f"{view.label} asks for accelerator type {get(props, 'acceleratorType')}, not a known slice; "
                "allowed: a slice from the catalog (e.g. v5p-128). Fix: use a catalog slice name."]
    return []


def _gke_tpu_pool_topology(view: ResourceView, catalog: Catalog) -> list[str]:
    """A GKE TPU pool's placementPolicy.tpuTopology: set on a multi-host slice, offered by its machine type, the
    one its slice label names, and sized to the slice's host count."""
    if (use := accelerator_use(view)) is None or use.kind != "tpu":
        return []
    props = view.props
    machine = str(get(props, "nodeConfig.machineType", ""))
    shapes = [s for s in catalog.tpu_slices if s.gke_machine_type == machine]
    topology = get(props, "placementPolicy.tpuTopology")
    label = get(props, "nodeConfig.labels", {})
    named = catalog.tpu_slice(str(label.get("accelfit.io/tpu-slice"))) if isinstance(label, Mapping) else None
    if topology is None:
        if named is None or not named.multi_host:
            return []
        return [f"{view.label} is a multi-host {named.name} pool without placementPolicy.tpuTopology; required: "
                f"{named.topology}. Fix: set placementPolicy.tpuTopology: {named.topology}."]
    matching = [s for s in shapes if s.topology == str(topology)]
    if shapes and not matching:
        return [f"{view.label} uses topology {topology} on {machine}, which that machine type does not offer; "
                f"allowed: {_shapes(shapes)}. Fix: use a listed topology."]
    if named is not None and named.topology != str(topology):
        return [f"{view.label} is labelled slice {named.name} (topology {named.topology}) but asks for topology "
                f"{topology}; allowed: {named.topology}. Fix: make the label and placementPolicy.tpuTopology agree."]
    return _tpu_pool_size(view, topology, named or (matching[0] if matching else None))


def _tpu_pool_size(view: ResourceView, topology: Any, hosts: TpuSlice | None) -> list[str]:
    """The pool's most nodes equal the slice's host count."""
    _, high = gke_node_bounds(view.props)
    if hosts is not None and high is not None and high != hosts.hosts:
        return [f"{view.label} has {fmt(high)} nodes for topology {topology}, which needs {hosts.hosts} hosts of "
                f"{hosts.chips_per_host} chips; allowed: {hosts.hosts}. Fix: size the pool to the slice's host count."]
    return []


_TPU_TOPOLOGY_CHECKS: dict[str, Callable[[ResourceView, Catalog], list[str]]] = {
    TPU_VM: _tpu_vm_topology,
    GKE_NODE_POOL: _gke_tpu_pool_topology,
}


def tpu_topology_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("tpu-topology-matches-type", "TPU topologies exist for their type and match the pool.",
                           check_tpu_topology, None, enforcement_level)


# ---- efa-requires-placement-group ---------------------------------------------------------------------------

def check_efa_placement(view: ResourceView, settings: Settings) -> list[str]:
    if view.type != LAUNCH_TEMPLATE:
        return []
    efa = [i for i in items(get(view.props, "networkInterfaces"))
           if str(get(i, "interfaceType", "")).startswith("efa")]
    if not efa or has_key(get(view.props, "placement"), "groupName"):
        return []
    return [f"{view.label} has {len(efa)} EFA interface(s) but no placement group (placement.groupName unset); "
            "required: a cluster placement group. Fix: set compact_placement on the pool so the template launches "
            "into a cluster placement group (EFA needs the low-latency network it gives)."]


def efa_placement_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("efa-requires-placement-group", "EFA launch templates use a cluster placement group.",
                           check_efa_placement, None, enforcement_level)


# ---- eks-gpu-ami --------------------------------------------------------------------------------------------

def check_eks_gpu_ami(view: ResourceView, settings: Settings) -> list[str]:
    if view.type != EKS_NODE_GROUP or (use := accelerator_use(view)) is None or use.kind != "gpu":
        return []
    ami = str(get(view.props, "amiType", "AL2_x86_64 (unset)"))
    if "NVIDIA" in ami.upper() or ami.upper() in ("AL2_X86_64_GPU", "CUSTOM"):
        return []
    return [f"{view.label} runs {use.accelerator} GPUs on AMI type {ami}, which has no NVIDIA driver; allowed: an "
            "*_NVIDIA AMI type (e.g. AL2023_x86_64_NVIDIA) or CUSTOM. Fix: set amiType: AL2023_x86_64_NVIDIA."]


def eks_gpu_ami_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("eks-gpu-ami", "EKS GPU node groups use an NVIDIA accelerated AMI.", check_eks_gpu_ami,
                           None, enforcement_level)


# ---- bare-metal-server-balance ------------------------------------------------------------------------------

BALANCE_OPTIONS = {
    "training": {"type": "boolean", "default": True, "description": "Apply the training thresholds (NVMe)."},
    "multiNode": {"type": "boolean", "default": True, "description": "Apply the multi-node network threshold."},
}


# Bare-metal nodes carry their host shape as labels (components/baremetal/membership.py): label -> field.
NODE_SHAPE_LABELS = {"accelfit.io/gpu-model": "gpuModel", "accelfit.io/gpu-count": "gpuCount",
                     "accelfit.io/cpu-cores": "cpuCores", "accelfit.io/memory-gib": "memoryGib",
                     "accelfit.io/nvme-tb": "nvmeTb", "accelfit.io/network-gbps": "networkGbps"}


def server_data(view: ResourceView) -> Mapping[str, Any] | None:
    """Inventory data a resource carries: the host-shape labels of a bare-metal NodePatch, or the inventory server
    fields in camelCase under `server` or at the top level of its props; None when it carries none."""
    if view.type == "kubernetes:core/v1:NodePatch":
        metadata = get(view.props, "metadata")
        labels = get(metadata, "labels") if isinstance(metadata, Mapping) else None
        if not isinstance(labels, Mapping) or "accelfit.io/gpu-model" not in labels:
            return None
        shape = {field: labels[label] for label, field in NODE_SHAPE_LABELS.items() if label in labels}
        shape["name"] = get(metadata, "name", view.name)
        return shape
    server = get(view.props, "server")
    candidate = server if isinstance(server, Mapping) else view.props
    return candidate if has_key(candidate, "gpuModel") and has_key(candidate, "gpuCount") else None


def check_server_balance(view: ResourceView, settings: Settings) -> list[str]:
    server = server_data(view)
    if server is None:
        return []
    from accelfit.planner.balance import NodeShape, balance_problems  # thresholds from planner/data/balance.yaml

    try:
        memory = default_catalog().accelerator(str(get(server, "gpuModel"))).memory_gib
    except ValueError:
        return [f"{view.label} names GPU model {get(server, 'gpuModel')}, which the catalog does not know; "
                "allowed: a catalog accelerator. Fix: correct gpu_model in the inventory."]
    node = NodeShape(name=str(get(server, "name", view.name)), gpus=int(number(get(server, "gpuCount")) or 1),
                     gpu_memory_gib=memory, cpu_cores=number(get(server, "cpuCores")) or 0,
                     memory_gib=number(get(server, "memoryGib")) or 0, nvme_tb=number(get(server, "nvmeTb")) or 0,
                     network_gbps=number(get(server, "networkGbps")) or 0)
    problems = balance_problems(node, bool(settings.get("training", True)), bool(settings.get("multiNode", True)))
    if not problems:
        return []
    return [f"{view.label} is unbalanced for its GPUs: {'; '.join(problems)} (thresholds in "
            "accelfit/planner/data/balance.yaml). Fix: add CPU, memory, NVMe or network to the server, or give "
            "it fewer GPUs in the inventory."]


def server_balance_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("bare-metal-server-balance", "Bare-metal GPU servers have enough CPU, memory, NVMe and "
                           "network per GPU.", check_server_balance, BALANCE_OPTIONS, enforcement_level)


def policies() -> list[Policy]:
    return [tainted_policy(), gpu_driver_policy(), helm_pinned_policy(), tpu_topology_policy(),
            efa_placement_policy(), eks_gpu_ami_policy(), server_balance_policy()]
