"""ServingAutoscaling: the model servers scale on their own serving signals, not CPU.

- The servers' metrics reach the cluster's Prometheus: a PodMonitoring on GKE (vLLM serves Prometheus metrics at
  its port's /metrics and managed collection scrapes them through a PodMonitoring in the server's namespace:
  cloud.google.com/stackdriver/docs/managed-prometheus/exporters/vllm), a ServiceMonitor on EKS (the
  kube-prometheus-stack the GPU telemetry installs). Both keep only the metrics the autoscaler and the endpoint
  picker read (what Managed Prometheus charges for is what it ingests) and carry the pod's serving pool as the label
  `accelfit_io_serving_pool`.
- A KEDA ScaledObject per serving pool (accelfit.planner.serving.traffic decides its bounds and triggers) with the
  Prometheus scaler: on GKE against the Managed Prometheus query API with the KEDA operator's Workload Identity
  (KEDA docs, Prometheus scaler, "Google Managed Prometheus"; TriggerAuthentication podIdentity provider gcp),
  on EKS against the in-cluster Prometheus. KEDA owns the HPA it creates for 1..N and scales 0 <-> 1 itself, which
  a fallback pool needs. Node pools follow: a server that cannot be placed makes the cluster autoscaler add a node
  (GKE node-pool autoscaling; the EKS Cluster Autoscaler), and nodes left empty are removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelfit.clouds import cloud_named
from accelfit.engines import engine
from accelfit.planner.serving.traffic import POOL_LABEL, PoolScaling, RoutePool, ServingRoute, serving_traffic_facts
from accelfit.pricing.serving_objects import RANK_LABEL, ROUTE_LABEL
from components.common import child_name
from components.kubernetes.serving.routing import server_selector

POOL_POD_LABEL = "accelfit.io/serving-pool"
SERVER_PORT_NAME = "http"
# kube-prometheus-stack's Prometheus service (release kube-prometheus-stack in namespace monitoring: the chart names
# it <release>-prometheus, port 9090); components/kubernetes/telemetry.py installs it on EKS.
IN_CLUSTER_PROMETHEUS = "http://kube-prometheus-stack-prometheus.monitoring.svc:9090"
GMP_QUERY_API = "https://monitoring.googleapis.com/v1/projects/{project}/location/global/prometheus"
TRIGGER_AUTH = "managed-prometheus"


def kept_metrics(route: ServingRoute) -> str:
    """The engine's three protocol gauges (queue, running, KV cache): what the picker and the autoscaler read."""
    return "|".join(engine(route.server).metrics.names())


def scrape_interval() -> str:
    return f"{serving_traffic_facts().autoscaling.scrape_interval_seconds}s"


def pod_monitoring_spec(route: ServingRoute) -> dict[str, Any]:
    return {"selector": {"matchLabels": server_selector(route)},
            "endpoints": [{"port": SERVER_PORT_NAME, "path": engine(route.server).metrics_path,
                           "interval": scrape_interval(),
                           "metricRelabeling": [{"action": "keep", "sourceLabels": ["__name__"],
                                                 "regex": kept_metrics(route)}]}],
            "targetLabels": {"fromPod": [{"from": POOL_POD_LABEL, "to": POOL_LABEL}]}}


def service_monitor_spec(route: ServingRoute) -> dict[str, Any]:
    # podTargetLabels copies the pod label; Prometheus turns `.` and `/` into `_` (accelfit_io_serving_pool).
    return {"selector": {"matchLabels": server_selector(route)},
            "namespaceSelector": {"matchNames": [route.namespace]},
            "podTargetLabels": [POOL_POD_LABEL],
            "endpoints": [{"port": SERVER_PORT_NAME, "path": engine(route.server).metrics_path,
                           "interval": scrape_interval(),
                           "metricRelabelings": [{"action": "keep", "sourceLabels": ["__name__"],
                                                  "regex": kept_metrics(route)}]}]}


def managed_metrics(route: ServingRoute) -> bool:
    """The servers' metrics go to the cloud's managed Prometheus (a PodMonitoring, and KEDA authenticates to the
    query API), not to a Prometheus in the cluster (a ServiceMonitor, no authentication)."""
    return cloud_named(route.cloud).serving_metrics == "managed-prometheus"


def scale_target(pool: RoutePool) -> dict[str, str]:
    if pool.server_kind == "LeaderWorkerSet":
        return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "name": pool.server}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "name": pool.server}


def scaled_object_spec(route: ServingRoute, pool: RoutePool, scaling: PoolScaling,
                       server_address: str) -> dict[str, Any]:
    facts = serving_traffic_facts().autoscaling
    triggers = []
    for trigger_name, query, threshold in scaling.triggers:
        trigger: dict[str, Any] = {"type": "prometheus", "name": trigger_name,
                                   "metadata": {"serverAddress": server_address, "query": query,
                                                "threshold": f"{threshold:g}"}}
        if managed_metrics(route):
            trigger["authenticationRef"] = {"name": TRIGGER_AUTH}
        triggers.append(trigger)
    if scaling.window is not None:
        # KEDA cron scaler (keda.sh/docs/2.18/scalers/cron): desiredReplicas between start and end, nothing after.
        start, end, replicas = scaling.window
        triggers.append({"type": "cron", "name": "serving-hours",
                         "metadata": {"timezone": "Etc/UTC", "start": start, "end": end,
                                      "desiredReplicas": str(replicas)}})
    return {"scaleTargetRef": scale_target(pool), "minReplicaCount": scaling.min_replicas,
            "maxReplicaCount": scaling.max_replicas, "pollingInterval": facts.polling_interval_seconds,
            "cooldownPeriod": facts.cooldown_period_seconds, "triggers": triggers}


@dataclass(frozen=True)
class ServingAutoscalingArgs:
    route: ServingRoute
    provider: k8s.Provider
    project: str | None = field(default=None, metadata={"doc": "GCP: whose Managed Prometheus the scaler queries."})
    labels: Mapping[str, str] = field(default_factory=dict)
    dependencies: Sequence[pulumi.Resource] = field(
        default=(), metadata={"doc": "KEDA and the monitoring CRDs, the servers' namespace and scale targets."})


class ServingAutoscaling(pulumi.ComponentResource):
    scaled_objects: dict[str, k8s.apiextensions.CustomResource]

    def __init__(self, name: str, args: ServingAutoscalingArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:ServingAutoscaling", name, None, opts)
        route = args.route
        if managed_metrics(route) and not args.project:
            raise ValueError(f"ServingAutoscaling {name}: project is required on GCP (the Managed Prometheus query "
                             "API is per project)")
        on_cluster = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=list(args.dependencies))
        # The route label (and each pool's rank) let the preview price the metrics (accelfit.pricing.serving_objects).
        labels = {**args.labels, ROUTE_LABEL: route.workload}
        meta = {"namespace": route.namespace, "labels": labels}
        after: list[pulumi.Resource] = []
        if managed_metrics(route):
            after.append(k8s.apiextensions.CustomResource(
                child_name(name, "pod-monitoring"), api_version="monitoring.googleapis.com/v1", kind="PodMonitoring",
                metadata={**meta, "name": f"{route.workload}-{route.server}"}, spec=pod_monitoring_spec(route),
                opts=on_cluster))
            after.append(k8s.apiextensions.CustomResource(
                child_name(name, "trigger-auth"), api_version="keda.sh/v1alpha1", kind="TriggerAuthentication",
                metadata={**meta, "name": TRIGGER_AUTH}, spec={"podIdentity": {"provider": "gcp"}},
                opts=on_cluster))
            address = GMP_QUERY_API.format(project=args.project)
        else:
            after.append(k8s.apiextensions.CustomResource(
                child_name(name, "service-monitor"), api_version="monitoring.coreos.com/v1", kind="ServiceMonitor",
                metadata={**meta, "name": f"{route.workload}-{route.server}"}, spec=service_monitor_spec(route),
                opts=on_cluster))
            address = IN_CLUSTER_PROMETHEUS
        by_pool = {pool.pool: pool for pool in route.pools}
        self.scaled_objects = {}
        for scaling in route.scaling:
            pool = by_pool[scaling.pool]
            self.scaled_objects[scaling.pool] = k8s.apiextensions.CustomResource(
                child_name(name, f"{scaling.pool}-scaler"), api_version="keda.sh/v1alpha1", kind="ScaledObject",
                metadata={**meta, "name": pool.server, "labels": {**labels, RANK_LABEL: str(scaling.rank)}},
                spec=scaled_object_spec(route, pool, scaling, address),
                opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=after)))
        self.register_outputs({"scaled": {pool: (item.min_replicas, item.max_replicas)
                                          for pool, item in ((s.pool, s) for s in route.scaling)}})
