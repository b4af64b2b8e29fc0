"""Training efficiency by precision and accelerator generation: FP8/FP4 runs are faster than BF16 where a published
speed-up says so (data/training_efficiency.yaml), never by the doubled peak alone, and the whole-run overhead stays a
separate, stated term."""

import pytest

from planner_specs import TRAINING, make_spec

from accelfit.catalog.models import Precision
from accelfit.planner import plan
from accelfit.planner import preferences as pref
from accelfit.planner.training.efficiency import precision_speedup, training_efficiency_data


def hours(catalog, accelerator, precision, parameters="70B"):
    spec = make_spec(TRAINING, framework="pytorch", model__parameters=parameters, model__precision=precision,
                     training__tokens="1T", training__deadline_days=365, placement__accelerators=[accelerator])
    return plan(spec, catalog).estimate


@pytest.mark.parametrize(("accelerator", "precision", "speedup"), [
    ("h100-80gb", "fp8", 1.3),   # 70B: the 30B+ size class
    ("h200-141gb", "fp8", 1.3),
    ("b200", "fp8", 1.25),
    ("b200", "fp4", 1.6),
])
def test_low_precision_training_is_faster_by_the_published_speedup(catalog, accelerator, precision, speedup):
    bf16 = hours(catalog, accelerator, "bf16")
    low = hours(catalog, accelerator, precision)
    # Accelerator-hours fall by the speed-up (the count may differ: memory and the deadline set it).
    assert bf16.accelerator_hours / low.accelerator_hours == pytest.approx(speedup, rel=0.12)


def test_fp4_is_faster_than_fp8_on_b200(catalog):
    assert hours(catalog, "b200", "fp4").accelerator_hours < hours(catalog, "b200", "fp8").accelerator_hours


def test_size_class_picks_the_row(catalog):
    small = precision_speedup("h100-80gb", Precision.fp8, 8e9)
    large = precision_speedup("h100-80gb", Precision.fp8, 70e9)
    assert small.value == 1.25 and large.value == 1.3


def test_fp8_without_a_published_speedup_runs_at_the_bf16_rate(catalog):
    """L4 has FP8 tensor cores but no published FP8 training speed-up: planned at the BF16 rate, and said so."""
    spec = make_spec(TRAINING, framework="pytorch", model__parameters="1B", model__precision="fp8",
                     training__tokens="20B", training__deadline_days=365, placement__accelerators=["l4"])
    result = plan(spec, catalog)
    assert any("no published fp8 training speed-up" in reason for reason in result.reasons)
    bf16 = plan(make_spec(TRAINING, framework="pytorch", model__parameters="1B", training__tokens="20B",
                          training__deadline_days=365, placement__accelerators=["l4"]), catalog)
    assert result.estimate.accelerator_hours == pytest.approx(bf16.estimate.accelerator_hours, rel=0.02)


def test_fp4_needs_blackwell(catalog):
    spec = make_spec(TRAINING, model__precision="fp4", placement__accelerators=["h100-80gb", "b200"])
    result = plan(spec, catalog)
    assert result.accelerator.name == "b200"
    assert any(rejection.rule == "precision" and "h100" in rejection.option for rejection in result.rejected)


def test_every_efficiency_row_is_sourced_and_b200_has_its_own():
    data = training_efficiency_data()
    rows = [*data.precision_speedups, *data.moe, *data.other_models]
    assert all(row.source and row.as_of for row in rows)
    assert any(row.accelerator == "b200" for row in data.precision_speedups)
    assert any(row.accelerator == "b200" for row in data.moe)


def test_whole_run_overhead_is_a_separate_stated_term(catalog):
    spec = make_spec(TRAINING, model__precision="fp8", placement__accelerators=["h100-80gb"])
    result = plan(spec, catalog)
    training = next(reason for reason in result.reasons if reason.startswith("Training:"))
    assert f"separate {pref.TRAINING_OVERHEAD_FRACTION:.0%} whole-run overhead" in training
    efficiency = next(reason for reason in result.reasons if reason.startswith("Efficiency:"))
    assert "fp8 x1.25 over BF16" in efficiency
