"""GpuNodePool: a GKE node pool of GPU machines with managed driver installation, spot/on-demand/reservation
capacity, autoscaling bounds, optional compact placement and GPU sharing, the nvidia.com/gpu taint, role
labels and no external IPs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pulumi
from pulumi_gcp import container

from accelfit.errors import InputError, problem
from components.gcp import pool_parts
from components.gcp.node_settings import GPU_TAINT, driver_installation, node_labels, with_required_taint

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


def validate_gpu_pool_args(name: str, args: GpuNodePoolArgs) -> None:
    where = f"GpuNodePool {name}"
    problems = []
    if args.gpus_per_node < 1:
        problems.append(problem(where, "gpus_per_node", "a GPU pool needs GPUs", "set 1 or more", args.gpus_per_node))
    if not args.min_nodes <= args.initial_nodes <= args.max_nodes or args.max_nodes < 1:
        problems.append(problem(where, "initial_nodes", "must lie between min_nodes and max_nodes",
                                "set min_nodes <= initial_nodes <= max_nodes, max_nodes >= 1", args.initial_nodes))
    if args.driver_version.upper() == "LATEST" and args.environment == "prod":
        problems.append(problem(where, "driver_version", "LATEST changes the driver under a running prod cluster",
                                "use DEFAULT or a pinned version in prod", args.driver_version))
    if args.compact_placement and len(args.zones) != 1:
        problems.append(problem(where, "zones", "compact placement keeps nodes in one zone",
                                "give one zone or turn compact_placement off", list(args.zones)))
    if args.spot and args.reservation:
        problems.append(problem(where, "reservation", "spot VMs cannot consume a reservation",
                                "set spot: false or drop the reservation", args.reservation))
    if bool(args.gpu_sharing_strategy) != bool(args.gpu_max_shared_clients):
        problems.append(problem(where, "gpu_max_shared_clients", "GPU sharing needs a strategy and a client count",
                                "set both gpu_sharing_strategy and gpu_max_shared_clients, or neither",
                                args.gpu_max_shared_clients))
    if problems:
        raise InputError(problems)


class GpuNodePool(pulumi.ComponentResource):
    node_pool: container.NodePool

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        validate_gpu_pool_args(name, args)
        super().__init__("accelfit:gcp:GpuNodePool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

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
            reservation_affinity=pool_parts.reservation(args.reservation, args.spot),
            taints=pool_parts.taints(with_required_taint(args.taints, GPU_TAINT)),
            labels=labels, resource_labels=args.resource_labels, disk_size_gb=args.disk_size_gb,
            disk_type="pd-ssd",
            # gVNIC is required for the GPUDirect NICs and gives higher bandwidth on GPU machines.
            # https://cloud.google.com/kubernetes-engine/docs/how-to/using-gvnic
            gvnic=container.NodePoolNodeConfigGvnicArgs(enabled=True),
            ephemeral_storage_local_ssd_config=(
                container.NodePoolNodeConfigEphemeralStorageLocalSsdConfigArgs(local_ssd_count=args.local_ssd_count)
                if args.local_ssd_count else None),
            **pool_parts.secure_node_basics(args.service_account))

        network_config = container.NodePoolNetworkConfigArgs(
            enable_private_nodes=True,
            additional_node_network_configs=[
                container.NodePoolNetworkConfigAdditionalNodeNetworkConfigArgs(network=net, subnetwork=subnet)
                for net, subnet in args.additional_networks] or None)

        self.node_pool = container.NodePool(
            f"{name}-pool", cluster=args.cluster, location=args.location, node_locations=list(args.zones),
            initial_node_count=pool_parts.initial_per_zone(args.initial_nodes, args.zones),
            autoscaling=pool_parts.autoscaling(args.min_nodes, args.max_nodes, args.spot),
            # Multi-node training wants nodes close together (low latency between them).
            # https://cloud.google.com/kubernetes-engine/docs/how-to/compact-placement
            placement_policy=container.NodePoolPlacementPolicyArgs(type="COMPACT") if args.compact_placement else None,
            management=pool_parts.management(), network_config=network_config, node_config=node_config,
            opts=child)

        self.pool_name = self.node_pool.name
        self.register_outputs({"pool_name": self.node_pool.name})
