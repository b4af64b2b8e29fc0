"""TpuNodePool: one GKE node pool per TPU slice. Multi-host slices are atomic pools whose placement policy
carries the TPU topology; nodes get the google.com/tpu taint and role labels; spot, a reservation or DWS
flex-start; gVNIC, the host maintenance interval and upgrade settings that never need a second slice.

What each setting follows (facts, not copied code):
- node count: a fixed pool of `hosts` nodes (xpk `--num-nodes={vms_per_slice}`), or per-zone autoscaling
  bounds 0..hosts with location policy ANY (xpk flex-start `--enable-autoscaling --max-nodes --location-policy=ANY`;
  Cluster Toolkit gke-node-pool sets per-zone min/max_node_count for TPU). GKE checks a multi-host slice against
  the per-zone max_node_count: pool-wide total_* bounds leave it 0 and GKE refuses the pool ("Maximum node count 0
  is not a valid size of TPU pod slice").
- COMPACT placement + tpu_topology on multi-host pools only (xpk: "--tpu-topology should not be set for
  single-host node pools").
- gVNIC (xpk `--enable-gvnic`), host maintenance interval (xpk `--host-maintenance-interval`, default AS_NEEDED).
- upgrades: SURGE with max_surge 0, max_unavailable 1 (Cluster Toolkit gke-node-pool default), so an upgrade
  never asks for a second slice of TPU capacity a reservation does not have.
Sources: AI-Hypercomputer/xpk src/xpk/core/nodepool.py and capacity.py @367c838253bea41e7d7716145ad6513f44c1a21e;
GoogleCloudPlatform/cluster-toolkit modules/compute/gke-node-pool/main.tf and variables.tf
@1047080375afbb44da4b596be314634e7486af4a; https://cloud.google.com/kubernetes-engine/docs/how-to/tpus"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import container

from accelfit.catalog import load_catalog
from accelfit.errors import InputError, Problem, problem
from components.gcp import pool_parts
from accelfit.cloudrules.gcp import tpu_rules
from accelfit.cloudrules.gcp.names import KEEP_EXISTING_NAME, fitted_name
from accelfit.cloudrules.gcp.node_settings import TPU_TAINT, node_labels, topology_chips, with_required_taint

SLICE_LABEL = "accelfit.io/tpu-slice"


@dataclass(frozen=True)
class TpuNodePoolArgs:
    cluster: pulumi.Input[str]
    location: str
    zone: str
    """A slice lives in one zone."""
    machine_type: str
    """TPU host machine type, e.g. ct5p-hightpu-4t, ct5lp-hightpu-4t, ct6e-standard-4t."""
    tpu_slice: str
    """Cloud TPU accelerator type, e.g. v5p-128 (a node label, for humans and schedulers)."""
    tpu_topology: str | None
    """Set for slices (multi-host ones need it): becomes placement_policy.tpu_topology."""
    service_account: pulumi.Input[str]
    min_nodes: int
    max_nodes: int
    initial_nodes: int
    spot: bool = False
    reservation: str | None = None
    taints: tuple[tuple[str, str, str], ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    resource_labels: dict[str, str] = field(default_factory=dict)
    disk_size_gb: int = 200
    flex_start: bool = False
    """DWS flex-start: GKE obtains the whole slice when it is free, for at most 7 days; starts at 0 nodes."""
    host_maintenance_interval: str = "AS_NEEDED"
    """AS_NEEDED, or PERIODIC when the reservation it consumes is configured so."""


UPGRADE_MAX_SURGE = 0
UPGRADE_MAX_UNAVAILABLE = 1
HOST_MAINTENANCE_INTERVALS = ("AS_NEEDED", "PERIODIC")


def _slice_size_problems(where: str, args: TpuNodePoolArgs) -> list[Problem]:
    """A multi-host slice is all its hosts or none: GKE refuses a pool whose (per-zone) max_node_count is not
    the slice's host count ("Maximum node count N is not a valid size of TPU pod slice")."""
    shape = next((row for row in load_catalog().tpu_slices if row.gke_machine_type == args.machine_type
                  and row.topology == args.tpu_topology), None)
    if shape is None or not shape.multi_host:
        return []
    hosts = shape.hosts
    if args.max_nodes != hosts or args.min_nodes not in (0, hosts) or args.initial_nodes not in (0, hosts):
        return [problem(where, "max_nodes", f"{shape.name} ({args.tpu_topology}) is one atomic slice of {hosts} hosts",
                        f"set max_nodes: {hosts} and min_nodes/initial_nodes to 0 or {hosts}", args.max_nodes)]
    return []


def validate_tpu_pool_args(name: str, args: TpuNodePoolArgs) -> None:
    where = f"TpuNodePool {name}"
    problems = []
    if args.tpu_topology is not None:
        sides = args.tpu_topology.split("x")
        if not 2 <= len(sides) <= 3 or not all(side.isdigit() and int(side) > 0 for side in sides):
            problems.append(problem(where, "tpu_topology", "not a TPU topology", "write it as AxB or AxBxC",
                                    args.tpu_topology))
        elif topology_chips(args.tpu_topology) < args.max_nodes:
            problems.append(problem(where, "max_nodes", "more hosts than the topology has chips",
                                    "use the slice's host count", args.max_nodes))
        else:
            problems += _slice_size_problems(where, args)
    if not args.min_nodes <= args.initial_nodes <= args.max_nodes or args.max_nodes < 1:
        problems.append(problem(where, "initial_nodes", "must lie between min_nodes and max_nodes",
                                "set min_nodes <= initial_nodes <= max_nodes, max_nodes >= 1", args.initial_nodes))
    if args.spot and args.reservation:
        problems.append(problem(where, "reservation", "spot VMs cannot consume a reservation",
                                "set spot: false or drop the reservation", args.reservation))
    if args.flex_start and (args.spot or args.reservation):
        problems.append(problem(where, "flex_start", "flex-start capacity is neither spot nor reserved",
                                "set spot: false and drop the reservation, or flex_start: false", args.flex_start))
    if args.flex_start and args.min_nodes != 0:
        problems.append(problem(where, "min_nodes", "a flex-start pool starts empty and scales from 0",
                                "set min_nodes and initial_nodes to 0", args.min_nodes))
    catalog = load_catalog()  # cached per process
    zone_problem = tpu_rules.component_zone_problem(
        where, tpu_rules.generation_of(catalog, machine_type=args.machine_type), args.zone, catalog)
    if zone_problem:
        problems.append(zone_problem)
    if args.host_maintenance_interval not in HOST_MAINTENANCE_INTERVALS:
        problems.append(problem(where, "host_maintenance_interval", "not a GKE host maintenance interval",
                                "use AS_NEEDED or PERIODIC", args.host_maintenance_interval))
    if problems:
        raise InputError(problems)


def tpu_autoscaling(args: TpuNodePoolArgs) -> container.NodePoolAutoscalingArgs | None:
    """None for a fixed slice (all hosts, always). Otherwise per-zone bounds: a TPU pool has one zone, so they
    are the pool's bounds, and GKE validates the slice size against max_node_count (never the total_* fields).
    ANY: take capacity where it is; with one zone there is nothing to balance."""
    if args.min_nodes == args.max_nodes and not args.flex_start:
        return None
    return container.NodePoolAutoscalingArgs(min_node_count=args.min_nodes, max_node_count=args.max_nodes,
                                             location_policy="ANY")


class TpuNodePool(pulumi.ComponentResource):
    node_pool: container.NodePool

    def __init__(self, name: str, args: TpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        validate_tpu_pool_args(name, args)
        super().__init__("accelfit:gcp:TpuNodePool", name, None, opts)
        labels = {**node_labels("tpu", args.labels), SLICE_LABEL: args.tpu_slice}
        node_config = container.NodePoolNodeConfigArgs(
            machine_type=args.machine_type, spot=args.spot, flex_start=args.flex_start or None,
            reservation_affinity=pool_parts.reservation(args.reservation, args.spot or args.flex_start),
            taints=pool_parts.taints(with_required_taint(args.taints, TPU_TAINT)),
            labels=labels, resource_labels=args.resource_labels, disk_size_gb=args.disk_size_gb,
            gvnic=container.NodePoolNodeConfigGvnicArgs(enabled=True),
            host_maintenance_policy=container.NodePoolNodeConfigHostMaintenancePolicyArgs(
                maintenance_interval=args.host_maintenance_interval),
            **pool_parts.secure_node_basics(args.service_account))
        # The topology makes GKE create the hosts as one ICI-connected slice.
        # https://cloud.google.com/kubernetes-engine/docs/how-to/tpus#create-node-pool
        placement = (container.NodePoolPlacementPolicyArgs(type="COMPACT", tpu_topology=args.tpu_topology)
                     if args.tpu_topology else None)
        self.node_pool = container.NodePool(
            f"{name}-pool", name=fitted_name("container_node_pool", name), cluster=args.cluster,
            location=args.location, node_locations=[args.zone],
            initial_node_count=args.initial_nodes, autoscaling=tpu_autoscaling(args),
            placement_policy=placement,
            # xpk creates flex-start pools with --no-enable-autorepair: a repair would give the slice back.
            management=container.NodePoolManagementArgs(auto_repair=not args.flex_start, auto_upgrade=True),
            upgrade_settings=container.NodePoolUpgradeSettingsArgs(
                strategy="SURGE", max_surge=UPGRADE_MAX_SURGE, max_unavailable=UPGRADE_MAX_UNAVAILABLE),
            network_config=pool_parts.private_nodes(), node_config=node_config,
            # An explicit name (GKE caps node-pool names at 40) replaces by deleting first.
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True,
                                        ignore_changes=[*KEEP_EXISTING_NAME, *pool_parts.POOL_IGNORE_CHANGES]))

        self.pool_name = self.node_pool.name
        self.register_outputs({"pool_name": self.node_pool.name})
