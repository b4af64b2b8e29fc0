"""What NVIDIA software each platform needs in the cluster, and the Helm values that install it. Pure data.

- Bare metal: host preparation installs the pinned driver and toolkit on every host; the GPU Operator runs the
  rest (device plugin, DCGM exporter, feature discovery) with its driver and toolkit off.
- EKS (AL2023 NVIDIA AMI): the image ships the driver and the container toolkit and configures containerd for
  them (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html), but not the device plugin:
  the operator runs with driver and toolkit off, device plugin and DCGM exporter on.
- GKE: GKE installs the driver and runs its own device plugin on GPU nodes
  (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers); a second device plugin
  from the operator would fight it. What GKE lacks is GPU telemetry in Prometheus form, so GKE gets only the
  standalone DCGM exporter, reading the driver GKE installed, scraped by Google Cloud Managed Prometheus.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from accelfit.clouds import cloud_of_platform
from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan

GKE_MANAGED_DRIVERS = frozenset({"DEFAULT", "LATEST"})
# GKE installs the NVIDIA libraries and tools here on each GPU node.
GKE_NVIDIA_HOST_DIR = "/home/kubernetes/bin/nvidia"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@dataclass(frozen=True)
class GpuSoftware:
    platform: str  # gke-gpu, eks-gpu or an owned cloud's platform (baremetal-gpu)
    operator: bool
    driver: bool
    driver_version: str | None
    toolkit: bool
    device_plugin: bool
    monitoring: Literal["managed-prometheus", "prometheus-operator"]


def gpu_software(plan: Plan) -> GpuSoftware | None:
    """None when the plan has no GPU pool (TPU clusters: GKE exports TPU metrics itself)."""
    pools = [pool for pool in plan.node_pools if pool.role == "gpu"]
    if not pools:
        return None
    platform = plan.platform.value
    cloud = cloud_of_platform(platform)
    # The cloud record's profile (accelfit/clouds), for its GPU cluster platform or its owned servers.
    profile = cloud.gpu_software if platform == cloud.cluster_platform or cloud.owned else ""
    if profile == "gpu-operator":
        # The driver and toolkit are on the node already; the operator runs the rest. Bare metal: host
        # preparation installs the pinned R580 driver and the toolkit on every host before it joins (no node joins
        # without it: the join step runs after them). NVIDIA's install guide: "Set this value to false when using
        # the Operator on systems with pre-installed drivers" (driver.enabled,
        # https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html#chart-customization-options),
        # rather than leaving the driver container to detect the host's driver. Its toolkit stays off too:
        # containerd on the hosts is already configured by the pinned host toolkit. EKS: the AL2023 NVIDIA AMI
        # ships both (module docstring).
        return GpuSoftware(platform, operator=True, driver=False, driver_version=None,
                           toolkit=False, device_plugin=True, monitoring="prometheus-operator")
    if profile == "gke-managed":
        unmanaged = [(index, pool.driver_version) for index, pool in enumerate(plan.node_pools)
                     if pool.role == "gpu" and (pool.driver_version or "DEFAULT").upper() not in GKE_MANAGED_DRIVERS]
        if unmanaged:
            index, version = unmanaged[0]
            raise InputError([problem("plan", f"node_pools[{index}].driver_version",
                                      "the Kubernetes layer supports only GKE-managed drivers on GKE (a pinned "
                                      "driver needs the GPU Operator in place of GKE's device plugin)",
                                      "use DEFAULT or LATEST", version)])
        return GpuSoftware(platform, operator=False, driver=False, driver_version=None, toolkit=False,
                           device_plugin=False, monitoring="managed-prometheus")
    raise InputError([problem("plan", "platform", "no GPU software profile for this platform",
                              "use gke-gpu, eks-gpu or baremetal-gpu", platform)])


def operator_values(software: GpuSoftware) -> dict[str, Any]:
    """GPU Operator chart values. https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/
    getting-started.html#chart-customization-options"""
    driver: dict[str, Any] = {"enabled": software.driver}
    if software.driver:
        # Pinned: the operator would otherwise install its release's default driver.
        driver["version"] = software.driver_version
    # No operator.defaultRuntime: the chart dropped it (NVIDIA/gpu-operator 68d6fc034, released in 25.3.0); the
    # operator detects containerd itself.
    return {
        "driver": driver,
        "toolkit": {"enabled": software.toolkit},
        "devicePlugin": {"enabled": software.device_plugin},
        # GPU utilisation, memory, power and temperature per GPU; our own ServiceMonitor scrapes it.
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": False}},
        "nfd": {"enabled": True},
    }


# The chart's own metrics ConfigMap volume and mount (NVIDIA/dcgm-exporter deployment/values.yaml, chart 4.8.2):
# a list value replaces the chart's list, so overriding extraVolumeMounts must carry this entry again or the
# exporter loses its counters file and exits.
CHART_METRICS_MOUNT = {"name": "exporter-metrics-volume", "mountPath": "/etc/dcgm-exporter/default-counters.csv",
                       "subPath": "default-counters.csv"}
# Critical priority classes the chart (priorityClassName: system-node-critical) and GKE's quota admission care about.
CRITICAL_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")


def gke_dcgm_exporter_values() -> dict[str, Any]:
    """dcgm-exporter on GKE GPU nodes, using the driver GKE installed (mounted where the exporter looks for it),
    privileged as in Google's reference manifest, which is what gives it the /dev/nvidia* devices GKE's device
    plugin hands only to containers that request GPUs
    (GoogleCloudPlatform/prometheus-engine examples/nvidia-dcgm/exporter.yaml @0d8b4556; the Managed Prometheus
    exporter page https://cloud.google.com/stackdriver/docs/managed-prometheus/exporters/nvidia-dcgm uses it).
    The chart's priority class stays (the exporter must not be evicted first); the namespace gets the ResourceQuota
    GKE requires for it (telemetry.py)."""
    return {
        "serviceMonitor": {"enabled": False},  # Managed Prometheus scrapes through a PodMonitoring instead
        "tolerations": [GPU_TOLERATION],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "cloud.google.com/gke-accelerator", "operator": "Exists"}]}]}}},
        # Helm merges this map into the chart's default securityContext, which sets allowPrivilegeEscalation:
        # false (NVIDIA/dcgm-exporter deployment/values.yaml, chart 4.8.2 @691c9276); the API server refuses
        # privileged: true with it ("cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
        # kubernetes/kubernetes pkg/apis/core/validation/validation.go ValidateSecurityContext), so it is set to
        # what a privileged container has anyway. The chart's capabilities (drop ALL, add SYS_ADMIN) are harmless
        # next to privileged: the runtime grants a privileged container every capability.
        "securityContext": {"privileged": True, "allowPrivilegeEscalation": True, "runAsNonRoot": False,
                            "runAsUser": 0},
        "extraHostVolumes": [{"name": "nvidia-install-dir-host", "hostPath": GKE_NVIDIA_HOST_DIR}],
        "extraVolumeMounts": [CHART_METRICS_MOUNT,
                              {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia", "readOnly": True}],
        "extraEnv": [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}],
    }
