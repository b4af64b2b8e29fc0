"""Bad plans are refused before anything is created, with every problem naming its Plan field."""

from __future__ import annotations

import gcp_plans
from accelfit.planner.model import NetworkPlan, Plan, StoragePlan


def _refused(plan) -> dict[str, str]:
    recording, error = gcp_plans.record_plan(plan)
    assert error is not None, "the plan was accepted"
    assert recording.resources == [], "resources were created before the plan was refused"
    return {item.field: item.render() for item in error.problems}


def _with_pool(plan, index: int, **changes):
    pools = list(plan.node_pools)
    pools[index] = pools[index].model_copy(update=changes)
    return plan.model_copy(update={"node_pools": tuple(pools)})


def _with_slice(plan, index: int, **changes):
    slices = list(plan.tpu_vm_slices)
    slices[index] = slices[index].model_copy(update=changes)
    return plan.model_copy(update={"tpu_vm_slices": tuple(slices)})


def test_topology_that_does_not_match_the_tpu_type_is_refused():
    problems = _refused(_with_slice(gcp_plans.tpu_jax_pretrain(), 0, topology="2x4x4"))
    assert "tpu_vm_slices[0].topology" in problems
    assert "4x4x4" in problems["tpu_vm_slices[0].topology"] and problems["tpu_vm_slices[0].topology"].startswith("plan:")


def test_gke_tpu_pool_topology_mismatch_is_refused():
    problems = _refused(_with_pool(gcp_plans.gke_tpu_multislice(), 1, tpu_topology="2x4"))
    assert "node_pools[1].tpu_topology" in problems


def test_gpu_type_the_machine_family_cannot_hold_is_refused():
    problems = _refused(_with_pool(gcp_plans.gke_h100_training(), 1, accelerator="l4",
                                   gke_accelerator="nvidia-l4"))
    assert "node_pools[1].accelerator" in problems and "h100-80gb" in problems["node_pools[1].accelerator"]
    assert "node_pools[1].gke_accelerator" in problems


def test_region_without_the_offering_is_refused():
    plan = gcp_plans.gke_h100_training()
    zones = ("us-east1-b",)
    plan = plan.model_copy(update={"region": "us-east1", "zones": zones, "node_pools": tuple(
        pool.model_copy(update={"zones": zones}) for pool in plan.node_pools)})
    problems = _refused(plan)
    assert "not offered in us-east1" in problems["node_pools[1].machine_type"]


def test_tpu_zone_without_the_slice_is_refused():
    plan = gcp_plans.tpu_jax_pretrain().model_copy(update={"region": "us-west4", "zones": ("us-west4-a",)})
    problems = _refused(_with_slice(plan, 0, zone="us-west4-a"))
    assert "tpu-v5p (v5p-128) cannot be created in us-west4-a" in problems["tpu_vm_slices[0].zone"]
    assert "us-central1-a, us-east5-a" in problems["tpu_vm_slices[0].zone"]  # where Google lists v5p


def test_every_problem_is_reported_at_once():
    plan = _with_pool(gcp_plans.gke_h100_training(), 1, accelerators_per_node=4, driver_version=None,
                      zones=("us-central1-a", "us-central1-b"))
    problems = _refused(plan)
    assert {"node_pools[1].accelerators_per_node", "node_pools[1].driver_version",
            "node_pools[1].zones"} <= set(problems)


def test_latest_driver_is_refused_in_prod_only():
    problems = _refused(_with_pool(gcp_plans.l4_inference(), 1, driver_version="LATEST"))
    assert "LATEST" in problems["node_pools[1].driver_version"]
    staging = _with_pool(gcp_plans.gke_h100_training(), 1, driver_version="LATEST")
    assert gcp_plans.record_plan(staging)[1] is None


def test_unknown_machine_type_suggests_a_close_one():
    problems = _refused(_with_pool(gcp_plans.gke_h100_training(), 1, machine_type="a3-highgpu-8"))
    assert "a3-highgpu-8g" in problems["node_pools[1].machine_type"]


def test_runtime_version_of_another_generation_is_refused():
    problems = _refused(_with_slice(gcp_plans.tpu_jax_pretrain(), 0, runtime_version="v2-alpha-tpuv6e"))
    assert "v2-alpha-tpuv5" in problems["tpu_vm_slices[0].runtime_version"]


def test_multi_host_tpu_pool_must_hold_the_whole_slice():
    problems = _refused(_with_pool(gcp_plans.gke_tpu_multislice(), 1, max_nodes=2, initial_nodes=2))
    assert "4 hosts" in problems["node_pools[1].max_nodes"]


def test_queued_slices_cannot_be_spot_with_this_sdk():
    problems = _refused(_with_slice(gcp_plans.queued_multislice(), 0, spot=True))
    assert "pulumi-gcp 10.2.0" in problems["tpu_vm_slices[0].spot"]


def test_missing_system_pool_and_overlapping_ranges_are_refused():
    plan = gcp_plans.l4_inference()
    plan = plan.model_copy(update={"node_pools": plan.node_pools[1:],
                                   "network": NetworkPlan(cidr="10.64.0.0/16")})
    problems = _refused(plan)
    assert "node_pools" in problems and "network.pods_cidr" in problems


def test_filestore_smaller_than_its_tier_is_refused():
    plan = gcp_plans.gke_h100_training()
    storage = plan.storage.model_copy(update={"filestore_tier": "HIGH_SCALE_SSD", "filesystem_capacity_gib": 5000})
    problems = _refused(plan.model_copy(update={"storage": storage}))
    assert "HIGH_SCALE_SSD takes 10240-102400 GiB in 2560 GiB steps" in problems["storage.filesystem_capacity_gib"]


def test_zonal_filestore_off_its_capacity_steps_is_refused():
    # What the planner wrote for a 20 TB dataset before: above 10 TiB Zonal shares move in 2.5 TiB steps.
    plan = gcp_plans.gke_h100_training()
    storage = plan.storage.model_copy(update={"filesystem_capacity_gib": 19456})
    problem = _refused(plan.model_copy(update={"storage": storage}))["storage.filesystem_capacity_gib"]
    assert "ZONAL takes" in problem and "set 20480 GiB" in problem


def test_regional_filestore_starts_at_100_gib():
    plan = gcp_plans.gke_h100_training()
    storage = plan.storage.model_copy(update={"filestore_tier": "REGIONAL", "filesystem_capacity_gib": 100})
    recording, error = gcp_plans.record_plan(plan.model_copy(update={"storage": storage}))
    assert error is None
    instance = recording.named("llm-train-shared-filestore").inputs
    assert instance["tier"] == "REGIONAL" and instance["fileShares"]["capacityGb"] == 100
    assert instance["location"] == "us-central1"
    small = plan.model_copy(update={"storage": StoragePlan(dataset_tb=1, checkpoint_tb=1,
                                                           shared_filesystem="filestore",
                                                           filesystem_capacity_gib=100)})
    assert "storage.filesystem_capacity_gib" in _refused(small)


def test_an_aws_plan_is_not_built_here():
    plan = Plan.model_validate({**gcp_plans.l4_inference().model_dump(), "cloud": "aws", "platform": "eks-gpu"})
    assert "platform" in _refused(plan)


def test_component_args_are_checked_before_children(monkeypatch):
    """A component used by hand refuses bad args itself (here: compact placement over two zones)."""
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.gcp import GpuNodePool, GpuNodePoolArgs

    args = GpuNodePoolArgs(cluster="c", location="us-central1", zones=("us-central1-a", "us-central1-b"),
                           machine_type="a3-highgpu-8g", gpu_type="nvidia-h100-80gb", gpus_per_node=8,
                           driver_version="LATEST", service_account="sa@x", environment="prod", min_nodes=0,
                           max_nodes=2, initial_nodes=3, compact_placement=True, machine_family="a3-high",
                           disk_type="pd-ssd")
    errors = []

    def program():
        try:
            GpuNodePool("by-hand", args)
        except InputError as error:
            errors.append(error)

    recording = record(program)
    assert recording.resources == []
    assert {item.field for item in errors[0].problems} == {"zones", "driver_version", "initial_nodes"}


def test_gke_tpu_pool_in_a_zone_google_does_not_list_is_refused():
    # The defect the review found: v6e pools in us-central1-a, where Google lists v6e only in us-central1-b.
    plan = _with_pool(gcp_plans.gke_tpu_multislice(), 1, machine_type="ct6e-standard-4t", accelerator="tpu-v6e",
                      gke_accelerator="tpu-v6e-slice", tpu_slice="v6e-16", tpu_topology="4x4",
                      zones=("us-central1-a",))
    plan = plan.model_copy(update={"region": "us-central1"})
    problems = _refused(plan)
    assert "tpu-v6e (v6e-16) cannot be created in us-central1-a" in problems["node_pools[1].zones[0]"]
    assert "us-central1-b" in problems["node_pools[1].zones[0]"]


def test_checkpoint_retention_too_short_to_hold_is_refused_before_anything_is_created():
    plan = gcp_plans.tpu_jax_pretrain()
    storage = plan.storage.model_copy(update={"checkpoint_retention_days": 7})
    problem = _refused(plan.model_copy(update={"storage": storage}))["storage.checkpoint_retention_days"]
    assert "soft delete" in problem and "11 days or more" in problem
