"""The pinned Helm charts are verified against their upstream sources, and the values accelfit passes match what
those chart versions read (the keys removed or replaced upstream are not used)."""

from __future__ import annotations

import re

import pytest
import yaml

from components.kubernetes.charts import CHARTS_FILE, chart_pins
from components.kubernetes.gpu_software import (
    CHART_METRICS_MOUNT, GpuSoftware, gke_dcgm_exporter_values, operator_values,
)

PINS = chart_pins()


def test_the_chart_file_is_marked_verified_on_a_date():
    data = yaml.safe_load(CHARTS_FILE.read_text())
    assert data["verified"] is True and str(data["as_of"]) == "2026-11-23"


@pytest.mark.parametrize("key", sorted(PINS))
def test_every_pin_names_its_upstream_repository_tag_and_commit(key):
    source = PINS[key].source
    assert re.search(r"[\w.-]+/[\w.-]+ ", source), source  # owner/repository
    assert re.search(r"@[0-9a-f]{40}", source), source  # the commit the pin was read at
    assert PINS[key].version.lstrip("v").split(".")[0].isdigit()


def test_pins_checked_upstream():
    versions = {key: pin.version for key, pin in PINS.items() if key != "jobset"}  # jobset: i11-tpu's pin
    assert versions == {"gpu_operator": "v26.3.3", "kueue": "0.19.2", "dcgm_exporter": "4.8.2",
                        "kube_prometheus_stack": "88.5.3", "cluster_autoscaler": "9.59.0",
                        "efa_device_plugin": "v0.5.30", "lws": "0.7.0"}


@pytest.mark.parametrize("platform", ["eks-gpu", "baremetal-gpu"])
def test_operator_values_drop_the_removed_default_runtime(platform):
    software = GpuSoftware(platform, operator=True, driver=platform == "baremetal-gpu",
                           driver_version="580.178.04" if platform == "baremetal-gpu" else None, toolkit=False,
                           device_plugin=True, monitoring="prometheus-operator")
    values = operator_values(software)
    assert "operator" not in values  # operator.defaultRuntime left the chart in 25.3 (NVIDIA/gpu-operator 68d6fc034)


def test_gke_dcgm_values_keep_the_chart_metrics_mount_and_run_privileged():
    values = gke_dcgm_exporter_values()
    # A list value replaces the chart's list: the chart's own ConfigMap mount must be carried over.
    assert values["extraVolumeMounts"][0] == CHART_METRICS_MOUNT
    assert {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia", "readOnly": True} in \
        values["extraVolumeMounts"]
    assert values["securityContext"]["privileged"] is True
    assert "extraConfigMapVolumes" not in values  # the chart's default (the metrics ConfigMap) stays
