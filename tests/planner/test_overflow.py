"""A hybrid workload's cloud overflow priced at its hours: the stated hours move the price; hours derived from demand
are checked by hand; how a job moves names the dispatch round the manager is configured with."""

from __future__ import annotations

import pytest

from accelfit.planner.fleet.overflow import (
    DISPATCH_ROUND_MINUTES,
    demand_overflow_hours,
    moves_when,
    overflow_cost,
)

# 4 x a3-highgpu-8g at a made-up 88.25 USD per node-hour: 353 USD an hour for the pool.
POOL_HOURLY = 4 * 88.25


def test_the_stated_hours_move_the_price():
    at_100 = overflow_cost(pool_hourly_usd=POOL_HOURLY, hours_per_month=100)
    at_200 = overflow_cost(pool_hourly_usd=POOL_HOURLY, hours_per_month=200)
    assert at_100.monthly_usd == 35300.0 and at_200.monthly_usd == 70600.0
    assert at_100.full_scale_monthly_usd == at_200.full_scale_monthly_usd == round(POOL_HOURLY * 730, 2)
    assert at_100.basis == "stated" and "an assumption" in at_100.assumption and "100 h" in at_100.assumption


def test_hours_from_demand_by_hand():
    # 32 owned GPUs give 32 x 730 = 23,360 GPU-hours a month; a demand of 30,000 leaves 6,640 for the 32 cloud
    # GPUs: 207.5 hours of the overflow pool.
    assert demand_overflow_hours(30000, 32, 32) == pytest.approx(207.5)
    cost = overflow_cost(pool_hourly_usd=POOL_HOURLY, demand_accelerator_hours_per_month=30000,
                         owned_accelerators=32, overflow_accelerators=32)
    assert cost.basis == "demand" and cost.hours_per_month == 207.5
    assert cost.monthly_usd == round(207.5 * POOL_HOURLY, 2)
    assert "30000 accelerator-hours" in cost.assumption


def test_demand_the_owned_servers_cover_runs_nothing_in_the_cloud_and_the_month_caps_it():
    assert demand_overflow_hours(20000, 32, 32) == 0.0
    assert demand_overflow_hours(10**7, 32, 32) == 730.0


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"hours_per_month": 731}, "between 0 and 730"),
    ({"hours_per_month": -1}, "between 0 and 730"),
    ({}, "give hours_per_month"),
])
def test_hours_outside_the_month_or_none_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        overflow_cost(pool_hourly_usd=POOL_HOURLY, **kwargs)


def test_how_a_job_moves_names_the_round():
    text = moves_when("lab-rack-a", "gke-us-central1", 32)
    assert text.index("lab-rack-a") < text.index("gke-us-central1")
    assert f"after {DISPATCH_ROUND_MINUTES} minutes" in text and "32 owned accelerators" in text
