"""GpuTelemetry: DCGM GPU metrics (utilisation, memory, power, temperature per GPU) scraped by the cluster's
monitoring.

- GKE: the standalone dcgm-exporter chart (GKE has the driver but no exporter) and a PodMonitoring, which Google
  Cloud Managed Prometheus (managed collection, on by default in GKE Standard 1.27+) scrapes.
  https://cloud.google.com/stackdriver/docs/managed-prometheus/exporters/nvidia-dcgm
- EKS and bare metal: the GPU Operator runs the exporter; kube-prometheus-stack (pinned) is the cluster's
  monitoring and a ServiceMonitor points it at the exporter's service.
The exporter's default counters include DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_POWER_USAGE and
DCGM_FI_DEV_GPU_TEMP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from components.common import child_name
from components.kubernetes.charts import pin
from components.kubernetes.gpu_software import CRITICAL_PRIORITY_CLASSES, GpuSoftware, gke_dcgm_exporter_values
from components.kubernetes.helm import PRIVILEGED, namespace, release

SCRAPE_INTERVAL = "30s"
# GKE ships a kube-system ResourceQuota scoped to the system-*-critical priority classes, so pods of those classes
# are admitted in another namespace only when it has a matching quota; without one the exporter's pods are never
# created and the Helm release times out (Kubernetes "Limit Priority Class consumption by default",
# https://kubernetes.io/docs/concepts/policy/resource-quotas/#limit-priority-class-consumption-by-default;
# NVIDIA/aicr PR #921 hit it with the same chart default). A ceiling, not a budget: one exporter per GPU node.
CRITICAL_PODS_QUOTA = "5000"
# What the GPU Operator names its exporter service and port.
OPERATOR_EXPORTER_LABELS = {"app": "nvidia-dcgm-exporter"}
OPERATOR_EXPORTER_PORT = "gpu-metrics"
# What the dcgm-exporter chart names its pods and port.
CHART_EXPORTER_LABELS = {"app.kubernetes.io/name": "dcgm-exporter"}
CHART_EXPORTER_PORT = "metrics"

PROMETHEUS_VALUES = {
    "prometheus": {"prometheusSpec": {
        # Pick up every ServiceMonitor/PodMonitor, not only those labelled with this release's name.
        "serviceMonitorSelectorNilUsesHelmValues": False,
        "podMonitorSelectorNilUsesHelmValues": False,
        "retention": "15d",
    }},
    # Grafana ships with a well-known default admin password; teams add their own dashboards deliberately.
    "grafana": {"enabled": False},
}


@dataclass(frozen=True)
class GpuTelemetryArgs:
    software: GpuSoftware
    provider: k8s.Provider
    exporter_dependencies: Sequence[pulumi.Resource] = field(
        default=(), metadata={"doc": "What runs the exporter when it is not ours (the GPU Operator's release)."})
    labels: dict[str, str] = field(default_factory=dict)


class GpuTelemetry(pulumi.ComponentResource):
    def __init__(self, name: str, args: GpuTelemetryArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:GpuTelemetry", name, None, opts)
        on_cluster = pulumi.ResourceOptions(parent=self, provider=args.provider)
        if args.software.monitoring == "managed-prometheus":
            scrape = self._managed_prometheus(name, args, on_cluster)
        else:
            scrape = self._prometheus_operator(name, args, on_cluster)
        self.register_outputs({"scrape_id": scrape.id})

    def _managed_prometheus(self, name: str, args: GpuTelemetryArgs, on_cluster: pulumi.ResourceOptions
                            ) -> k8s.apiextensions.CustomResource:
        chart = pin("dcgm_exporter")
        ns = namespace(child_name(name, "namespace"), chart.namespace, {**args.labels, **PRIVILEGED}, on_cluster)
        quota = k8s.core.v1.ResourceQuota(
            child_name(name, "critical-pods"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name="critical-pods", namespace=chart.namespace, labels=args.labels),
            spec=k8s.core.v1.ResourceQuotaSpecArgs(
                hard={"pods": CRITICAL_PODS_QUOTA},
                scope_selector=k8s.core.v1.ScopeSelectorArgs(match_expressions=[
                    k8s.core.v1.ScopedResourceSelectorRequirementArgs(
                        scope_name="PriorityClass", operator="In", values=list(CRITICAL_PRIORITY_CLASSES))])),
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[ns])))
        exporter = release(child_name(name, "dcgm-exporter"), "dcgm-exporter", chart, gke_dcgm_exporter_values(),
                           self, args.provider, depends_on=[ns, quota])
        return k8s.apiextensions.CustomResource(
            child_name(name, "pod-monitoring"), api_version="monitoring.googleapis.com/v1", kind="PodMonitoring",
            metadata={"name": "dcgm-exporter", "namespace": chart.namespace, "labels": args.labels},
            spec={"selector": {"matchLabels": CHART_EXPORTER_LABELS},
                  "endpoints": [{"port": CHART_EXPORTER_PORT, "interval": SCRAPE_INTERVAL}]},
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[exporter])))

    def _prometheus_operator(self, name: str, args: GpuTelemetryArgs, on_cluster: pulumi.ResourceOptions
                             ) -> k8s.apiextensions.CustomResource:
        chart = pin("kube_prometheus_stack")
        operator_namespace = pin("gpu_operator").namespace
        ns = namespace(child_name(name, "namespace"), chart.namespace, args.labels, on_cluster)
        prometheus = release(child_name(name, "prometheus"), "kube-prometheus-stack", chart, PROMETHEUS_VALUES,
                             self, args.provider, depends_on=[ns])
        # The ServiceMonitor CRD comes with kube-prometheus-stack; the service it selects with the operator.
        return k8s.apiextensions.CustomResource(
            child_name(name, "service-monitor"), api_version="monitoring.coreos.com/v1", kind="ServiceMonitor",
            metadata={"name": "dcgm-exporter", "namespace": operator_namespace, "labels": args.labels},
            spec={"selector": {"matchLabels": OPERATOR_EXPORTER_LABELS},
                  "namespaceSelector": {"matchNames": [operator_namespace]},
                  "endpoints": [{"port": OPERATOR_EXPORTER_PORT, "interval": SCRAPE_INTERVAL}]},
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(
                depends_on=[prometheus, *args.exporter_dependencies])))
