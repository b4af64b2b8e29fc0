"""TPU zone availability is its own dated, sourced data (Google's TPU regions-zones page), never derived from
prices (the planner's use of it: tests/planner/test_tpu_zone_choice.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelfit.catalog import Catalog, load_catalog
from accelfit.errors import InputError

PAGE = "https://cloud.google.com/tpu/docs/regions-zones"


@pytest.mark.parametrize(("generation", "zones"), [
    # The North America table of the page, read 2026-11-23.
    ("tpu-v6e", ("europe-west4-a", "us-central1-b", "us-east1-d", "us-east5-a", "us-east5-b")),
    ("tpu-v5p", ("us-central1-a", "us-east5-a")),
    ("tpu-v5e", ("us-central1-a", "us-south1-a", "us-west1-c", "us-west4-a")),
    ("tpu-v4", ("us-central2-b",)),
])
def test_each_generation_is_available_where_googles_page_lists_it(catalog: Catalog, generation, zones):
    assert catalog.available_zones(generation) == zones
    for zone in zones:
        row = catalog.zone_listing(generation, zone)
        assert row is not None and PAGE in row.source and row.as_of.isoformat() == "2026-11-23"


@pytest.mark.parametrize(("generation", "zone"), [
    ("tpu-v6e", "us-central1-a"),   # the zone dev/staging/prod used before (a price row, not availability)
    ("tpu-v5p", "us-east1-d"), ("tpu-v5p", "us-south1-b"), ("tpu-v5e", "us-east1-b"), ("tpu-v5e", "us-east4-b"),
])
def test_zones_that_only_a_price_row_implied_are_not_available(catalog: Catalog, generation, zone):
    assert catalog.zone_listing(generation, zone) is None


def test_aliases_find_the_generation(catalog: Catalog):
    assert catalog.available_zones("v5litepod") == catalog.available_zones("tpu-v5e")


def test_a_duplicate_availability_row_is_a_catalog_problem(data_copy: Path):
    path = data_copy / "tpu_availability.yaml"
    lines = path.read_text().splitlines()
    row = next(line for line in lines if "region: us-central2," in line)
    path.write_text("\n".join([*lines, row]) + "\n")
    with pytest.raises(InputError) as caught:
        load_catalog(data_copy)
    assert any(item.field.endswith(".region") and "duplicate" in item.message for item in caught.value.problems)
