"""Every plan states its margin: training finishes deadline_margin_pct early, serving keeps its modelled p99
headroom_pct under the target."""

import pytest

from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.planner import NoFeasiblePlan, plan


@pytest.mark.parametrize("margin", [10, 30])
def test_training_finishes_with_the_margin_to_spare(catalog, margin):
    spec = make_spec(TRAINING, training__deadline_days=14, training__deadline_margin_pct=margin)
    result = plan(spec, catalog)
    assert result.estimate.hours <= 14 * 24 * (1 - margin / 100)
    stated = next(reason for reason in result.reasons if reason.startswith("Margin:"))
    assert f"asks for {margin}%" in stated


def test_a_larger_margin_can_need_more_accelerators(catalog):
    tight = make_spec(TRAINING, training__tokens="1T", training__deadline_days=10,
                      training__deadline_margin_pct=0, placement__accelerators=["h100-80gb"])
    wide = make_spec(TRAINING, training__tokens="1T", training__deadline_days=10,
                     training__deadline_margin_pct=40, placement__accelerators=["h100-80gb"])
    assert plan(wide, catalog).accelerator.count > plan(tight, catalog).accelerator.count


@pytest.mark.parametrize("headroom", [0, 20, 50])
def test_serving_p99_stays_under_the_target_by_the_headroom(catalog, headroom):
    spec = make_spec(INFERENCE, inference__headroom_pct=headroom)
    result = plan(spec, catalog)
    assert result.estimate.latency_p99_ms <= 4000 * (1 - headroom / 100)
    stated = next(reason for reason in result.reasons if reason.startswith("Margin:"))
    assert f"asks for {headroom}%" in stated


def test_no_plan_says_how_far_to_relax_with_the_headroom(catalog):
    spec = make_spec(INFERENCE, inference__latency_p99_ms=50, placement__accelerators=["l4"])
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(spec, catalog)
    assert "headroom" in failure.value.message and "inference.headroom_pct" in failure.value.message


def test_smallest_tensor_parallel_group_that_meets_the_target(catalog):
    """An 8B model with a loose target on an 8-GPU node: replicas of the smallest group, not one group of 8."""
    spec = make_spec(INFERENCE, inference__latency_p99_ms=30000, inference__requests_per_second=30,
                     placement__accelerators=["a100-40gb"], placement__clouds=["gcp"])
    result = plan(spec, catalog)
    assert result.accelerator.count // result.estimate.replicas == 1
