"""Filestore share sizes follow each tier's real bands and steps (filestore_capacity.yaml), in the planner and
in the components' check before anything is created."""

from __future__ import annotations

import pytest
from planner_specs import TRAINING, make_spec

from accelfit.planner.costing import filestore_capacity as capacity
from accelfit.planner import plan


@pytest.mark.parametrize(("tier", "wanted", "planned"), [
    ("ZONAL", 18626.5, 20480),    # a 20 TB dataset: 2.5 TiB steps above 10 TiB (was 19456, which the API refuses)
    ("ZONAL", 100, 1024),         # smallest Zonal share
    ("ZONAL", 1025, 1280),        # 256 GiB steps below 10 TiB
    ("ZONAL", 9985, 10240),       # past 9.75 TiB the next size is 10 TiB
    ("REGIONAL", 50, 100),        # Regional starts at 100 GiB, not 1024
    ("ENTERPRISE", 9300, 9472),
    ("BASIC_SSD", 100, 2560),
])
def test_round_up_lands_on_a_size_the_tier_accepts(tier, wanted, planned):
    assert capacity.round_up_gib(tier, wanted) == planned
    assert capacity.capacity_problem(tier, planned) is None


@pytest.mark.parametrize(("tier", "gib"), [
    ("ZONAL", 19456), ("ZONAL", 1100), ("ZONAL", 512), ("ZONAL", 110000), ("REGIONAL", 99),
    ("REGIONAL", 11000), ("HIGH_SCALE_SSD", 5000), ("BASIC_SSD", 2048),
])
def test_sizes_off_the_tiers_steps_are_refused(tier, gib):
    reason = capacity.capacity_problem(tier, gib)
    assert reason is not None and tier in reason and "cloud.google.com/filestore" in reason
    assert capacity.capacity_fix(tier, gib)


def test_every_planned_filestore_size_is_one_the_tier_accepts(catalog):
    planned = []
    for dataset_tb in (2, 5, 9, 10.5, 11, 20, 50, 99, 150):
        spec = make_spec(TRAINING, data__dataset_tb=dataset_tb, model__parameters="70B", training__tokens="1T",
                         training__deadline_days=14, placement__clouds=["gcp"], placement__accelerators=["h100-80gb"])
        storage = plan(spec, catalog).storage
        if storage.shared_filesystem == "filestore":
            assert capacity.capacity_problem(storage.filestore_tier, storage.filesystem_capacity_gib) is None, \
                (dataset_tb, storage.filesystem_capacity_gib)
            planned.append(storage.filesystem_capacity_gib)
    assert 20480 in planned and len(planned) >= 5  # the 20 TB dataset, and sizes in both Zonal bands
