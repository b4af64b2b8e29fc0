"""Scale limits of clusters, node pools and node groups (data/scale_limits.yaml), and what a size implies.

A large GPU run does not stop at a fixed node count: it is split into several node pools (GKE) or managed node
groups (EKS) so that none exceeds its per-pool limit, up to the cluster's hard limit. Sizes past an adjustable
quota or past what on-demand stock reliably gives are planned, and the plan says which quota to raise or that a
reservation is needed.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from accelfit.yamlio import read_package_yaml

LIMITS_FILE = Path(__file__).parent / "data" / "scale_limits.yaml"


class ScaleLimit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    platform: Literal["gke-gpu", "eks-gpu"]
    limit: Literal["nodes-per-pool-zone", "nodes-per-pool", "nodes-per-cluster", "pools-per-cluster",
                   "pods-cidr-nodes", "nodes-per-capacity-block", "nodes-without-reservation"]
    value: int = Field(ge=1)
    kind: Literal["hard", "quota", "advice"]
    fix: str
    as_of: dt.date
    source: str
    verified: bool = True


@functools.cache
def scale_limits() -> tuple[ScaleLimit, ...]:
    document = read_package_yaml(LIMITS_FILE)
    return tuple(ScaleLimit.model_validate(row) for row in document["limits"])


@functools.cache  # the planner asks for every offer it costs
def limits_for(platform: str, limit: str) -> tuple[ScaleLimit, ...]:
    return tuple(row for row in scale_limits() if row.platform == platform and row.limit == limit)


def _value(platform: str, limit: str, kind: str) -> int | None:
    rows = [row.value for row in limits_for(platform, limit) if row.kind == kind]
    return min(rows) if rows else None


def nodes_per_pool(platform: str) -> int | None:
    """Most nodes one GPU node pool / managed node group holds without a quota raise; None = no pool limit. The
    platform's own row says which: per pool and zone, hard (GKE), or per pool, a quota (EKS)."""
    rows = [row.value for limit in ("nodes-per-pool-zone", "nodes-per-pool") for row in limits_for(platform, limit)
            if row.kind in ("hard", "quota")]
    return min(rows) if rows else None


@functools.cache  # asked once per offer
def max_cluster_nodes(platform: str) -> int | None:
    """Most GPU nodes accelfit plans in one cluster: the hard limit (GKE) or the default quotas' product (EKS)."""
    hard = _value(platform, "nodes-per-cluster", "hard")
    if hard is not None:
        return hard
    # No published per-cluster node limit (EKS): the default quotas (groups per cluster x nodes per group) bound
    # what accelfit plans, and the plan says when the group count needs raising.
    per_pool = nodes_per_pool(platform)
    groups = _value(platform, "pools-per-cluster", "quota")
    return per_pool * groups if per_pool and groups else None


def pool_sizes(platform: str, nodes: int) -> list[int]:
    """Split `nodes` into the fewest pools under the per-pool limit, as even as possible (largest first)."""
    per_pool = nodes_per_pool(platform)
    if per_pool is None or nodes <= per_pool:
        return [nodes]
    pools = math.ceil(nodes / per_pool)
    base, extra = divmod(nodes, pools)
    return [base + 1] * extra + [base] * (pools - extra)


def capacity_notes(platform: str, nodes: int) -> list[str]:
    """What a GPU cluster of `nodes` nodes needs beyond default quotas: quota raises, reservations, advice."""
    notes: list[str] = []
    pools = len(pool_sizes(platform, nodes))
    for row in scale_limits():
        if row.platform != platform:
            continue
        if row.limit == "pools-per-cluster" and pools > row.value:
            notes.append(f"{pools} node groups exceed the default {row.value} per cluster: {row.fix} "
                         f"({row.source}).")
        elif row.limit == "nodes-per-cluster" and row.kind != "hard" and nodes > row.value:
            notes.append(f"{nodes:,} nodes exceed {row.value:,} per cluster: {row.fix} ({row.source}).")
        elif row.limit in ("nodes-per-capacity-block", "nodes-without-reservation") and nodes > row.value:
            notes.append(f"{nodes:,} accelerator nodes is more than on-demand stock reliably gives (over "
                         f"{row.value}): {row.fix} ({row.source}).")
    return notes


def pods_cidr_for(nodes: int, default: str) -> str:
    """GKE pods range for `nodes` nodes at the default 110 pods per node (a /24 each); the default when it fits.

    The default /14 holds 1,024 nodes; beyond that the range moves to 10.128.0.0 (clear of the node, service and
    control-plane ranges) and widens to the prefix the node count needs.
    """
    default_prefix = int(default.rsplit("/", 1)[1])
    if nodes <= 2 ** (24 - default_prefix):
        return default
    prefix = 24 - math.ceil(math.log2(nodes))
    return f"10.128.0.0/{max(prefix, 9)}"
