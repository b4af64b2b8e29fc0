"""The serving route's built objects as the preview prices them (accelfit.pricing.serving_route has the formulas,
which the plan uses too): the Gateway (its load balancer and the bytes it processes) and, on GKE, the PodMonitoring
whose samples Managed Prometheus ingests, for the servers the route's planned pool runs (its KEDA ScaledObject's
minimum as planned, maximum at full scale). Objects are recognised by the labels components/kubernetes/serving puts
on them; nothing else of those kinds is priced (the DCGM PodMonitoring of GPU telemetry is not the route's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

GATEWAY_TYPE = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
POD_MONITORING_TYPE = "kubernetes:monitoring.googleapis.com/v1:PodMonitoring"
SCALED_OBJECT_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledObject"
ROUTE_LABEL = "accelfit.io/serving-route"  # value: the workload
RANK_LABEL = "accelfit.io/route-rank"  # ScaledObjects: 0 = the planned pool
GCP_CLASS_PREFIX = "gke-"


def route_of(props: Mapping[str, Any]) -> str | None:
    labels = (props.get("metadata") or {}).get("labels") or {}
    return labels.get(ROUTE_LABEL) if isinstance(labels, Mapping) else None


def planned_servers(scaled_objects: Iterable[Mapping[str, Any]]) -> dict[str, tuple[int, int]]:
    """route -> (min, max) servers of its planned pool."""
    out: dict[str, tuple[int, int]] = {}
    for props in scaled_objects:
        labels = (props.get("metadata") or {}).get("labels") or {}
        route = route_of(props)
        if route and str(labels.get(RANK_LABEL)) == "0":
            spec = props.get("spec") or {}
            out[route] = (int(spec.get("minReplicaCount") or 0), int(spec.get("maxReplicaCount") or 0))
    return out


def kept_series(props: Mapping[str, Any]) -> tuple[int, float]:
    """(metrics kept per pod, scrape interval in seconds) of a PodMonitoring's first endpoint."""
    endpoint = ((props.get("spec") or {}).get("endpoints") or [{}])[0]
    keep = [rule for rule in endpoint.get("metricRelabeling") or [] if rule.get("action") == "keep"]
    series = len(str(keep[0].get("regex", "")).split("|")) if keep else 0
    interval = str(endpoint.get("interval") or "60s")
    return series, float(interval.removesuffix("s"))
