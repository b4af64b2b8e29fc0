"""Plan -> component args: a mechanical translation, nothing chosen here. Each function takes the Plan piece
and the already-created dependencies (network, cluster, service account) and returns a frozen args object, so
a user composing the components by hand can fill the same objects themselves."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi

from accelfit.planner.fleet.capacity_groups import pool_group_labels
from accelfit.catalog.models import Catalog, Cloud
from accelfit.environments import is_protected
from accelfit.planner.serving.route_plan import builds_route
from accelfit.planner.serving.traffic import serving_traffic_facts
from accelfit.planner.model import NodePool, Plan, TpuVmSlice
from accelfit.planner.fleet.provisioning import provisioning_class
from components.gcp.bucket import DataBucketArgs
from components.gcp.filestore import SharedFilestoreArgs
from components.gcp.gke_cluster import GkeClusterArgs, SystemPoolArgs
from components.gcp.gpu_node_pool import GpuNodePoolArgs
from components.gcp.network import NetworkArgs
from accelfit.cloudrules.gcp.node_settings import local_ssd_count, topology_chips
from accelfit.cloudrules.gcp.rules import GpuDirectLayout, gcp_rules
from components.gcp.tpu_node_pool import TpuNodePoolArgs
from components.gcp.tpu_queued import QueuedSlice, TpuQueuedSlicesArgs
from components.gcp.tpu_vm import TpuVmSliceArgs


# Charts with admission webhooks the Kubernetes layer installs on GKE (Kueue; JobSet for TPU multislice).
INSTALLED_WEBHOOKS = ("kueue", "jobset")


@dataclass(frozen=True)
class ControlPlaneAccess:
    """Who reaches the control plane (stack config `accelfit:controlPlane`): the CIDRs of the IP endpoint's
    authorized networks, and whether the IAM-gated DNS endpoint is on."""

    authorized_cidrs: tuple[str, ...] = ()
    dns_endpoint: bool = False


def is_prod(plan: Plan) -> bool:
    """A protected environment (accelfit.environments.is_protected: prod as shipped, and any copied from it)."""
    return is_protected(plan.environment)


def gpudirect_of(plan: Plan) -> str:
    """The GPUDirect flavour of the plan's GPU pools ('none' when no pool uses it)."""
    return next((pool.gpudirect for pool in plan.node_pools if pool.gpudirect != "none"), "none")


def gpudirect_layout(plan: Plan) -> GpuDirectLayout | None:
    """The extra-network layout of the plan's GPUDirect flavour (rules.gpudirect_layouts); None without one."""
    flavour = gpudirect_of(plan)
    if flavour == "none" or not plan.network.extra_networks:
        return None
    return gcp_rules().layout(flavour)


def gpudirect_zone(plan: Plan) -> str:
    """The zone of the GPUDirect pool: a RoCE network profile belongs to one zone."""
    return next((pool.zones[0] for pool in plan.node_pools if pool.gpudirect != "none"), plan.zones[0])


def rdma_network_profile(project: str, zone: str) -> str:
    """RDMA VPCs for A3 Ultra/A4 NICs use the zone's RoCE network profile.
    https://cloud.google.com/vpc/docs/rdma-network-profiles"""
    return f"projects/{project}/global/networkProfiles/{zone}-vpc-roce"


def network_args(plan: Plan, project: str, serving_route: bool = False) -> NetworkArgs:
    """`serving_route`: a workload of the network builds a serving route, whose Gateway needs the region's
    proxy-only subnet."""
    layout = gpudirect_layout(plan)
    return NetworkArgs(region=plan.region, cidr=plan.network.cidr, pods_cidr=plan.network.pods_cidr,
                       services_cidr=plan.network.services_cidr, gpudirect=layout,
                       proxy_only_cidr=serving_traffic_facts().gateway.gcp_proxy_only_cidr if serving_route else None,
                       rdma_network_profile=(rdma_network_profile(project, gpudirect_zone(plan))
                                             if layout is not None and layout.rdma_subnets else None))


def cluster_args(plan: Plan, project: str, network: pulumi.Input[str], subnetwork: pulumi.Input[str],
                 service_account: pulumi.Input[str], labels: dict[str, str],
                 access: ControlPlaneAccess | None = None) -> GkeClusterArgs:
    system = next(pool for pool in plan.node_pools if pool.role == "system")
    access = access or ControlPlaneAccess()
    return GkeClusterArgs(
        project=project, region=plan.region, network=network, subnetwork=subnetwork,
        service_account=service_account, release_channel=plan.gke_release_channel,
        deletion_protection=is_prod(plan), master_cidr=plan.network.master_cidr,
        multi_networking=gpudirect_layout(plan) is not None,
        filestore_csi=plan.storage.shared_filesystem == "filestore", labels=labels,
        webhook_ports=gcp_rules().webhook_ports_for(
            set(INSTALLED_WEBHOOKS) | ({"keda"} if builds_route(plan) else set())),
        # Training runs for days on nodes an upgrade would recreate: hold minor and node upgrades (security
        # patches still reach the control plane); serving pools take surge upgrades in the window.
        upgrade_exclusion="NO_MINOR_OR_NODE_UPGRADES" if plan.kind in ("training", "fine-tuning") else None,
        authorized_cidrs=access.authorized_cidrs, dns_endpoint=access.dns_endpoint, serving_route=builds_route(plan),
        system_pool=SystemPoolArgs(machine_type=system.machine_type, zones=system.zones,
                                   min_nodes=system.min_nodes, max_nodes=system.max_nodes,
                                   initial_nodes=system.initial_nodes, disk_size_gb=system.disk_size_gb,
                                   labels=dict(system.labels)))


def _taints(pool: NodePool) -> tuple[tuple[str, str, str], ...]:
    return tuple((taint.key, taint.value, taint.effect) for taint in pool.taints)


def gpu_pool_args(plan: Plan, pool: NodePool, catalog: Catalog, cluster: pulumi.Input[str],
                  service_account: pulumi.Input[str],
                  additional_nics: Sequence[tuple[pulumi.Input[str], pulumi.Input[str]]],
                  labels: dict[str, str]) -> GpuNodePoolArgs:
    machine = catalog.instance_type(Cloud.gcp, pool.machine_type)
    family = machine.family if machine else ""
    disk = gcp_rules().boot_disk(family)
    layout = gpudirect_layout(plan) if pool.gpudirect != "none" else None
    return GpuNodePoolArgs(
        cluster=cluster, location=plan.region, zones=pool.zones, machine_type=pool.machine_type,
        gpu_type=pool.gke_accelerator or "", gpus_per_node=pool.accelerators_per_node,
        driver_version=pool.driver_version or "", service_account=service_account, environment=plan.environment,
        min_nodes=pool.min_nodes, max_nodes=pool.max_nodes, initial_nodes=pool.initial_nodes, spot=pool.spot,
        reservation=pool.reservation, avoid_reservations=pool.avoid_reservations,
        compact_placement=pool.compact_placement,
        gpu_sharing_strategy=pool.gpu_sharing_strategy, gpu_max_shared_clients=pool.gpu_max_shared_clients,
        taints=_taints(pool), labels={**pool.labels, **pool_group_labels(plan).get(pool.name, {})},
        resource_labels=labels, disk_size_gb=pool.disk_size_gb,
        local_ssd_count=local_ssd_count(pool.local_nvme_gb),
        additional_networks=tuple(additional_nics) if layout is not None else (),
        machine_family=family, disk_type=disk.default if disk else "",
        max_pods_per_node=layout.max_pods_per_node if layout is not None else None,
        host_maintenance_interval=gcp_rules().host_maintenance_interval(family),  # type: ignore[arg-type]
        # Flex-start pools; multi-node training ones obtain all nodes together through queued provisioning, which
        # Kueue's ProvisioningRequest check drives (accelfit.planner.fleet.provisioning, components.kubernetes.kueue).
        flex_start=pool.flex_start, queued_provisioning=provisioning_class(plan, pool) is not None)


def tpu_pool_args(plan: Plan, pool: NodePool, cluster: pulumi.Input[str], service_account: pulumi.Input[str],
                  labels: dict[str, str]) -> TpuNodePoolArgs:
    # Multi-host when the slice has more chips than one node holds; those pools need the topology placement.
    topology = pool.tpu_topology
    multi_host = bool(topology and topology_chips(topology) > pool.accelerators_per_node)
    return TpuNodePoolArgs(
        cluster=cluster, location=plan.region, zone=pool.zones[0], machine_type=pool.machine_type,
        tpu_slice=pool.tpu_slice or "", tpu_topology=pool.tpu_topology if multi_host else None,
        service_account=service_account, min_nodes=pool.min_nodes, max_nodes=pool.max_nodes,
        initial_nodes=pool.initial_nodes, spot=pool.spot, reservation=pool.reservation, taints=_taints(pool),
        labels=dict(pool.labels), resource_labels=labels, disk_size_gb=pool.disk_size_gb)


def tpu_vm_args(plan: Plan, item: TpuVmSlice, network: pulumi.Input[str], subnetwork: pulumi.Input[str],
                service_account: pulumi.Input[str], labels: dict[str, str]) -> TpuVmSliceArgs:
    return TpuVmSliceArgs(
        zone=item.zone, accelerator_config_type=item.accelerator_config_type, topology=item.topology,
        runtime_version=item.runtime_version, network=network, subnetwork=subnetwork,
        service_account=service_account, spot=item.spot, reserved=item.reserved, data_disk_gb=item.data_disk_gb,
        labels=labels, description=f"{plan.workload} {item.accelerator_type} ({plan.framework})")


def queued_args(plan: Plan, project: str, items: list[TpuVmSlice], network: pulumi.Input[str],
                subnetwork: pulumi.Input[str]) -> TpuQueuedSlicesArgs:
    return TpuQueuedSlicesArgs(
        project=project, zone=items[0].zone, network=network, subnetwork=subnetwork,
        description=f"{plan.workload} ({plan.framework})",
        slices=tuple(QueuedSlice(node_id=f"{plan.workload}-{item.name}", accelerator_type=item.accelerator_type,
                                 runtime_version=item.runtime_version) for item in items))


def bucket_args(plan: Plan, members: tuple[pulumi.Input[str], ...], labels: dict[str, str]) -> DataBucketArgs:
    return DataBucketArgs(location=plan.region, versioning=plan.storage.bucket_versioning,
                          checkpoint_retention_days=plan.storage.checkpoint_retention_days, protect=is_prod(plan),
                          readers_writers=members, labels=labels)


def filestore_args(plan: Plan, network: pulumi.Input[str], labels: dict[str, str]) -> SharedFilestoreArgs:
    return SharedFilestoreArgs(tier=plan.storage.filestore_tier, capacity_gib=plan.storage.filesystem_capacity_gib,
                               network=network, region=plan.region, zone=plan.zones[0], protect=is_prod(plan),
                               labels=labels)


def shared_cluster_args(plans: tuple[Plan, ...], basis: Plan, project: str, network: pulumi.Input[str],
                        subnetwork: pulumi.Input[str], service_account: pulumi.Input[str], labels: dict[str, str],
                        access: ControlPlaneAccess | None = None) -> GkeClusterArgs:
    """The cluster of several workloads: `basis`'s settings (network, system pool, channel), with what any workload
    needs turned on for all: the Filestore CSI driver, and the upgrade exclusion when any workload trains."""
    args = cluster_args(basis, project, network, subnetwork, service_account, labels, access)
    training = any(plan.kind in ("training", "fine-tuning") for plan in plans)
    return dataclasses.replace(
        args, filestore_csi=any(plan.storage.shared_filesystem == "filestore" for plan in plans),
        serving_route=any(builds_route(plan) for plan in plans),
        webhook_ports=gcp_rules().webhook_ports_for(
            set(INSTALLED_WEBHOOKS) | ({"keda"} if any(builds_route(plan) for plan in plans) else set())),
        upgrade_exclusion="NO_MINOR_OR_NODE_UPGRADES" if training else None)
