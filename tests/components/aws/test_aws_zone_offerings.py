"""Instance type offered in the pool's availability zone: the catalog's sourced zone-ID availability rows and the
account's name -> ID mapping."""

from __future__ import annotations

import re

import pytest
from aws_plans import ACCESS, h100_training_plan, ownership_for, with_pool

import components.aws as aws_components
from accelfit.errors import InputError
from accelfit.preview.recorder import record
from components.aws.zone_offerings import configured_zone_ids, offered_zone_ids, zone_offering_problems

# One account's mapping (zone names are shuffled per account; IDs are physical).
MAPPING = {"us-east-1a": "use1-az1", "us-east-1b": "use1-az6"}


def test_a_type_not_offered_in_the_zone_is_refused_with_the_zone_that_offers_it(catalog):
    plan = with_pool(h100_training_plan(), 1, machine_type="p6-b200.48xlarge", accelerator="b200", efa_interfaces=8)
    [problem] = zone_offering_problems(plan, MAPPING, catalog)
    assert problem.field == "node_pools[1].zones"
    assert "p6-b200.48xlarge is not offered in us-east-1a (use1-az1" in problem.message
    assert problem.fix == "use us-east-1b"


def test_offered_zones_pass(catalog):
    assert zone_offering_problems(h100_training_plan(), MAPPING, catalog) == []


def test_unknown_zone_ids_are_not_checked(catalog):
    plan = with_pool(h100_training_plan(), 1, machine_type="p6-b200.48xlarge", accelerator="b200", efa_interfaces=8)
    assert zone_offering_problems(plan, {}, catalog) == []


@pytest.mark.parametrize("instance_type", ["p4d.24xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge",
                                           "g6.xlarge", "g6e.12xlarge"])
def test_the_conformance_types_have_rows_in_the_example_region(instance_type, catalog):
    assert offered_zone_ids(catalog, "us-east-1", instance_type)


def test_every_aws_availability_row_lists_zone_ids_not_account_zone_names(catalog):
    """Zone names differ per account, so a row naming us-east-1a would check against the wrong physical zone."""
    rows = [row for row in catalog.availability if row.cloud.value == "aws"]
    assert rows
    for row in rows:
        assert row.zones, f"{row.sku} {row.region}: no zones, so its pools go unchecked"
        assert all(re.match(r"^[a-z]{2,6}[0-9]-az[0-9]+$", zone) for zone in row.zones), (row.sku, row.zones)


def test_a_type_without_zone_rows_in_a_region_is_not_checked(catalog):
    assert offered_zone_ids(catalog, "us-east-1", "no-such.48xlarge") is None


def test_configured_mapping_must_be_zone_ids():
    with pytest.raises(InputError):
        configured_zone_ids({"us-east-1a": "us-east-1a"})
    assert configured_zone_ids({"us-east-1a": "use1-az4"}) == {"us-east-1a": "use1-az4"}


def test_the_account_mapping_from_ec2_refuses_before_anything_is_created(catalog):
    plan = with_pool(h100_training_plan(), 1, machine_type="p6-b200.48xlarge", accelerator="b200", efa_interfaces=8,
                     local_nvme_gb=30720.0)

    def ec2(args):
        if args.token == "aws:index/getAvailabilityZone:getAvailabilityZone":
            return {"name": args.args["name"], "zoneId": MAPPING[args.args["name"]]}
        return {}

    caught = []

    def program():
        try:
            aws_components.build(plan, ownership_for(plan), catalog, ACCESS)
        except InputError as error:
            caught.append(error)

    recording = record(program, call_results=ec2)
    assert recording.resources == [] and "not offered in us-east-1a" in str(caught[0])


def test_the_account_mapping_from_stack_config(catalog):
    plan = with_pool(h100_training_plan(), 1, machine_type="p6-b200.48xlarge", accelerator="b200", efa_interfaces=8,
                     local_nvme_gb=30720.0)
    with pytest.raises(InputError, match="not offered in us-east-1a"):
        record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS),
               config={"accelfit:awsZoneIds": '{"us-east-1a": "use1-az1", "us-east-1b": "use1-az6"}'})
