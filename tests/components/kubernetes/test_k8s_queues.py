"""Kueue routing as data: flavor fallback order, quotas, and the ClusterQueue spec."""

from __future__ import annotations

import datetime as dt

import pytest

from accelfit.planner.model import Estimate, NodePool, Plan, PlanAccelerator, StoragePlan, Taint
from components.kubernetes.queues import NodeCapacity, cluster_queue_spec, flavor_plans, resource_flavor_spec

GPU_TAINT = Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")
TPU_TAINT = Taint(key="google.com/tpu", value="present", effect="NoSchedule")


def make_pool(name: str, role: str, **fields) -> NodePool:
    return NodePool(name=name, role=role, machine_type="m", accelerator="x", accelerators_per_node=4, min_nodes=0,
                    max_nodes=2, initial_nodes=0, zones=("z",), taints=(TPU_TAINT if role == "tpu" else GPU_TAINT,),
                    labels={"accelfit.io/role": "training", "accelfit.io/workload": "w"}, **fields)


def make_plan(kind: str, *pools: NodePool) -> Plan:
    return Plan(workload="w", kind="training", framework="jax", environment="dev", option="o", platform="gke-gpu",
                cloud="gcp", region="r", zones=("z",), pricing="on-demand", orchestration="kubernetes",
                accelerator=PlanAccelerator(name="x", kind=kind, count=8), node_pools=pools,
                storage=StoragePlan(dataset_tb=1, checkpoint_tb=1),
                estimate=Estimate(hours=1, accelerator_hours=1, devices=8, memory_per_device_gib=1, monthly_usd=1,
                                  total_usd=1, breakdown=()),
                reasons=(), catalog_as_of=dt.date(2026, 11, 21))


def capacities(plan: Plan) -> dict[str, NodeCapacity]:
    return {pool.name: NodeCapacity(accelerators=pool.accelerators_per_node * pool.max_nodes, cpus=10, memory_gib=20)
            for pool in plan.node_pools}


@pytest.mark.parametrize(("kind", "pools", "order"), [
    # reservation, then on-demand, then spot, whatever order the plan lists the pools in
    ("gpu", [make_pool("spot", "gpu", spot=True), make_pool("od", "gpu"), make_pool("res", "gpu", reservation="r1")],
     ["res", "od", "spot"]),
    # a TPU plan that may also run on GPUs: every TPU flavor before any GPU flavor
    ("tpu", [make_pool("gpu-od", "gpu"), make_pool("tpu-spot", "tpu", spot=True), make_pool("tpu-od", "tpu")],
     ["tpu-od", "tpu-spot", "gpu-od"]),
    # a GPU plan with a TPU fallback: the plan's own kind first
    ("gpu", [make_pool("tpu-od", "tpu"), make_pool("gpu-spot", "gpu", spot=True)], ["gpu-spot", "tpu-od"]),
    # the system pool carries no accelerator and gets no flavor
    ("gpu", [make_pool("system", "system"), make_pool("gpu", "gpu")], ["gpu"]),
])
def test_fallback_order(kind, pools, order):
    plan = make_plan(kind, *pools)
    assert [flavor.pool for flavor in flavor_plans(plan, capacities(plan))] == order


def test_mixed_queue_offers_each_flavor_only_its_accelerator():
    plan = make_plan("tpu", make_pool("tpu", "tpu"), make_pool("gpu", "gpu"))
    spec = cluster_queue_spec("w", flavor_plans(plan, capacities(plan)))
    [group] = spec["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "ephemeral-storage", "google.com/tpu", "nvidia.com/gpu"]
    assert [flavor["name"] for flavor in group["flavors"]] == ["w-tpu", "w-gpu"]
    assert group["flavors"][0]["resources"] == [
        {"name": "cpu", "nominalQuota": "10"}, {"name": "memory", "nominalQuota": "20Gi"},
        {"name": "ephemeral-storage", "nominalQuota": "0Gi"},
        {"name": "google.com/tpu", "nominalQuota": "8"}, {"name": "nvidia.com/gpu", "nominalQuota": "0"}]
    assert group["flavors"][1]["resources"][4] == {"name": "nvidia.com/gpu", "nominalQuota": "8"}
    assert spec["flavorFungibility"]["whenCanBorrow"] == "TryNextFlavor"


def test_queue_covers_scratch_and_efa_when_a_pool_has_efa():
    plan = make_plan("gpu", make_pool("gpu", "gpu"))
    [flavor] = flavor_plans(plan, {"gpu": NodeCapacity(accelerators=16, cpus=384, memory_gib=4096,
                                                       ephemeral_storage_gib=61440, efa=64,
                                                       hugepages_2mi_mib=20512)})
    [group] = cluster_queue_spec("w", [flavor])["resourceGroups"]
    # AWS's EFA pod example requests hugepages-2Mi as well; a resource no queue covers is never admitted.
    assert group["coveredResources"] == ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu",
                                         "vpc.amazonaws.com/efa", "hugepages-2Mi"]
    quotas = {row["name"]: row["nominalQuota"] for row in group["flavors"][0]["resources"]}
    assert quotas["ephemeral-storage"] == "61440Gi" and quotas["vpc.amazonaws.com/efa"] == "64"
    assert quotas["hugepages-2Mi"] == "20512Mi"


def test_efa_pools_quota_the_huge_pages_their_nodes_pre_allocate():
    """EKS user guide (node-efa): instances with the EFA driver pre-allocate 5128 2 MiB pages; a 2-node p5 pool
    admits two of AWS's example pods (hugepages-2Mi: 5120Mi each) per node."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "aws"))
    import aws_plans
    from accelfit.catalog import load_catalog
    from components.kubernetes.capacity import cloud_capacities

    plan = aws_plans.h100_training_plan()
    [pool] = [pool for pool in plan.node_pools if pool.role == "gpu"]
    assert pool.efa_interfaces
    capacity = cloud_capacities(plan, load_catalog())[pool.name]
    assert capacity.hugepages_2mi_mib == 5128 * 2 * pool.max_nodes
    assert capacity.hugepages_2mi_mib >= 5120 * pool.max_nodes


def test_flavor_selects_its_pool_and_tolerates_its_taint_but_not_the_rewritten_role_label():
    plan = make_plan("gpu", make_pool("gpu", "gpu"))
    [flavor] = flavor_plans(plan, capacities(plan))
    spec = resource_flavor_spec(flavor, {"cloud.google.com/gke-nodepool": "w-gpu-pool"})
    assert spec["nodeLabels"] == {"accelfit.io/workload": "w", "cloud.google.com/gke-nodepool": "w-gpu-pool"}
    assert spec["nodeTaints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert spec["tolerations"][0]["operator"] == "Equal"
