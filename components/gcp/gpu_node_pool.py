"""GpuNodePool: a GKE node pool of GPU machines with managed driver installation, spot/on-demand/reservation or
DWS flex-start capacity (optionally through queued provisioning), autoscaling bounds, optional compact placement
and GPU sharing, the boot disk type its machine family accepts, upgrade settings that fit its capacity, host
maintenance policy, the GPUDirect NICs, the nvidia.com/gpu taint, role labels and no external IPs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pulumi
from pulumi_gcp import container

from accelfit.errors import InputError, Problem, problem
from accelfit.environments import is_protected
from components.gcp import pool_parts
from accelfit.cloudrules.gcp.names import KEEP_EXISTING_NAME, fitted_name
from accelfit.clouds.gcp_flex_start import flex_start_placement_rejection
from accelfit.cloudrules.gcp.rules import gcp_rules
from accelfit.cloudrules.gcp.node_settings import GPU_TAINT, driver_installation, node_labels, with_required_taint

DRIVER_LABEL = "accelfit.io/gpu-driver"


@dataclass(frozen=True)
class GpuNodePoolArgs:
    cluster: pulumi.Input[str]
    """Cluster id (projects/<p>/locations/<l>/clusters/<c>) or name."""
    location: str
    """The cluster's location (its region for a regional cluster)."""
    zones: tuple[str, ...]
    machine_type: str
    gpu_type: str
    """GKE accelerator string, e.g. nvidia-h100-80gb."""
    gpus_per_node: int
    driver_version: str
    """DEFAULT or LATEST (GKE installs the driver), or an exact version (managed installation off; the version
    goes in the accelfit.io/gpu-driver node label for the GPU operator)."""
    service_account: pulumi.Input[str]
    environment: str
    min_nodes: int
    max_nodes: int
    initial_nodes: int
    spot: bool = False
    reservation: str | None = None
    compact_placement: bool = False
    gpu_sharing_strategy: Literal["TIME_SHARING", "MPS"] | None = None
    gpu_max_shared_clients: int = 0
    taints: tuple[tuple[str, str, str], ...] = ()
    """(key, value, Kubernetes effect); nvidia.com/gpu=present:NoSchedule is always added when missing."""
    labels: dict[str, str] = field(default_factory=dict)
    """Kubernetes node labels."""
    resource_labels: dict[str, str] = field(default_factory=dict)
    """GCP labels on the VMs (ownership)."""
    disk_size_gb: int = 200
    local_ssd_count: int = 0
    """Local NVMe SSDs used as ephemeral storage (0 = boot disk only)."""
    additional_networks: tuple[tuple[pulumi.Input[str], pulumi.Input[str]], ...] = ()
    """(network, subnetwork) per extra GPUDirect NIC."""
    machine_family: str = ""
    """Catalog family of `machine_type` (g2, a3-ultra, ...): decides the boot disk types it accepts."""
    disk_type: str = "pd-balanced"
    """Boot disk type; must be one the family accepts (rules.boot_disks: A3 Ultra, A4, A4X take Hyperdisk only)."""
    max_pods_per_node: int | None = None
    """None = GKE's default (110); GPUDirect layouts set 32 as xpk does."""
    host_maintenance_interval: Literal["AS_NEEDED", "PERIODIC"] | None = None
    """Host maintenance policy (A3/A4 machines); must match a reservation's own setting when one is used."""
    avoid_reservations: bool = False
    """Never consume reserved capacity (NO_RESERVATION): a standby pool of a plan whose planned pool holds one."""
    flex_start: bool = False
    """DWS flex-start: capacity obtained when available, for up to 7 days; no reservation, no spot, starts at 0."""
    queued_provisioning: bool = False
    """DWS queued provisioning (needs flex_start here): all nodes of a request arrive together, via Kueue's
    ProvisioningRequest admission check."""


def validate_gpu_pool_args(name: str, args: GpuNodePoolArgs) -> None:
    where = f"GpuNodePool {name}"
    problems = []
    if args.gpus_per_node < 1:
        problems.append(problem(where, "gpus_per_node", "a GPU pool needs GPUs", "set 1 or more", args.gpus_per_node))
    if not args.min_nodes <= args.initial_nodes <= args.max_nodes or args.max_nodes < 1:
        problems.append(problem(where, "initial_nodes", "must lie between min_nodes and max_nodes",
                                "set min_nodes <= initial_nodes <= max_nodes, max_nodes >= 1", args.initial_nodes))
    if args.driver_version.upper() == "LATEST" and is_protected(args.environment):
        problems.append(problem(where, "driver_version", "LATEST changes the driver under a running prod cluster",
                                "use DEFAULT or a pinned version in prod", args.driver_version))
    if args.compact_placement and len(args.zones) != 1:
        problems.append(problem(where, "zones", "compact placement keeps nodes in one zone",
                                "give one zone or turn compact_placement off", list(args.zones)))
    if args.spot and args.reservation:
        problems.append(problem(where, "reservation", "spot VMs cannot consume a reservation",
                                "set spot: false or drop the reservation", args.reservation))
    if args.avoid_reservations and args.reservation:
        problems.append(problem(where, "avoid_reservations", "a pool cannot both consume and avoid a reservation",
                                "drop the reservation or avoid_reservations", args.reservation))
    problems += _boot_disk_problems(where, args)
    problems += _flex_start_problems(where, args)
    if bool(args.gpu_sharing_strategy) != bool(args.gpu_max_shared_clients):
        problems.append(problem(where, "gpu_max_shared_clients", "GPU sharing needs a strategy and a client count",
                                "set both gpu_sharing_strategy and gpu_max_shared_clients, or neither",
                                args.gpu_max_shared_clients))
    if problems:
        raise InputError(problems)


def _boot_disk_problems(where: str, args: GpuNodePoolArgs) -> list[Problem]:
    rule = gcp_rules().boot_disk(args.machine_family)
    if rule is None:
        known = ", ".join(row.family for row in gcp_rules().boot_disks)
        return [problem(where, "machine_family", "no boot-disk rule for this machine family",
                        f"use one of {known}, or add the family to accelfit/cloudrules/gcp/data/gke_rules.yaml "
                        "with its source",
                        args.machine_family)]
    if args.disk_type not in rule.allowed:
        return [problem(where, "disk_type", f"{args.machine_family} machines boot only from {', '.join(rule.allowed)}",
                        f"set disk_type: {rule.default} ({rule.source})", args.disk_type)]
    return []


def _flex_start_problems(where: str, args: GpuNodePoolArgs) -> list[Problem]:
    """DWS flex-start and queued provisioning take no reservation and no spot, and start empty.
    https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training and xpk
    src/xpk/core/capacity.py @367c838 (--flex-start --location-policy=ANY --reservation-affinity=none, 0 nodes)."""
    problems = []
    if args.queued_provisioning and not args.flex_start:
        problems.append(problem(where, "queued_provisioning", "queued provisioning runs on flex-start capacity",
                                "set flex_start: true as well", args.queued_provisioning))
    if args.flex_start and (args.spot or args.reservation):
        problems.append(problem(where, "flex_start", "flex-start capacity is neither spot nor reserved",
                                "drop spot and the reservation, or flex_start", args.flex_start))
    if args.flex_start and args.initial_nodes:
        problems.append(problem(where, "initial_nodes", "a flex-start pool starts empty and grows on demand",
                                "set initial_nodes: 0 (and min_nodes: 0)", args.initial_nodes))
    placement = (flex_start_placement_rejection(args.machine_type, args.queued_provisioning)
                 if args.flex_start and args.compact_placement else None)
    if placement:
        problems.append(problem(where, "compact_placement", placement, "set compact_placement: false",
                                args.compact_placement))
    return problems


class GpuNodePool(pulumi.ComponentResource):
    node_pool: container.NodePool

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        validate_gpu_pool_args(name, args)
        super().__init__("accelfit:gcp:GpuNodePool", name, None, opts)
        managed, pinned = driver_installation(args.driver_version)
        labels = node_labels("gpu", args.labels)
        if pinned:
            labels[DRIVER_LABEL] = pinned
        sharing = (container.NodePoolNodeConfigGuestAcceleratorGpuSharingConfigArgs(
            gpu_sharing_strategy=args.gpu_sharing_strategy, max_shared_clients_per_gpu=args.gpu_max_shared_clients)
            if args.gpu_sharing_strategy else None)
        accelerator = container.NodePoolNodeConfigGuestAcceleratorArgs(
            type=args.gpu_type, count=args.gpus_per_node, gpu_sharing_config=sharing,
            gpu_driver_installation_config=container.NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs(
                gpu_driver_version=managed))

        node_config = container.NodePoolNodeConfigArgs(
            machine_type=args.machine_type, guest_accelerators=[accelerator], spot=args.spot,
            flex_start=True if args.flex_start else None,
            reservation_affinity=pool_parts.reservation(args.reservation, args.spot or args.flex_start,
                                                        avoid=args.avoid_reservations),
            taints=pool_parts.taints(with_required_taint(args.taints, GPU_TAINT)),
            labels=labels, resource_labels=args.resource_labels, disk_size_gb=args.disk_size_gb,
            disk_type=args.disk_type,
            # gVNIC is required for the GPUDirect NICs and gives higher bandwidth on GPU machines.
            # https://cloud.google.com/kubernetes-engine/docs/how-to/using-gvnic
            gvnic=container.NodePoolNodeConfigGvnicArgs(enabled=True),
            ephemeral_storage_local_ssd_config=(
                container.NodePoolNodeConfigEphemeralStorageLocalSsdConfigArgs(local_ssd_count=args.local_ssd_count)
                if args.local_ssd_count else None),
            host_maintenance_policy=(
                container.NodePoolNodeConfigHostMaintenancePolicyArgs(
                    maintenance_interval=args.host_maintenance_interval)
                if args.host_maintenance_interval else None),
            **pool_parts.secure_node_basics(args.service_account))

        network_config = container.NodePoolNetworkConfigArgs(
            enable_private_nodes=True,
            additional_node_network_configs=[
                container.NodePoolNetworkConfigAdditionalNodeNetworkConfigArgs(network=net, subnetwork=subnet)
                for net, subnet in args.additional_networks] or None)

        self.node_pool = container.NodePool(
            f"{name}-pool", name=fitted_name("container_node_pool", name), cluster=args.cluster,
            location=args.location, **pool_parts.starting(args.initial_nodes, args.zones),
            autoscaling=pool_parts.autoscaling(args.min_nodes, args.max_nodes, args.spot or args.flex_start),
            # Multi-node training wants nodes close together (low latency between them).
            # https://cloud.google.com/kubernetes-engine/docs/how-to/compact-placement
            placement_policy=container.NodePoolPlacementPolicyArgs(type="COMPACT") if args.compact_placement else None,
            queued_provisioning=(container.NodePoolQueuedProvisioningArgs(enabled=True)
                                 if args.queued_provisioning else None),
            max_pods_per_node=args.max_pods_per_node,
            upgrade_settings=pool_parts.upgrade_settings(reserved=bool(args.reservation)),
            # Flex-start nodes are not repaired in place (xpk: --no-enable-autorepair).
            management=pool_parts.management(auto_repair=not args.flex_start),
            network_config=network_config, node_config=node_config,
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True,
                                        ignore_changes=[*KEEP_EXISTING_NAME, *pool_parts.POOL_IGNORE_CHANGES]))

        self.pool_name = self.node_pool.name
        self.register_outputs({"pool_name": self.node_pool.name})
