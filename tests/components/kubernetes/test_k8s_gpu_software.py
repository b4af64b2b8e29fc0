"""What GPU software each platform gets, and the Helm values for it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from accelfit.errors import InputError
from components.kubernetes.gpu_software import gke_dcgm_exporter_values, gpu_software, operator_values

sys.path[:0] = [str(Path(__file__).parents[1] / "gcp"), str(Path(__file__).parents[1] / "aws"),
                str(Path(__file__).parents[1] / "baremetal")]
import aws_plans  # noqa: E402
import gcp_plans  # noqa: E402
import metal_stack  # noqa: E402


def test_bare_metal_operator_leaves_driver_and_toolkit_to_the_hosts():
    # Host preparation installs the pinned R580 driver on every host before it joins.
    software = gpu_software(metal_stack.plan_for(metal_stack.make_inventory(2)))
    values = operator_values(software)
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False} and values["devicePlugin"] == {"enabled": True}
    assert software.monitoring == "prometheus-operator"


def test_eks_nvidia_ami_gets_device_plugin_only():
    values = operator_values(gpu_software(aws_plans.h100_training_plan()))
    assert values["driver"] == {"enabled": False} and values["toolkit"] == {"enabled": False}
    assert values["devicePlugin"] == {"enabled": True} and values["dcgmExporter"]["enabled"] is True


def test_gke_gets_no_operator_but_a_dcgm_exporter_reading_gke_drivers():
    software = gpu_software(gcp_plans.gke_h100_training())
    assert software.operator is False and software.monitoring == "managed-prometheus"
    values = gke_dcgm_exporter_values()
    assert values["extraHostVolumes"] == [{"name": "nvidia-install-dir-host", "hostPath": "/home/kubernetes/bin/nvidia"}]


def test_gke_pinned_driver_is_refused_by_name():
    plan = gcp_plans.gke_h100_training()
    pools = tuple(pool.model_copy(update={"driver_version": "580.178.04"}) if pool.role == "gpu" else pool
                  for pool in plan.node_pools)
    with pytest.raises(InputError) as caught:
        gpu_software(plan.model_copy(update={"node_pools": pools}))
    assert caught.value.problems[0].field == "node_pools[1].driver_version"


def test_tpu_cluster_has_no_gpu_software():
    assert gpu_software(gcp_plans.gke_tpu_multislice()) is None
