"""GkeCluster: a regional GKE Standard cluster with private nodes, Workload Identity, a release channel and a
small system node pool. Accelerator pools are separate components (GpuNodePool, TpuNodePool) attached to it."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import container

from accelfit.errors import InputError, problem
from components.gcp import pool_parts
from components.gcp.network import PODS_RANGE_NAME, SERVICES_RANGE_NAME
from components.gcp.node_settings import node_labels


@dataclass(frozen=True)
class SystemPoolArgs:
    """The pool for cluster add-ons (DNS, metrics, operators); no accelerators, no taints."""

    machine_type: str
    zones: tuple[str, ...]
    min_nodes: int = 1
    max_nodes: int = 3
    initial_nodes: int = 1
    disk_size_gb: int = 100
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GkeClusterArgs:
    project: str
    region: str
    network: pulumi.Input[str]
    subnetwork: pulumi.Input[str]
    service_account: pulumi.Input[str]
    """Email of the node service account."""
    system_pool: SystemPoolArgs
    release_channel: str = "REGULAR"
    deletion_protection: bool = True
    """On in prod; set explicitly everywhere (GKE's default is on, which blocks `pulumi destroy`)."""
    master_cidr: str = "172.16.0.0/28"
    pods_range_name: str = PODS_RANGE_NAME
    services_range_name: str = SERVICES_RANGE_NAME
    multi_networking: bool = False
    """Needed when pools attach extra GPUDirect networks; turns on Dataplane V2, which multi-networking needs."""
    filestore_csi: bool = False
    labels: dict[str, str] = field(default_factory=dict)


def validate_cluster_args(name: str, args: GkeClusterArgs) -> None:
    where = f"GkeCluster {name}"
    problems = []
    if args.release_channel not in ("RAPID", "REGULAR", "STABLE"):
        problems.append(problem(where, "release_channel", "unknown channel", "use RAPID, REGULAR or STABLE",
                                args.release_channel))
    pool = args.system_pool
    if not pool.min_nodes <= pool.initial_nodes <= pool.max_nodes or pool.max_nodes < 1:
        problems.append(problem(where, "system_pool.initial_nodes", "must lie between min_nodes and max_nodes",
                                "set 1 <= max_nodes and min_nodes <= initial_nodes <= max_nodes", pool.initial_nodes))
    if not pool.zones:
        problems.append(problem(where, "system_pool.zones", "required", "give at least one zone"))
    if problems:
        raise InputError(problems)


class GkeCluster(pulumi.ComponentResource):
    cluster: container.Cluster
    system_pool: container.NodePool

    def __init__(self, name: str, args: GkeClusterArgs, opts: pulumi.ResourceOptions | None = None):
        validate_cluster_args(name, args)
        super().__init__("accelfit:gcp:GkeCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        self.cluster = container.Cluster(
            f"{name}-cluster", location=args.region, project=args.project,
            network=args.network, subnetwork=args.subnetwork,
            # Pools are separate NodePool resources, so the default pool is created with one node and removed.
            remove_default_node_pool=True, initial_node_count=1,
            deletion_protection=args.deletion_protection,
            release_channel=container.ClusterReleaseChannelArgs(channel=args.release_channel),
            workload_identity_config=container.ClusterWorkloadIdentityConfigArgs(
                workload_pool=f"{args.project}.svc.id.goog"),
            ip_allocation_policy=container.ClusterIpAllocationPolicyArgs(
                cluster_secondary_range_name=args.pods_range_name,
                services_secondary_range_name=args.services_range_name),
            private_cluster_config=container.ClusterPrivateClusterConfigArgs(
                enable_private_nodes=True, enable_private_endpoint=False,
                master_ipv4_cidr_block=args.master_cidr),
            datapath_provider="ADVANCED_DATAPATH" if args.multi_networking else None,
            enable_multi_networking=True if args.multi_networking else None,
            addons_config=container.ClusterAddonsConfigArgs(
                # Checkpoints and datasets in GCS mount into pods through the GCS FUSE CSI driver.
                gcs_fuse_csi_driver_config=container.ClusterAddonsConfigGcsFuseCsiDriverConfigArgs(enabled=True),
                gcp_filestore_csi_driver_config=(
                    container.ClusterAddonsConfigGcpFilestoreCsiDriverConfigArgs(enabled=True)
                    if args.filestore_csi else None)),
            resource_labels=args.labels,
            opts=child)

        pool = args.system_pool
        self.system_pool = container.NodePool(
            f"{name}-system", cluster=self.cluster.id, location=args.region, node_locations=list(pool.zones),
            initial_node_count=pool_parts.initial_per_zone(pool.initial_nodes, pool.zones),
            autoscaling=pool_parts.autoscaling(pool.min_nodes, pool.max_nodes, spot=False),
            management=pool_parts.management(), network_config=pool_parts.private_nodes(),
            node_config=container.NodePoolNodeConfigArgs(
                machine_type=pool.machine_type, disk_size_gb=pool.disk_size_gb,
                labels=node_labels("system", pool.labels), resource_labels=args.labels,
                **pool_parts.secure_node_basics(args.service_account)),
            opts=child)

        self.cluster_name = self.cluster.name
        self.cluster_id = self.cluster.id
        self.endpoint = self.cluster.endpoint
        self.register_outputs({"cluster_name": self.cluster.name, "cluster_id": self.cluster.id,
                               "endpoint": self.cluster.endpoint, "system_pool": self.system_pool.name})
