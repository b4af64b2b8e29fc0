"""GkeCluster: a regional GKE Standard cluster with private nodes, Workload Identity, a release channel, a
maintenance window (and, for training, an exclusion that keeps upgrades off running nodes), the control-plane
access the stack names, a firewall rule that lets the control plane reach the installed admission webhooks, and a
small system node pool. Accelerator pools are separate components (GpuNodePool, TpuNodePool) attached to it."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import compute, container

from accelfit.errors import InputError, problem
from components.gcp import pool_parts
from accelfit.cloudrules.gcp.names import KEEP_EXISTING_NAME, fitted_name
from components.kubernetes.access import gke_dns_kubeconfig, gke_kubeconfig
from components.gcp.network import PODS_RANGE_NAME, SERVICES_RANGE_NAME
from accelfit.cloudrules.gcp.node_settings import node_labels


# A daily four-hour window at a quiet hour (Cluster Toolkit's gke-cluster module has a daily window too, 09:00 by
# default: modules/scheduler/gke-cluster/variables.tf @1047080). https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions
MAINTENANCE_START_UTC = "03:00"
# Scopes GKE accepts for an exclusion held until the end of support (Cluster Toolkit's GPU examples use
# NO_MINOR_OR_NODE_UPGRADES with UNTIL_END_OF_SUPPORT: examples/gke-a3-ultragpu/gke-a3-ultragpu.yaml @1047080).
EXCLUSION_SCOPES = ("NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES")
# A fixed, past start: an exclusion starting "now" would change on every run.
EXCLUSION_START = "2026-11-23T00:00:00Z"


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
    webhook_ports: tuple[int, ...] = ()
    """Ports of the admission webhooks installed in the cluster (rules.webhook_ports). GKE's own firewall admits
    the private control plane on 443 and 10250 only, so these get a rule from `master_cidr` to the nodes."""
    maintenance_start_utc: str = MAINTENANCE_START_UTC
    upgrade_exclusion: str | None = None
    """A maintenance-exclusion scope (NO_MINOR_OR_NODE_UPGRADES for training) held until the version's end of
    support, or None (auto-upgrades run in the window)."""
    authorized_cidrs: tuple[str, ...] = ()
    """CIDRs allowed to reach the control plane's IP endpoint; empty = any address (still IAM-authenticated)."""
    dns_endpoint: bool = False
    """Also serve the control plane on its DNS endpoint (IAM-gated, reachable from anywhere with credentials)."""
    serving_route: bool = False
    """A workload builds a serving route: the cluster's Gateway API (standard channel) runs GKE's Gateway
    controller (https://cloud.google.com/kubernetes-engine/docs/how-to/deploying-gateways#enable-gateway), and the
    kube state metrics package's Deployment metrics (kube_deployment_spec_replicas,
    kube_deployment_status_replicas_available) reach Managed Prometheus for the fallback autoscaler
    (https://cloud.google.com/kubernetes-engine/docs/how-to/configure-metrics#ksm; it needs managed collection on
    and the system metrics kept)."""


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
    if args.upgrade_exclusion not in (None, *EXCLUSION_SCOPES):
        problems.append(problem(where, "upgrade_exclusion", "not a GKE maintenance-exclusion scope",
                                f"use one of {', '.join(EXCLUSION_SCOPES)} or none", args.upgrade_exclusion))
    for index, cidr in enumerate(args.authorized_cidrs):
        try:
            ipaddress.ip_network(cidr)
        except ValueError:
            problems.append(problem(where, f"authorized_cidrs[{index}]", "not a CIDR range",
                                    "write it as e.g. 203.0.113.0/24", cidr))
    if problems:
        raise InputError(problems)


class GkeCluster(pulumi.ComponentResource):
    cluster: container.Cluster
    system_pool: container.NodePool

    def __init__(self, name: str, args: GkeClusterArgs, opts: pulumi.ResourceOptions | None = None):
        validate_cluster_args(name, args)
        super().__init__("accelfit:gcp:GkeCluster", name, None, opts)
        # A name an earlier release's auto-naming gave stays (names.KEEP_EXISTING_NAME).
        named = pulumi.ResourceOptions(parent=self, delete_before_replace=True,
                                       ignore_changes=list(KEEP_EXISTING_NAME))
        self.cluster = container.Cluster(
            f"{name}-cluster", name=fitted_name("container_cluster", name), location=args.region,
            project=args.project, network=args.network, subnetwork=args.subnetwork,
            # Pools are separate NodePool resources, so the default pool is created with one node and removed.
            remove_default_node_pool=True, initial_node_count=1,
            deletion_protection=args.deletion_protection,
            release_channel=container.ClusterReleaseChannelArgs(channel=args.release_channel),
            maintenance_policy=_maintenance_policy(args),
            workload_identity_config=container.ClusterWorkloadIdentityConfigArgs(
                workload_pool=f"{args.project}.svc.id.goog"),
            ip_allocation_policy=container.ClusterIpAllocationPolicyArgs(
                cluster_secondary_range_name=args.pods_range_name,
                services_secondary_range_name=args.services_range_name),
            private_cluster_config=container.ClusterPrivateClusterConfigArgs(
                enable_private_nodes=True, enable_private_endpoint=False,
                master_ipv4_cidr_block=args.master_cidr),
            master_authorized_networks_config=(container.ClusterMasterAuthorizedNetworksConfigArgs(
                cidr_blocks=[container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                    cidr_block=cidr, display_name=f"authorized-{index}")
                    for index, cidr in enumerate(args.authorized_cidrs)],
                gcp_public_cidrs_access_enabled=False) if args.authorized_cidrs else None),
            # https://cloud.google.com/kubernetes-engine/docs/concepts/network-isolation#dns-based_endpoint
            control_plane_endpoints_config=(container.ClusterControlPlaneEndpointsConfigArgs(
                dns_endpoint_config=container.ClusterControlPlaneEndpointsConfigDnsEndpointConfigArgs(
                    allow_external_traffic=True)) if args.dns_endpoint else None),
            datapath_provider="ADVANCED_DATAPATH" if args.multi_networking else None,
            enable_multi_networking=True if args.multi_networking else None,
            addons_config=container.ClusterAddonsConfigArgs(
                # Checkpoints and datasets in GCS mount into pods through the GCS FUSE CSI driver.
                gcs_fuse_csi_driver_config=container.ClusterAddonsConfigGcsFuseCsiDriverConfigArgs(enabled=True),
                gcp_filestore_csi_driver_config=(
                    container.ClusterAddonsConfigGcpFilestoreCsiDriverConfigArgs(enabled=True)
                    if args.filestore_csi else None)),
            resource_labels=args.labels,
            gateway_api_config=(container.ClusterGatewayApiConfigArgs(channel="CHANNEL_STANDARD")
                                if args.serving_route else None),
            monitoring_config=(container.ClusterMonitoringConfigArgs(
                enable_components=["SYSTEM_COMPONENTS", "DEPLOYMENT"],
                managed_prometheus=container.ClusterMonitoringConfigManagedPrometheusArgs(enabled=True))
                if args.serving_route else None),
            opts=named)

        if args.webhook_ports:
            # The private control plane reaches webhook pods on the nodes only through this rule.
            # https://cloud.google.com/kubernetes-engine/docs/how-to/private-clusters#add_firewall_rules
            rule = f"{name}-allow-webhooks"
            compute.Firewall(rule, name=fitted_name("compute_firewall", rule), network=args.network,
                             direction="INGRESS", priority=1000, source_ranges=[args.master_cidr],
                             target_service_accounts=[args.service_account],
                             allows=[compute.FirewallAllowArgs(protocol="tcp",
                                                               ports=[str(port) for port in args.webhook_ports])],
                             opts=named)

        pool = args.system_pool
        self.system_pool = container.NodePool(
            f"{name}-system", name=fitted_name("container_node_pool", f"{name}-system"),
            cluster=self.cluster.id, location=args.region, **pool_parts.starting(pool.initial_nodes, pool.zones),
            autoscaling=pool_parts.autoscaling(pool.min_nodes, pool.max_nodes, spot=False),
            management=pool_parts.management(), network_config=pool_parts.private_nodes(),
            node_config=container.NodePoolNodeConfigArgs(
                machine_type=pool.machine_type, disk_size_gb=pool.disk_size_gb,
                labels=node_labels("system", pool.labels), resource_labels=args.labels,
                **pool_parts.secure_node_basics(args.service_account)),
            opts=pulumi.ResourceOptions.merge(named, pulumi.ResourceOptions(
                ignore_changes=pool_parts.POOL_IGNORE_CHANGES)))

        # The Kubernetes layer connects through the DNS endpoint when it is on (it works from any network, e.g.
        # CI runners outside the authorized CIDRs), else through the IP endpoint with the cluster CA.
        if args.dns_endpoint:
            self.kubeconfig = pulumi.Output.all(
                self.cluster.name, self.cluster.control_plane_endpoints_config).apply(
                lambda parts: gke_dns_kubeconfig(parts[0], str(((parts[1] or {}).get("dns_endpoint_config") or {})
                                                               .get("endpoint"))))
        else:
            self.kubeconfig = pulumi.Output.all(
                self.cluster.name, self.cluster.endpoint, self.cluster.master_auth.cluster_ca_certificate).apply(
                lambda parts: gke_kubeconfig(*parts))
        self.cluster_name = self.cluster.name
        self.cluster_id = self.cluster.id
        self.endpoint = self.cluster.endpoint
        self.register_outputs({"cluster_name": self.cluster.name, "cluster_id": self.cluster.id,
                               "endpoint": self.cluster.endpoint, "system_pool": self.system_pool.name})


def _maintenance_policy(args: GkeClusterArgs) -> container.ClusterMaintenancePolicyArgs:
    exclusions = [container.ClusterMaintenancePolicyMaintenanceExclusionArgs(
        exclusion_name=args.upgrade_exclusion.lower().replace("_", "-"), start_time=EXCLUSION_START,
        exclusion_options=container.ClusterMaintenancePolicyMaintenanceExclusionExclusionOptionsArgs(
            scope=args.upgrade_exclusion, end_time_behavior="UNTIL_END_OF_SUPPORT"))] if args.upgrade_exclusion else None
    return container.ClusterMaintenancePolicyArgs(
        daily_maintenance_window=container.ClusterMaintenancePolicyDailyMaintenanceWindowArgs(
            start_time=args.maintenance_start_utc),
        maintenance_exclusions=exclusions)
