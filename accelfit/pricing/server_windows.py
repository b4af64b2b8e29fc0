"""Which GKE node pools serve only part of the day, read from what the stack builds
(accelfit/planner/costing/option_costs.py, SCHEDULED_SERVING_PLATFORMS, says why the chain holds):

1. a KEDA ScaledObject with `minReplicaCount: 0` and a daily cron trigger ("M H * * *" start and end) holds its
   servers for the window and lets them go after it (keda.sh/docs/2.18/scalers/cron; scaledobject-spec,
   minReplicaCount and cooldownPeriod);
2. its scale target (a Deployment or a LeaderWorkerSet, by kind, name and namespace) requires the node pool by
   the label GKE puts on every node of a pool, `cloud.google.com/gke-nodepool` (a required node affinity or a node
   selector);
3. that node pool autoscales with a minimum of 0 (checked by the caller from the priced pool), so the cluster
   autoscaler removes its empty nodes.

A pool found here is priced for its window's hours a day plus the tail until its last node goes (stop_tail_hours);
a pool that is not (no cron window, minimum above 0, no scale-to-zero scaler) is priced all day, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from accelfit.pricing.serving_objects import SCALED_OBJECT_TYPE

if TYPE_CHECKING:  # the planner reads stop_tail_hours without loading the preview's rate book (issue 39)
    from accelfit.pricing.rates import NeutralResource

# After the window KEDA waits cooldownPeriod (default 300 s) with every trigger inactive before it scales to zero
# (keda.sh/docs/2.18/reference/scaledobject-spec, cooldownPeriod), and the cluster autoscaler removes a node only
# once it has been unneeded for --scale-down-unneeded-time, 10 minutes by default (kubernetes/autoscaler
# cluster-autoscaler/FAQ.md, "How does scale-down work?", as of 2026-11-29).
KEDA_DEFAULT_COOLDOWN_SECONDS = 300
NODE_UNNEEDED_MINUTES = 10


def stop_tail_hours(cooldown_seconds: float) -> float:
    """Hours a GPU node keeps billing after the serving window ends, with no request in flight."""
    return cooldown_seconds / 3600 + NODE_UNNEEDED_MINUTES / 60


# The node label GKE sets to the node pool's name on each of its nodes (cloud.google.com/kubernetes-engine/docs/
# how-to/node-pools "Deploying Services to specific node pools", as of 2026-11-29).
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"


_CRON = re.compile(r"^\s*(\d+)\s+(\d+)\s+\*\s+\*\s+\*\s*\Z")


def scheduled_hours_per_day(start_recurrence: str, stop_recurrence: str) -> float | None:
    """Hours a day between a daily start and stop ("M H * * *" each); None for any other recurrence."""
    start, stop = _CRON.match(start_recurrence or ""), _CRON.match(stop_recurrence or "")
    if not start or not stop:
        return None
    start_minutes = int(start.group(2)) * 60 + int(start.group(1))
    stop_minutes = int(stop.group(2)) * 60 + int(stop.group(1))
    return ((stop_minutes - start_minutes) % (24 * 60)) / 60.0


def _window_hours(spec: Mapping[str, Any]) -> float | None:
    """Hours a day the ScaledObject's servers' nodes bill when it may scale to zero outside a cron window (the
    window and the tail after it); None otherwise."""
    if int(spec.get("minReplicaCount") or 0) != 0:
        return None
    hours = [scheduled_hours_per_day(str(metadata.get("start", "")), str(metadata.get("end", "")))
             for trigger in spec.get("triggers") or [] if trigger.get("type") == "cron"
             for metadata in [trigger.get("metadata") or {}]]
    known = [value for value in hours if value is not None]
    if not known:
        return None
    return max(known) + stop_tail_hours(float(spec.get("cooldownPeriod") or KEDA_DEFAULT_COOLDOWN_SECONDS))


def _required_pools(value: Any) -> Iterator[str]:
    """Node pool names a pod template requires, wherever in the object its templates are (a Deployment's
    template, a LeaderWorkerSet's leader and worker templates)."""
    if isinstance(value, Mapping):
        if value.get("key") == NODE_POOL_LABEL and value.get("operator") == "In":
            yield from (str(name) for name in value.get("values") or [])
        selector = value.get("nodeSelector")
        if isinstance(selector, Mapping) and NODE_POOL_LABEL in selector:
            yield str(selector[NODE_POOL_LABEL])
        for item in value.values():
            yield from _required_pools(item)
    elif isinstance(value, list):
        for item in value:
            yield from _required_pools(item)


def _target_key(props: Mapping[str, Any]) -> tuple[str, str, str]:
    metadata = props.get("metadata") or {}
    return str(props.get("kind", "")), str(metadata.get("namespace", "")), str(metadata.get("name", ""))


def server_windows(resources: Iterable[NeutralResource]) -> dict[str, float]:
    """GKE node pool name -> hours a day its servers run (see the module docstring)."""
    resources = list(resources)
    windows: dict[tuple[str, str, str], float] = {}
    for resource in resources:
        if resource.type != SCALED_OBJECT_TYPE:
            continue
        spec = resource.props.get("spec") or {}
        hours = _window_hours(spec)
        if hours is None:
            continue
        target = spec.get("scaleTargetRef") or {}
        namespace = str((resource.props.get("metadata") or {}).get("namespace", ""))
        windows[(str(target.get("kind", "Deployment")), namespace, str(target.get("name", "")))] = hours
    out: dict[str, float] = {}
    for resource in resources:
        hours = windows.get(_target_key(resource.props))
        if hours is None:
            continue
        for pool in _required_pools(resource.props.get("spec") or {}):
            out[pool] = max(out.get(pool, 0.0), hours)
    return out
