"""Bad plans are refused before anything is created, with a message naming the plan field."""

from __future__ import annotations

import pytest
from aws_plans import ACCESS, h100_training_plan, l4_inference_plan, ownership_for, with_pool

import components.aws as aws_components
from accelfit.errors import InputError
from accelfit.preview.recorder import record
from accelfit.cloudrules.aws.plan_checks import filesystem_zone, validate_eks_plan


def fields(problems) -> list[str]:
    return [problem.field for problem in problems]


def refused(plan, catalog) -> InputError:
    """Build under mocks; assert it raised InputError and registered no resource at all."""
    recording = None
    with pytest.raises(InputError) as raised:
        recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
    assert recording is None or recording.resources == []
    return raised.value


def test_examples_are_valid(catalog):
    assert validate_eks_plan(h100_training_plan(), catalog) == []
    assert validate_eks_plan(l4_inference_plan(), catalog) == []


def test_efa_on_a_type_without_it(catalog):
    plan = with_pool(l4_inference_plan(), 1, efa_interfaces=1, zones=("us-east-1a",))
    error = refused(plan, catalog)
    assert fields(error.problems) == ["node_pools[1].efa_interfaces"]
    assert "g6.xlarge does not support EFA" in str(error)


def test_more_efa_interfaces_than_the_type_takes(catalog):
    plan = with_pool(h100_training_plan(), 1, machine_type="p4d.24xlarge", accelerator="a100-40gb",
                     local_nvme_gb=8000.0)
    problems = validate_eks_plan(plan, catalog)
    assert fields(problems) == ["node_pools[1].efa_interfaces"]
    assert "4 network card(s) and takes 4 EFA interface(s)" in problems[0].message


def test_capacity_block_on_a_type_ec2_does_not_sell_as_blocks(catalog):
    plan = with_pool(l4_inference_plan(), 1, reservation="cr-0123456789abcdef0", capacity_block=True)
    problems = validate_eks_plan(plan, catalog)
    assert fields(problems) == ["node_pools[1].capacity_block"]
    assert "not sold as an EC2 Capacity Block" in problems[0].message


def test_eks_version_past_standard_support(catalog):
    plan = h100_training_plan().model_copy(update={"eks_version": "1.33"})
    problems = validate_eks_plan(plan, catalog)
    assert fields(problems) == ["eks_version"]
    assert "standard support for 1.33 ended" in problems[0].message


def test_unknown_eks_version(catalog):
    plan = h100_training_plan().model_copy(update={"eks_version": "1.29"})
    assert fields(validate_eks_plan(plan, catalog)) == ["eks_version"]


def test_spot_in_a_capacity_reservation(catalog):
    plan = with_pool(h100_training_plan(), 1, spot=True, reservation="cr-0123456789abcdef0")
    error = refused(plan, catalog)
    assert fields(error.problems) == ["node_pools[1].reservation"]
    assert "Spot Instances cannot launch into a capacity reservation" in str(error)


def test_spot_capacity_block(catalog):
    """A pool carries one buying model (NodePool.buying): spot and a Capacity Block together cannot be stated."""
    with pytest.raises(ValueError, match="a pool has one buying model; spot and capacity-block are both set"):
        with_pool(h100_training_plan(), 1, spot=True, reservation="cr-0123456789abcdef0", capacity_block=True)


def test_capacity_block_without_its_reservation(catalog):
    plan = with_pool(h100_training_plan(), 1, capacity_block=True)
    assert fields(validate_eks_plan(plan, catalog)) == ["node_pools[1].capacity_block"]


def test_malformed_reservation_id(catalog):
    plan = with_pool(h100_training_plan(), 1, reservation="my-reservation")
    assert fields(validate_eks_plan(plan, catalog)) == ["node_pools[1].reservation"]


def test_instance_type_missing_from_the_region(catalog):
    # p5e.48xlarge is in the catalog, but not offered in us-east-1.
    plan = with_pool(h100_training_plan(), 1, machine_type="p5e.48xlarge", accelerator="h200-141gb")
    error = refused(plan, catalog)
    assert fields(error.problems) == ["node_pools[1].machine_type"]
    assert "p5e.48xlarge is not offered in us-east-1" in str(error)
    assert "us-east-2" in error.problems[0].fix


def test_unknown_instance_type_suggests_the_closest(catalog):
    plan = with_pool(h100_training_plan(), 1, machine_type="p5.48xlarg")
    problems = validate_eks_plan(plan, catalog)
    assert fields(problems) == ["node_pools[1].machine_type"]
    assert problems[0].fix == "use p5.48xlarge"


def test_efa_pool_across_zones(catalog):
    plan = with_pool(h100_training_plan(), 1, zones=("us-east-1a", "us-east-1b"))
    problems = validate_eks_plan(plan, catalog)
    assert fields(problems) == ["node_pools[1].zones"]
    assert "single availability zone" in problems[0].message


def test_pool_zone_outside_the_network(catalog):
    plan = with_pool(h100_training_plan(), 1, zones=("us-east-1c",))
    assert fields(validate_eks_plan(plan, catalog)) == ["node_pools[1].zones"]


def test_one_zone_network(catalog):
    plan = h100_training_plan().model_copy(update={"zones": ("us-east-1a",)})
    plan = with_pool(plan, 0, zones=("us-east-1a",))
    assert fields(validate_eks_plan(plan, catalog)) == ["zones"]


def test_gpu_count_must_match_the_type(catalog):
    plan = with_pool(h100_training_plan(), 1, accelerators_per_node=4)
    assert fields(validate_eks_plan(plan, catalog)) == ["node_pools[1].accelerators_per_node"]


def test_more_nvme_than_the_type_has(catalog):
    plan = with_pool(l4_inference_plan(), 1, local_nvme_gb=1000.0)
    assert fields(validate_eks_plan(plan, catalog)) == ["node_pools[1].local_nvme_gb"]


def test_fsx_sizes(catalog):
    storage = h100_training_plan().storage.model_copy(update={"filesystem_capacity_gib": 20000,
                                                              "filesystem_throughput_mbps_per_tib": 200})
    problems = validate_eks_plan(h100_training_plan().model_copy(update={"storage": storage}), catalog)
    assert fields(problems) == ["storage.filesystem_capacity_gib", "storage.filesystem_throughput_mbps_per_tib"]
    assert problems[0].fix == "use 21600"


def test_filestore_is_not_on_aws(catalog):
    storage = l4_inference_plan().storage.model_copy(update={"shared_filesystem": "filestore"})
    plan = l4_inference_plan().model_copy(update={"storage": storage})
    assert fields(validate_eks_plan(plan, catalog)) == ["storage.shared_filesystem"]


def test_wrong_platform(catalog):
    plan = l4_inference_plan().model_copy(update={"platform": "gke-gpu", "cloud": "gcp"})
    assert "platform" in fields(validate_eks_plan(plan, catalog))


def test_all_problems_are_reported_together(catalog):
    plan = with_pool(h100_training_plan(), 1, spot=True, reservation="cr-0123456789abcdef0",
                     zones=("us-east-1a", "us-east-1b"), min_nodes=8)
    assert set(fields(validate_eks_plan(plan, catalog))) == {
        "node_pools[1].reservation", "node_pools[1].zones", "node_pools[1].initial_nodes"}


def test_filesystem_goes_with_the_gpu_nodes():
    assert filesystem_zone(h100_training_plan()) == "us-east-1a"
