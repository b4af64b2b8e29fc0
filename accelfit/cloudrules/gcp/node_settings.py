"""Pure translations from Plan values to GKE/GCE API values. No Pulumi import; each has its own unit test.

None of these choose hardware: they spell what the plan decided in the form the API wants.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterable, Mapping, Sequence

ROLE_LABEL = "accelfit.io/role"
GPU_TAINT = ("nvidia.com/gpu", "present", "NoSchedule")
TPU_TAINT = ("google.com/tpu", "present", "NoSchedule")

# Kubernetes spelling -> GKE API spelling of taint effects.
# https://cloud.google.com/kubernetes-engine/docs/how-to/node-taints
_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}

# GKE managed driver installation only takes these values; an exact driver version cannot be requested through
# the node pool API. https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers
MANAGED_DRIVER_VERSIONS = ("DEFAULT", "LATEST")
RESERVATION_KEY = "compute.googleapis.com/reservation-name"


def gke_taint_effect(effect: str) -> str:
    """'NoSchedule' -> 'NO_SCHEDULE'; raises KeyError for an unknown effect."""
    return _TAINT_EFFECTS[effect]


def with_required_taint(taints: Iterable[tuple[str, str, str]],
                        required: tuple[str, str, str]) -> list[tuple[str, str, str]]:
    """The plan's taints plus the accelerator taint when it is missing, so only pods that tolerate it (i.e. ask
    for the accelerator) land on these nodes. A plan taint with the same key wins (it was set on purpose)."""
    taints = list(taints)
    if not any(key == required[0] for key, _, _ in taints):
        taints.append(required)
    return taints


def node_labels(role: str, plan_labels: Mapping[str, str]) -> dict[str, str]:
    """Kubernetes node labels: the plan's, plus a role label the schedulers and Kueue select on. The plan's own
    role (training/inference) wins over the pool kind (gpu/tpu): policies key on it (training pools scale to zero)."""
    return {ROLE_LABEL: role, **plan_labels}


def driver_installation(driver_version: str) -> tuple[str, str | None]:
    """(GKE gpu_driver_version, pinned version or None).

    DEFAULT/LATEST are GKE-managed. Any other string is an exact driver version GKE cannot install, so managed
    installation is disabled and the version is returned, to be put in a node label the GPU operator reads."""
    if driver_version.upper() in MANAGED_DRIVER_VERSIONS:
        return driver_version.upper(), None
    return "INSTALLATION_DISABLED", driver_version


def reservation_affinity(reservation: str | None, spot: bool,
                         avoid: bool = False) -> tuple[str, str | None, list[str]]:
    """(consume_reservation_type, key, values).

    A named reservation is consumed specifically; spot VMs cannot consume reservations, so they say so
    explicitly, as does a pool that must leave held reservations alone (`avoid`: a standby pool of a plan on a
    reservation; NO_RESERVATION: "Do not consume from any reserved capacity",
    https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig#reservationaffinity);
    other on-demand nodes may use any matching one.
    https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations"""
    if reservation:
        return "SPECIFIC_RESERVATION", RESERVATION_KEY, [reservation]
    if spot or avoid:
        return "NO_RESERVATION", None, []
    return "ANY_RESERVATION", None, []


def starting_zones(total: int, zones: Sequence[str]) -> tuple[tuple[str, ...], int]:
    """(node_locations, initial_node_count) that start exactly the plan's `total` nodes.

    GKE's initial_node_count is per zone: "In regional or multi-zonal clusters, this is the number of nodes per
    zone" (pulumi_gcp NodePool.initialNodeCount; https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools),
    so rounding the count up per zone starts more nodes than the plan prices (1 system node over 3 zones starts 3;
    8 L4 nodes over 3 zones start 9, and the add-on pods on them then block scale-down). The pool spans as many of
    the plan's zones, in order, as divide `total` evenly: 1 node in 1 zone, 8 in 2 zones of 4, 9 in 3 of 3. A pool
    that starts empty keeps every zone."""
    if total <= 0 or not zones:
        return tuple(zones), 0
    spans = max(count for count in range(1, len(zones) + 1) if total % count == 0)
    return tuple(zones[:spans]), total // spans


def autoscaling_location_policy(spot: bool) -> str:
    """ANY for spot pools (take capacity wherever it is), BALANCED otherwise (spread across zones).
    https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler#location_policy"""
    return "ANY" if spot else "BALANCED"


def gvnic_subnet_cidr(index: int) -> str:
    """Subnet of the index-th gVNIC GPUDirect network: 192.168.<index>.0/24, as in GKE's GPUDirect-TCPX guide and
    xpk (src/xpk/core/network.py @367c838). https://cloud.google.com/kubernetes-engine/docs/how-to/gpu-bandwidth-gpudirect-tcpx"""
    if not 0 <= index < 128:
        raise ValueError(f"gVNIC network index {index} out of range 0..127")
    return f"192.168.{index}.0/24"


RDMA_RANGE = ipaddress.IPv4Network("192.168.128.0/18")


def rdma_subnet_cidr(index: int, count: int) -> str:
    """The index-th of `count` equal subnets of 192.168.128.0/18, the RoCE VPC range of Cluster Toolkit's A3 Ultra
    and A4 blueprints (examples/gke-a3-ultragpu/gke-a3-ultragpu.yaml @1047080, cidrsubnet per subnet)."""
    if not 0 <= index < count:
        raise ValueError(f"RDMA subnet index {index} out of range 0..{count - 1}")
    new_prefix = RDMA_RANGE.prefixlen + max(count - 1, 0).bit_length()
    return str(list(RDMA_RANGE.subnets(new_prefix=new_prefix))[index])


def service_account_id(name: str) -> str:
    """A service account id from a component name: 6-30 characters, lowercase letter first, no trailing '-'.
    A longer name keeps its head and gets a 6-character hash of the whole, so `<workload>-nodes` and
    `<workload>-workload` of a long workload name never truncate to the same id.
    https://cloud.google.com/iam/docs/service-accounts-create#creating"""
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in name.lower())
    if not cleaned[:1].isalpha():
        cleaned = "sa-" + cleaned
    if len(cleaned) > 30:
        digest = hashlib.sha256(name.encode()).hexdigest()[:6]
        cleaned = f"{cleaned[:23].rstrip('-')}-{digest}"
    return cleaned.rstrip("-").ljust(6, "0")


def topology_chips(topology: str) -> int:
    """'4x4x4' -> 64."""
    product = 1
    for side in topology.split("x"):
        product *= int(side)
    return product


LOCAL_SSD_GB = 375  # every GCE local SSD disk is 375 GB. https://cloud.google.com/compute/docs/disks/local-ssd


def local_ssd_count(local_nvme_gb: float) -> int:
    """Number of 375 GB local SSD disks behind the plan's local NVMe capacity (bundled on A3/G2 machines)."""
    return round(local_nvme_gb / LOCAL_SSD_GB)
