"""Pure helpers: how plan values are spelt for the GKE/GCE/TPU APIs."""

from __future__ import annotations

import pytest

from accelfit.cloudrules.gcp import node_settings as ns
from accelfit.cloudrules.gcp import tpu_runtime


@pytest.mark.parametrize("effect, expected", [("NoSchedule", "NO_SCHEDULE"),
                                              ("PreferNoSchedule", "PREFER_NO_SCHEDULE"),
                                              ("NoExecute", "NO_EXECUTE")])
def test_taint_effects(effect, expected):
    assert ns.gke_taint_effect(effect) == expected


def test_required_taint_added_once():
    assert ns.with_required_taint([], ns.GPU_TAINT) == [ns.GPU_TAINT]
    own = ("nvidia.com/gpu", "yes", "NoExecute")
    assert ns.with_required_taint([own], ns.GPU_TAINT) == [own]


@pytest.mark.parametrize("version, expected", [("DEFAULT", ("DEFAULT", None)), ("latest", ("LATEST", None)),
                                               ("550.90.07", ("INSTALLATION_DISABLED", "550.90.07"))])
def test_driver_installation(version, expected):
    assert ns.driver_installation(version) == expected


@pytest.mark.parametrize("reservation, spot, kind", [("r1", False, "SPECIFIC_RESERVATION"),
                                                     (None, True, "NO_RESERVATION"),
                                                     (None, False, "ANY_RESERVATION")])
def test_reservation_affinity(reservation, spot, kind):
    assert ns.reservation_affinity(reservation, spot)[0] == kind


@pytest.mark.parametrize("total, zones, per_zone", [(4, 1, 4), (3, 3, 1), (4, 3, 2), (0, 2, 0)])
def test_per_zone_count(total, zones, per_zone):
    assert ns.per_zone_count(total, zones) == per_zone


def test_gvnic_and_rdma_subnets():
    assert ns.gvnic_subnet_cidr(3) == "192.168.3.0/24"
    with pytest.raises(ValueError):
        ns.gvnic_subnet_cidr(128)
    # Cluster Toolkit's A3 Ultra / A4 RoCE VPC: 8 subnets of 192.168.128.0/18 (cidrsubnet with 3 new bits).
    subnets = [ns.rdma_subnet_cidr(index, 8) for index in range(8)]
    assert subnets[0] == "192.168.128.0/21" and subnets[7] == "192.168.184.0/21"
    with pytest.raises(ValueError):
        ns.rdma_subnet_cidr(8, 8)


@pytest.mark.parametrize("name, expected", [("llm-train-nodes", "llm-train-nodes"), ("a", "a00000"),
                                            ("9lives-nodes", "sa-9lives-nodes")])
def test_service_account_id(name, expected):
    assert ns.service_account_id(name) == expected
    assert 6 <= len(expected) <= 30


def test_long_service_account_ids_stay_distinct():
    workload = "x" * 40
    nodes, workload_sa = ns.service_account_id(f"{workload}-nodes"), ns.service_account_id(f"{workload}-workload")
    assert nodes != workload_sa and len(nodes) == len(workload_sa) == 30
    assert nodes.startswith("x" * 23)


def test_local_ssd_count_and_topology():
    assert ns.local_ssd_count(6000) == 16 and ns.local_ssd_count(0) == 0
    assert ns.topology_chips("4x4x4") == 64 and ns.topology_chips("2x4") == 8


@pytest.mark.parametrize("accelerator, framework, multi_host, expected", [
    ("tpu-v5p", "jax", True, "v2-alpha-tpuv5"),
    ("tpu-v5e", "pytorch", False, "v2-alpha-tpuv5-lite"),
    ("tpu-v6e", "jax", False, "v2-alpha-tpuv6e"),
    ("tpu-v5p", "tensorflow", True, "tpu-vm-tf-2.16.1-pod-pjrt"),  # the planner's table: one version
    ("tpu-v4", "tensorflow", False, "tpu-vm-tf-2.16.1-pjrt"),
])
def test_runtime_version_for(accelerator, framework, multi_host, expected):
    assert tpu_runtime.runtime_version_for(accelerator, framework, multi_host) == expected


@pytest.mark.parametrize("accelerator", ["tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"])
@pytest.mark.parametrize("framework", ["jax", "pytorch", "tensorflow"])
@pytest.mark.parametrize("multi_host", [False, True])
def test_plans_and_the_components_name_one_version_per_runtime(accelerator, framework, multi_host):
    from accelfit.planner.software import tpu_runtime_version
    from accelfit.spec import Framework

    planned = tpu_runtime_version(accelerator, Framework(framework), multi_host)
    assert tpu_runtime.runtime_version_for(accelerator, framework, multi_host) == planned
    assert tpu_runtime.runtime_problem(planned, accelerator, framework) is None


@pytest.mark.parametrize("runtime, accelerator, framework, fits", [
    ("v2-alpha-tpuv5", "tpu-v5p", "jax", True),
    ("v2-alpha-tpuv5", "tpu-v6e", "jax", False),
    ("v2-alpha-tpuv5-lite", "tpu-v5e", "tensorflow", False),
    ("tpu-vm-tf-2.18.0-pjrt", "tpu-v5e", "jax", False),
    ("some-future-image", "tpu-v6e", "pytorch", True),
])
def test_runtime_problem(runtime, accelerator, framework, fits):
    assert (tpu_runtime.runtime_problem(runtime, accelerator, framework) is None) is fits
