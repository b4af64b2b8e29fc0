"""TpuNodePool: one GKE node pool per TPU slice. Multi-host slices are atomic pools whose placement policy
carries the TPU topology; nodes get the google.com/tpu taint and role labels; spot or a reservation."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import container

from accelfit.errors import InputError, problem
from components.gcp import pool_parts
from components.gcp.node_settings import TPU_TAINT, node_labels, topology_chips, with_required_taint

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
    if not args.min_nodes <= args.initial_nodes <= args.max_nodes or args.max_nodes < 1:
        problems.append(problem(where, "initial_nodes", "must lie between min_nodes and max_nodes",
                                "set min_nodes <= initial_nodes <= max_nodes, max_nodes >= 1", args.initial_nodes))
    if args.spot and args.reservation:
        problems.append(problem(where, "reservation", "spot VMs cannot consume a reservation",
                                "set spot: false or drop the reservation", args.reservation))
    if problems:
        raise InputError(problems)


class TpuNodePool(pulumi.ComponentResource):
    node_pool: container.NodePool

    def __init__(self, name: str, args: TpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        validate_tpu_pool_args(name, args)
        super().__init__("accelfit:gcp:TpuNodePool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        labels = {**node_labels("tpu", args.labels), SLICE_LABEL: args.tpu_slice}
        node_config = container.NodePoolNodeConfigArgs(
            machine_type=args.machine_type, spot=args.spot,
            reservation_affinity=pool_parts.reservation(args.reservation, args.spot),
            taints=pool_parts.taints(with_required_taint(args.taints, TPU_TAINT)),
            labels=labels, resource_labels=args.resource_labels, disk_size_gb=args.disk_size_gb,
            **pool_parts.secure_node_basics(args.service_account))
        # The topology makes GKE create the hosts as one ICI-connected slice.
        # https://cloud.google.com/kubernetes-engine/docs/how-to/tpus#create-node-pool
        placement = (container.NodePoolPlacementPolicyArgs(type="COMPACT", tpu_topology=args.tpu_topology)
                     if args.tpu_topology else None)
        # A multi-host slice is all hosts or none, so a fixed pool has no autoscaler; a pool that may scale
        # (e.g. 0 <-> all hosts for training) gets pool-wide bounds.
        fixed = args.min_nodes == args.max_nodes
        self.node_pool = container.NodePool(
            f"{name}-pool", cluster=args.cluster, location=args.location, node_locations=[args.zone],
            initial_node_count=args.initial_nodes,
            autoscaling=None if fixed else pool_parts.autoscaling(args.min_nodes, args.max_nodes, args.spot),
            placement_policy=placement, management=pool_parts.management(),
            network_config=pool_parts.private_nodes(), node_config=node_config, opts=child)

        self.pool_name = self.node_pool.name
        self.register_outputs({"pool_name": self.node_pool.name})
