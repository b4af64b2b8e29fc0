"""The shipped AWS availability and price rows against the upstream file they were read from, and the integrity rule
that an AWS availability row names where it was read.

Pinned values: yottalabsai/skypilot-catalog catalogs/v8/aws/vms.csv @60441f0b4069af92620ac10cb8ee95d770d6c9fb (a
copy of SkyPilot's v8 AWS catalog; rows per instance type x AZ ID from EC2 DescribeInstanceTypeOfferings, Price
from the EC2 Price List, SpotPrice per zone), read 2026-11-23. Each case quotes the upstream rows it checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelfit.catalog import Catalog, load_catalog
from accelfit.catalog.models import Cloud
from accelfit.errors import InputError

UPSTREAM = "yottalabsai/skypilot-catalog catalogs/v8/aws/vms.csv @60441f0b4069af92620ac10cb8ee95d770d6c9fb"


# (sku, region, on-demand Price, spot = highest standard-AZ SpotPrice below the spot cap, or None)
@pytest.mark.parametrize(("sku", "region", "on_demand", "spot"), [
    # g4dn.12xlarge eu-west-1: euw1-az1 4.362/1.9525, az2 4.362/2.0397, az3 4.362/1.9008
    ("g4dn.12xlarge", "eu-west-1", 4.362, 2.0397),
    # g4dn.4xlarge ap-southeast-1: apse1-az1 1.685/0.7563, az2 1.685/0.7777, az3 1.685/0.6667
    ("g4dn.4xlarge", "ap-southeast-1", 1.685, 0.7777),
    # g5.48xlarge eu-central-1: euc1-az1 20.3681/9.2348, az2 20.3681/20.3681 (at the cap: left out), az3 .../6.3892
    ("g5.48xlarge", "eu-central-1", 20.3681, 9.2348),
    # g5.48xlarge ap-northeast-1: apne1-az1 and az4 23.62246/23.6225, both at the cap: no spot row
    ("g5.48xlarge", "ap-northeast-1", 23.62246, None),
    # g6.48xlarge ap-south-1: aps1-az1 16.0311/3.7193, aps1-az3 16.0311/4.6059
    ("g6.48xlarge", "ap-south-1", 16.0311, 4.6059),
    # g6e.xlarge ap-northeast-1: apne1-az1 2.699/1.193, apne1-az4 2.699/1.1348
    ("g6e.xlarge", "ap-northeast-1", 2.699, 1.193),
    # p4d.24xlarge eu-west-1: euw1-az2 23.71569/9.5634 (the only zone)
    ("p4d.24xlarge", "eu-west-1", 23.71569, 9.5634),
    # p5.48xlarge us-west-1: usw1-az1 68.8/(no spot), usw1-az3 68.8/19.8326
    ("p5.48xlarge", "us-west-1", 68.8, 19.8326),
    # p5.48xlarge ap-northeast-2: apne2-az1 75.9552/(no spot): no spot row
    ("p5.48xlarge", "ap-northeast-2", 75.9552, None),
    # p5en.48xlarge eu-north-1: eun1-az1 67.72672/14.0199, eun1-az3 67.72672/8.6808
    ("p5en.48xlarge", "eu-north-1", 67.72672, 14.0199),
])
def test_added_prices_match_the_upstream_rows(catalog: Catalog, sku, region, on_demand, spot):
    on_demand_row = catalog.price(Cloud.aws, sku, region, "on-demand")
    assert on_demand_row is not None and on_demand_row.hourly_usd == pytest.approx(on_demand)
    assert UPSTREAM in on_demand_row.source and not on_demand_row.verified
    spot_row = catalog.price(Cloud.aws, sku, region, "spot")
    if spot is None:
        assert spot_row is None
    else:
        assert spot_row is not None and spot_row.hourly_usd == pytest.approx(spot)


def test_us_west_2_rows_that_reused_the_us_east_1_figure_are_replaced_by_read_ones(catalog: Catalog):
    assert not [row for row in catalog.prices if "reused" in row.source]
    # g6e.48xlarge us-west-2: usw2-az1..az4 Price 30.13118 (the reused row said 30.1312)
    row = catalog.price(Cloud.aws, "g6e.48xlarge", "us-west-2", "on-demand")
    assert row is not None and row.hourly_usd == pytest.approx(30.13118) and UPSTREAM in row.source


def test_p5e_has_no_on_demand_price_because_upstream_has_none(catalog: Catalog):
    # Every p5e.48xlarge row upstream has an empty Price (Capacity Blocks / reservations only).
    regions = [row.region for row in catalog.availability if row.sku == "p5e.48xlarge"]
    assert regions
    assert all(catalog.price(Cloud.aws, "p5e.48xlarge", region, "on-demand") is None for region in regions)


@pytest.mark.parametrize(("sku", "region", "zones"), [
    ("p6-b200.48xlarge", "us-east-1", ("use1-az6",)),
    ("p5en.48xlarge", "us-east-1", ("use1-az2", "use1-az6")),
    ("g6.xlarge", "us-east-1", ("use1-az1", "use1-az2", "use1-az4", "use1-az6")),
    ("g4dn.xlarge", "us-west-1", ("usw1-az1", "usw1-az3")),
    ("p4de.24xlarge", "us-west-2", ("usw2-az1", "usw2-az2", "usw2-az3")),
    ("p5e.48xlarge", "us-west-2", ("usw2-az3",)),
])
def test_zones_are_the_upstream_az_ids(catalog: Catalog, sku, region, zones):
    assert catalog.offered_zones(Cloud.aws, sku, region) == zones


@pytest.mark.parametrize(("sku", "region", "offered"), [
    ("p4d.24xlarge", "ap-south-1", True),      # aps1-az1..az3 upstream; the recalled list left it out
    ("g6.xlarge", "eu-north-1", True),         # eun1-az1, eun1-az2 upstream
    ("g5.xlarge", "ap-southeast-1", False),    # no ap-southeast-1 row upstream
    ("g4dn.xlarge", "sa-east-1", False),       # SkyPilot's fetcher does not query sa-east-1: no source, no row
])
def test_regions_follow_the_source(catalog: Catalog, sku, region, offered):
    assert (catalog.offered_zones(Cloud.aws, sku, region) is not None) is offered


def test_every_aws_availability_row_cites_the_upstream_commit_and_is_second_hand(catalog: Catalog):
    rows = [row for row in catalog.availability if row.cloud is Cloud.aws]
    assert rows
    assert all(UPSTREAM in row.source and not row.verified and row.zones for row in rows)


def _replace_first_aws_source(data_dir: Path, new_source: str, verified: str = "false") -> None:
    path = data_dir / "gpu_availability.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith("  - {cloud: aws,"))
    head = lines[index].split(", as_of:")[0]
    lines[index] = f'{head}, as_of: "2026-11-23", verified: {verified}, source: "{new_source}"}}\n'
    path.write_text("".join(lines), encoding="utf-8")


def test_an_aws_availability_row_without_a_source_fails_the_integrity_check(data_copy: Path):
    _replace_first_aws_source(data_copy, "regions recalled from AWS regional availability")
    with pytest.raises(InputError) as caught:
        load_catalog(data_copy)
    [found] = caught.value.problems
    assert found.field.endswith(".source") and "needs the source it was read from" in found.message
    assert "describe-instance-type-offerings" in found.fix


def test_a_repository_copy_cannot_be_marked_verified(data_copy: Path):
    _replace_first_aws_source(data_copy, f"{UPSTREAM}: zones are AZ IDs", verified="true")
    with pytest.raises(InputError) as caught:
        load_catalog(data_copy)
    [found] = caught.value.problems
    assert found.field.endswith(".verified") and "second-hand" in found.message


def test_a_row_read_from_the_ec2_api_may_be_verified(data_copy: Path):
    _replace_first_aws_source(data_copy, "aws ec2 describe-instance-type-offerings --location-type "
                              "availability-zone-id --region us-east-1, run 2026-11-23", verified="true")
    assert load_catalog(data_copy).availability
