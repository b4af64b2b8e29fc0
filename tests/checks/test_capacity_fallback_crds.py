"""The capacity-fallback objects (ProvisioningRequestConfig, AdmissionCheck, a ClusterQueue with a per-flavor
admission check, a multislice flavor) against their pinned Kueue v0.19.2 CRDs with CEL, and field by field against
the upstream examples they follow (Kueue's provisioning_request.md / admission_check/_index.md, xpk's
kueue_config.yaml.j2). No example stack buys flex-start yet, so the objects are rendered here from a plan."""

from __future__ import annotations

import datetime as dt

from accelfit.planner.model import Estimate, NodePool, Plan, PlanAccelerator, StoragePlan, Taint
from accelfit.planner.fleet.provisioning import QUEUED_PROVISIONING_CLASS
from components.kubernetes.queues import (
    CHECK_NAMES,
    NodeCapacity,
    admission_check_spec,
    cluster_queue_spec,
    flavor_plans,
    provisioning_request_config_spec,
    resource_flavor_spec,
)
from k8s_schemas import Report, crds, custom_resource_problems

KUEUE = "kueue.x-k8s.io/v1beta2"
TAINT = Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")


def problems(kind: str, spec: dict, name: str = "x") -> list[str]:
    manifest = {"apiVersion": KUEUE, "kind": kind, "metadata": {"name": name}, "spec": spec}
    return custom_resource_problems(manifest, crds()[(KUEUE, kind)], Report())


def gpu_pool(name: str, **fields) -> NodePool:
    return NodePool(**{"name": name, "role": "gpu", "machine_type": "a3-highgpu-8g", "accelerator": "h100-80gb",
                       "accelerators_per_node": 8, "min_nodes": 0, "max_nodes": 4, "initial_nodes": 0,
                       "zones": ("us-central1-a",), "taints": (TAINT,), **fields})


def plan_with(*pools: NodePool, kind: str = "training") -> Plan:
    return Plan(workload="llm", kind=kind, framework="pytorch", environment="dev", option="o", platform="gke-gpu",
                cloud="gcp", region="us-central1", zones=("us-central1-a",), pricing="flex-start",
                orchestration="kubernetes", accelerator=PlanAccelerator(name="h100-80gb", kind="gpu", count=32),
                node_pools=pools, storage=StoragePlan(dataset_tb=1, checkpoint_tb=1),
                estimate=Estimate(hours=1, accelerator_hours=1, devices=32, memory_per_device_gib=80, monthly_usd=1,
                                  total_usd=1, breakdown=()),
                reasons=(), catalog_as_of=dt.date(2026, 11, 26))


def flavors_of(plan: Plan):
    capacity = {pool.name: NodeCapacity(accelerators=8 * pool.max_nodes, cpus=200, memory_gib=1800)
                for pool in plan.node_pools}
    return flavor_plans(plan, capacity)


def test_a_multi_node_flex_start_training_pool_gets_the_queued_provisioning_check_on_its_flavor_only():
    plan = plan_with(gpu_pool("gpu", flex_start=True), gpu_pool("gpu-fb2", spot=True, fallback_rank=2))
    spec = cluster_queue_spec("llm", flavors_of(plan))
    assert spec["admissionChecksStrategy"] == {"admissionChecks": [
        {"name": CHECK_NAMES[QUEUED_PROVISIONING_CLASS], "onFlavors": ["llm-gpu"]}]}
    assert problems("ClusterQueue", spec) == []


def test_serving_and_single_node_flex_start_pools_get_no_check():
    """GKE: queued provisioning is for workloads that need several nodes at once; one node is a flex-start VM."""
    for plan in (plan_with(gpu_pool("gpu", flex_start=True), kind="inference"),
                 plan_with(gpu_pool("gpu", flex_start=True, max_nodes=1))):
        assert "admissionChecksStrategy" not in cluster_queue_spec("llm", flavors_of(plan))
    assert "admissionChecksStrategy" not in cluster_queue_spec("llm", flavors_of(plan_with(gpu_pool("gpu"))))


def test_the_provisioning_request_config_is_valid_and_matches_xpks_dws_config():
    spec = provisioning_request_config_spec(QUEUED_PROVISIONING_CLASS, ["nvidia.com/gpu"])
    assert problems("ProvisioningRequestConfig", spec) == []
    # xpk src/xpk/templates/kueue_config.yaml.j2 @367c838 (dws-config), field by field
    assert spec["provisioningClassName"] == "queued-provisioning.gke.io"
    assert spec["managedResources"] == ["nvidia.com/gpu"]
    assert spec["podSetUpdates"] == {"nodeSelector": [{"key": "autoscaling.gke.io/provisioning-request",
                                                       "valueFromProvisioningClassDetail": "ResizeRequestName"}]}
    # Kueue's documented retry defaults (provisioningrequestconfig_types.go: 3, 60, 1800), stated
    assert spec["retryStrategy"] == {"backoffLimitCount": 3, "backoffBaseSeconds": 60, "backoffMaxSeconds": 1800}


def test_the_admission_check_is_valid_and_matches_kueues_example():
    spec = admission_check_spec("accelfit-queued-provisioning")
    assert problems("AdmissionCheck", spec) == []
    # Kueue v0.19.2 site/content/en/docs/concepts/admission_check/_index.md (prov-test)
    assert spec == {"controllerName": "kueue.x-k8s.io/provisioning-request",
                    "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig",
                                   "name": "accelfit-queued-provisioning"}}


def test_the_crds_catch_a_breach():
    bad = provisioning_request_config_spec("Not A Class!", ["nvidia.com/gpu"])
    assert problems("ProvisioningRequestConfig", bad)
    assert problems("AdmissionCheck", {"parameters": {"kind": "ProvisioningRequestConfig"}})
    queue = cluster_queue_spec("llm", flavors_of(plan_with(gpu_pool("gpu", flex_start=True))))
    both = {**queue, "admissionChecks": ["accelfit-queued-provisioning"]}  # only one of the two fields may be set
    assert problems("ClusterQueue", both)


def test_a_multislice_flavor_and_its_queue_are_valid():
    from tests.components.gcp.gcp_plans import gke_tpu_multislice

    plan = gke_tpu_multislice()
    capacity = {pool.name: NodeCapacity(accelerators=16, cpus=100, memory_gib=400) for pool in plan.node_pools}
    [flavor] = flavor_plans(plan, capacity)
    assert problems("ResourceFlavor", resource_flavor_spec(flavor, {})) == []
    assert problems("ClusterQueue", cluster_queue_spec("tpu-train", [flavor])) == []
