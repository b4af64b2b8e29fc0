"""The serving route and its autoscaling, decided from the plan's serving pools (pure; no Pulumi).

One endpoint per workload: a Gateway (internal unless the spec asks for a public one), an HTTPRoute to one
InferencePool that selects the server pods of every serving pool of the workload, and the Gateway API Inference
Extension's endpoint picker (EPP), which sends each request to the ready server with the shortest queue and the most
free KV cache (its default scorers). That is what upstream supports for spreading traffic over several pools
(gateway-api-inference-extension v1.3.1: the EPP has no pool-priority scorer; weighted backendRefs to several
InferencePools split traffic by fixed shares, they do not fail over).

The plan's route order is kept by what runs, not by the picker: the first pool (the planned one) always runs at
least one server and scales on its own queue; each later pool (a fallback) runs no server until the pools before it
are saturated at their full size or unavailable, and then only as many servers as the overflow needs:
- saturated: the requests waiting on the earlier pools beyond what they hold when every one of their servers
  sits at the EPP's saturation threshold (queue_depth_threshold per server, at each pool's replicas_max);
- unavailable: servers of the earlier pools that were asked for but are not available (no capacity for their
  nodes, a failed start), replaced one for one.
The picker sees a fallback pool's servers only once they are ready, so traffic reaches them only then.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_serializer

from accelfit.clouds import cloud_named
from accelfit.catalog.rows import Frozen
from accelfit.engines import engine
from accelfit.yamlio import read_package_yaml

DATA_FILE = Path(__file__).parents[1] / "data" / "serving_traffic.yaml"
# The Prometheus label the pool's pod label `accelfit.io/serving-pool` becomes on both clouds (PodMonitoring
# targetLabels.fromPod on GKE; ServiceMonitor podTargetLabels on EKS, which sanitises `.` and `/` to `_`).
POOL_LABEL = "accelfit_io_serving_pool"


class _FileFacts(Frozen):
    # Built when the file is first read (defer_build): a training plan never reads it, and building these models'
    # validators would cost every `accelfit plan` (issue 39).
    model_config = ConfigDict(defer_build=True)


class EndpointPickerFacts(_FileFacts):
    release: str
    commit: str
    source: str
    queue_depth_threshold: int = Field(ge=1)
    kv_cache_threshold: float = Field(gt=0, le=1)


class AutoscalingFacts(_FileFacts):
    keda_release: str
    keda_source: str
    polling_interval_seconds: int = Field(ge=1)
    cooldown_period_seconds: int = Field(ge=0)
    scrape_interval_seconds: int = Field(ge=1)


class GatewayFacts(_FileFacts):
    gcp_internal_class: str
    gcp_public_class: str
    gcp_proxy_only_cidr: str
    aws_class: str
    aws_internal_annotations: dict[str, str]
    aws_public_annotations: dict[str, str]
    request_timeout: str


class ServingTrafficFacts(_FileFacts):
    schema_version: Literal[1]
    as_of: dt.date
    endpoint_picker: EndpointPickerFacts
    autoscaling: AutoscalingFacts
    metrics: dict[str, int]
    traffic: dict[str, float]
    gateway: GatewayFacts
    manifests: dict[str, str]

    @property
    def series_per_pod(self) -> int:
        return self.metrics["series_per_pod"]

    @property
    def bytes_per_token(self) -> float:
        return self.traffic["bytes_per_token"]


@functools.cache
def serving_traffic_facts() -> ServingTrafficFacts:
    return ServingTrafficFacts.model_validate(read_package_yaml(DATA_FILE))


class RoutePool(Frozen):
    """One serving pool as the route sees it, in the plan's route order."""

    pool: str = Field(description="The plan's pool name (the pod label accelfit.io/serving-pool).")
    accelerator: str
    replicas_min: int = Field(ge=0)
    replicas_max: int = Field(ge=1)
    in_flight_per_server: float = Field(default=0.0, ge=0, description="Requests in flight (running and waiting) "
                                        "on one server at the planned peak: the load trigger's target per server; "
                                        "0 = no load trigger (queue only).")
    server: str = Field(description="Name of the pool's server Deployment (the scale target).")
    server_kind: Literal["Deployment", "LeaderWorkerSet"] = "Deployment"
    serving_window: tuple[str, float] | None = Field(
        default=None, description="(start HH:MM UTC, hours) when the pool's nodes serve part of the day (the "
        "spec's inference.hours_per_day under 24, NodePool.serving_start_utc); None = all day.")


class PoolScaling(Frozen):
    """How one pool's servers scale: a KEDA ScaledObject's bounds and Prometheus triggers."""

    pool: str
    rank: int = Field(ge=0, description="0 = the planned pool; N = the Nth fallback in route order.")
    min_replicas: int = Field(ge=0)
    max_replicas: int = Field(ge=1)
    triggers: tuple[tuple[str, str, float], ...] = Field(
        description="(name, PromQL query, threshold per replica): KEDA sizes the pool to the largest "
        "ceil(query / threshold).")
    window: tuple[str, str, int] | None = Field(
        default=None, description="KEDA cron trigger (start cron, end cron, replicas, UTC): the servers the pool "
        "keeps during its serving window; outside it the pool scales to zero.")
    why: str


class ServingRoute(Frozen):
    workload: str
    namespace: str
    cloud: Literal["gcp", "aws"]
    public: bool
    gateway_class: str
    pools: tuple[RoutePool, ...] = Field(min_length=1)
    scaling: tuple[PoolScaling, ...]
    statements: tuple[str, ...]
    server: str = Field(default="vllm", description="The engine behind the route (accelfit.engines): whose pods "
                        "the pool selects, whose port it targets, whose metrics the picker and autoscaler read.")

    @model_serializer(mode="wrap")
    def _vllm_routes_as_before(self, handler: Any) -> Any:
        """A vLLM route serializes as it did before engines were named: plans and goldens stay byte-identical."""
        data = handler(self)
        if isinstance(data, dict) and self.server == "vllm":
            data.pop("server", None)
        return data


def _selector(namespace: str, pools: Sequence[str]) -> str:
    names = "|".join(pools)
    return f'namespace="{namespace}",{POOL_LABEL}=~"{names}"'


def pool_scaling(namespace: str, pools: Sequence[RoutePool], server: str = "vllm") -> tuple[PoolScaling, ...]:
    """Bounds and triggers per pool, in route order (see the module docstring); queues read from the engine's
    waiting-requests gauge."""
    facts = serving_traffic_facts()
    picker = facts.endpoint_picker
    metrics = engine(server).metrics
    queue_metric = metrics.queue
    threshold = picker.queue_depth_threshold
    out = []
    for rank, pool in enumerate(pools):
        if rank == 0:
            out.append(_planned_scaling(namespace, pool, metrics.queue, metrics.running, threshold))
            continue
        earlier = pools[:rank]
        held = threshold * sum(item.replicas_max for item in earlier)
        waiting = f"sum({queue_metric}{{{_selector(namespace, [item.pool for item in earlier])}}})"
        overflow = f"clamp_min({waiting} - {held}, 0)"
        triggers: list[tuple[str, str, float]] = [("overflow", overflow, float(threshold))]
        # kube-state-metrics reports Deployments' asked-for and available replicas (kube-prometheus-stack on EKS;
        # GKE's kube state metrics package); a LeaderWorkerSet group is not a Deployment and has no such series.
        deployments = [item.server for item in earlier if item.server_kind == "Deployment"]
        if deployments:
            servers = "|".join(deployments)
            unavailable = (f'sum(kube_deployment_spec_replicas{{namespace="{namespace}",deployment=~"{servers}"}}) - '
                           f'sum(kube_deployment_status_replicas_available{{namespace="{namespace}",'
                           f'deployment=~"{servers}"}})')
            triggers.append(("unavailable", f"clamp_min({unavailable}, 0)", 1.0))
        names = ", ".join(item.pool for item in earlier)
        out.append(PoolScaling(
            pool=pool.pool, rank=rank, min_replicas=0, max_replicas=pool.replicas_max, triggers=tuple(triggers),
            why=f"fallback {rank}: no server until {names} {'is' if rank == 1 else 'are'} saturated at full size "
                f"(more than {held} requests waiting) or short of available servers; then one server per "
                f"{threshold} requests of overflow and one per missing server, up to {pool.replicas_max}"))
    return tuple(out)


def _planned_scaling(namespace: str, pool: RoutePool, queue_metric: str, running_metric: str,
                     threshold: int) -> PoolScaling:
    """The planned pool's ScaledObject. KEDA's default metricType AverageValue makes the HPA ask for
    ceil(metric / threshold) servers in all, whatever runs now (kedacore/keda-docs content/docs/2.18/reference/
    scaledobject-spec.md @a55c5d34, triggers.metricType). On the waiting requests alone that is one server per
    `threshold` waiting, which stays under the minimum at any load the servers keep up with: the pool never grew
    with its load. So the load trigger reads the requests in flight (running + waiting) against what one server
    holds at the planned peak (ServingPool.in_flight_per_replica): at the planned peak (requests_per_second ×
    peak_factor) it asks for the planned replicas, below it fewer, down to the minimum (the replicas that carry
    requests_per_second). The queue trigger stays beside it: more than `threshold` waiting per server on average (the
    endpoint picker's saturation threshold) asks for one server per `threshold` waiting.
    accelfit/simulate/scaler.py applies the same rules.

    With no server running there is no queue to read, so nothing would wake the pool again (the EPP answers 503
    when it has no endpoint): the planned pool keeps at least one server, all day unless the spec serves part of
    the day, when a cron trigger holds its servers for the window and none after."""
    minimum = max(1, pool.replicas_min)
    maximum = max(minimum, pool.replicas_max)
    selector = _selector(namespace, [pool.pool])
    queue = f"sum({queue_metric}{{{selector}}})"
    triggers: list[tuple[str, str, float]] = []
    load = ""
    if pool.in_flight_per_server > 0:
        triggers.append(("load", f"sum({running_metric}{{{selector}}}) + {queue}", pool.in_flight_per_server))
        load = (f"one server per {pool.in_flight_per_server:g} requests in flight (running and waiting: what one "
                f"server holds at the planned peak), so the servers follow the load and the planned "
                "peak asks for the planned replicas; and ")
    triggers.append(("queue", queue, float(threshold)))
    window = _cron_window(pool.serving_window, minimum) if pool.serving_window else None
    hours = (f" from {pool.serving_window[0]} UTC for {pool.serving_window[1]:g} h a day, none outside "
             "it (inference.hours_per_day lets it scale to zero)") if pool.serving_window else ""
    return PoolScaling(
        pool=pool.pool, rank=0, min_replicas=0 if window else minimum, max_replicas=maximum,
        triggers=tuple(triggers), window=window,
        why=f"planned pool: {minimum}-{maximum} servers{hours}; the autoscaler asks for {load}one server per "
            f"{threshold} requests waiting (the endpoint picker's saturation threshold), the larger of the two")


def _cron_window(window: tuple[str, float], replicas: int) -> tuple[str, str, int]:
    """KEDA cron scaler start/end (minute hour, every day, UTC) for a serving window of whole or partial hours."""
    start, hours = window
    hour, minute = (int(part) for part in start.split(":"))
    end_minutes = (hour * 60 + minute + round(hours * 60)) % (24 * 60)
    return f"{minute} {hour} * * *", f"{end_minutes % 60} {end_minutes // 60} * * *", replicas


def gateway_class(cloud: str, public: bool) -> str:
    facts = serving_traffic_facts().gateway
    if cloud_named(cloud).serving_gateway == "gke-gateway":  # GKE's own classes, external or internal
        return facts.gcp_public_class if public else facts.gcp_internal_class
    return facts.aws_class


def serving_route(workload: str, namespace: str, cloud: str, pools: Sequence[RoutePool],
                  public: bool = False, server: str = "vllm") -> ServingRoute:
    """The route and autoscaling of one workload's serving pools (route order = the plan's order)."""
    scaling = pool_scaling(namespace, pools, server)
    exposure = "public (internet-facing)" if public else "internal (reachable from the VPC only)"
    order = " -> ".join(f"{pool.pool} ({pool.accelerator})" for pool in pools)
    statements = [
        f"Route: one {exposure} endpoint through the Gateway API Inference Extension "
        f"({serving_traffic_facts().endpoint_picker.release}); its endpoint picker sends each request to the ready "
        f"server with the shortest queue and the most free KV cache. Route order: {order}.",
        *(f"{item.pool}: {item.why}." for item in scaling),
    ]
    return ServingRoute(workload=workload, namespace=namespace, cloud=cloud, public=public,
                        gateway_class=gateway_class(cloud, public), pools=tuple(pools), scaling=scaling,
                        statements=tuple(statements), server=server)
