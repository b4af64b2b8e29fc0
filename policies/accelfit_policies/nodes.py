"""One neutral reading of a cloud's node pool / node group for the rules that read nodes (issue 35): the taint rule,
bounded autoscaling and scale-to-zero, the ownership labels, private nodes and the reservation the spot rule exempts.

A cloud's node resource keeps these settings at its own input paths; `NodePaths` names them, and `NodeGroup` reads
each one only when a rule asks for it, so a value unknown during preview stops only the rule that reads it (the
engine's advisory, view.get). The shipped clouds' node types are in `_SHIPPED`; a registered cloud names the reader
of its own priced types in its record (`Cloud.node_reader`: a function from a ResourceView to a NodeGroup or None),
as it names its accelerator reader (usage.py). How many accelerators and nodes a group asks for, and spot, stay the
accelerator reader's (usage.accelerator_use).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from accelfit.clouds import all_clouds, hook

from .usage import EKS_NODE_GROUP, GKE_NODE_POOL
from .view import ResourceView, get, items, truthy


@dataclass(frozen=True)
class NodePaths:
    """Where a node resource keeps what the node rules read: dotted input paths, as the rules' fixes name them."""

    max_nodes: str  # the input that bounds how many nodes it may scale to
    min_nodes: str  # the input of its fewest nodes
    labels: str  # the Kubernetes labels its nodes carry (the role label)
    tags: str  # the cloud's labels or tags on its machines (the ownership rules)
    taints: str  # a list of {key, effect}, effect spelt NO_SCHEDULE / NO_EXECUTE / PREFER_NO_SCHEDULE
    # The boolean input that keeps its nodes off public IPs, and what the fix adds about egress; "" where no input
    # of this resource says (EKS: the launch template's interfaces, read by the public-IP rule itself).
    private_nodes: str = ""
    egress: str = ""
    # The input naming the reservation its nodes are taken from ("" where the spot rule reads the cloud's own
    # reservation settings itself: GKE's reservation affinity, an EKS Capacity Block's capacity type).
    reservation: str = ""


@dataclass(frozen=True)
class NodeGroup:
    """A node resource seen through its cloud's paths; every value is read when asked for."""

    view: ResourceView
    paths: NodePaths

    @property
    def labels(self) -> Mapping[str, Any]:
        found = get(self.view.props, self.paths.labels)
        return found if isinstance(found, Mapping) else {}

    @property
    def tags(self) -> Mapping[str, Any]:
        found = get(self.view.props, self.paths.tags, {})
        return found if isinstance(found, Mapping) else {}

    @property
    def taints(self) -> list[Any]:
        return items(get(self.view.props, self.paths.taints))

    @property
    def reserved(self) -> bool:
        """Its nodes come from a held reservation named at `paths.reservation`."""
        return bool(self.paths.reservation) and bool(get(self.view.props, self.paths.reservation))

    def private_setting(self) -> tuple[bool, Any]:
        """(whether its nodes are private, the value as written or 'unset'), where `paths.private_nodes` is set."""
        value = get(self.view.props, self.paths.private_nodes, "unset")
        return truthy(value), value


GKE_POOL_PATHS = NodePaths(max_nodes="autoscaling.totalMaxNodeCount", min_nodes="autoscaling.totalMinNodeCount",
                           labels="nodeConfig.labels", tags="nodeConfig.resourceLabels", taints="nodeConfig.taints",
                           private_nodes="networkConfig.enablePrivateNodes", egress="egress goes through Cloud NAT")
EKS_GROUP_PATHS = NodePaths(max_nodes="scalingConfig.maxSize", min_nodes="scalingConfig.minSize", labels="labels",
                            tags="tags", taints="taints")

_SHIPPED: dict[str, NodePaths] = {GKE_NODE_POOL: GKE_POOL_PATHS, EKS_NODE_GROUP: EKS_GROUP_PATHS}


def _registered_reader(resource_type: str) -> Callable[[ResourceView], NodeGroup | None] | None:
    return next((hook(cloud.node_reader) for cloud in all_clouds()
                 if cloud.node_reader and resource_type in cloud.priced_resource_types), None)


def node_group(view: ResourceView) -> NodeGroup | None:
    """`view` as a node group, or None when it is not one (a cluster, a bucket, a TPU VM...)."""
    paths = _SHIPPED.get(view.type)
    if paths is not None:
        return NodeGroup(view, paths)
    reader = _registered_reader(view.type)
    return reader(view) if reader is not None else None
