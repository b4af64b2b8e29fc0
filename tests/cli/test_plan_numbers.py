"""Numbers a reader can trust (issue 13): the chart with one option, its help against its axes, p99 with its
headroom, durations that never read "0 h", LoRA checkpoints sized from the adapter, and a monthly figure above a
short run's total said with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.cli.main import main
from accelfit.planner import Environment, evaluate_spec, plan
from accelfit.planner.costing.option_costs import checkpoint_tb
from accelfit.durations import duration
from accelfit.reports.plan_report import render_text
from accelfit.spec import WorkloadSpec

ROOT = Path(__file__).parents[2]


def training(**overrides) -> WorkloadSpec:
    document = {"name": "one", "kind": "training", "framework": "pytorch",
                "model": {"parameters": "7B", "precision": "bf16"},
                "training": {"tokens": "20B", "deadline_days": 10},
                "placement": {"clouds": ["aws"], "regions": ["us-east-1"], "accelerators": ["h100-80gb"]},
                "budget": {"pricing": "on-demand"}}
    document.update(overrides)
    return WorkloadSpec.model_validate(document)


def test_chart_with_one_option_puts_the_star_on_its_point(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    from accelfit.reports import plan_chart

    catalog = load_catalog()
    spec = training()
    chosen = plan(spec, catalog)
    evaluation, _ = evaluate_spec(spec, catalog, Environment())
    assert len(evaluation.feasible) == 1
    figures = []
    original = pyplot.close
    pyplot.close = figures.append  # keep the figure to inspect it
    try:
        plan_chart.write_chart(tmp_path / "one.svg", chosen, evaluation.feasible)
    finally:
        pyplot.close = original
    axes = figures[0].axes[0]
    (point,), (star,) = (collection.get_offsets() for collection in axes.collections)
    assert tuple(point) == pytest.approx(tuple(star))
    low, high = axes.get_xlim()
    assert high - low > 0.3 * point[0]  # a readable span, not a micro-scale around one value
    assert axes.get_xlabel() == "training time (days)" and "run_total_usd" in axes.get_ylabel()


def test_chart_help_names_both_axes(capsys):
    assert main(["plan", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "total cost against training days (training), monthly cost against accelerators (inference)" in out


def test_durations_never_read_zero():
    assert duration(0.004) == "under a minute"
    assert duration(0.5) == "30 min" and duration(20.63) == "20.6 h"


def test_lora_checkpoints_are_sized_from_the_adapter():
    full = training(kind="fine-tuning", training={"tokens": "1B", "deadline_days": 1, "method": "full"})
    lora = training(kind="fine-tuning", training={"tokens": "1B", "deadline_days": 1, "method": "lora"})
    # Full: 14 bytes of state per parameter, three kept. LoRA: the frozen bf16 base once plus three adapter
    # checkpoints (1% of the parameters with their Adam state).
    assert checkpoint_tb(full) == pytest.approx(7e9 * 14 * 3 / 1e12)
    assert checkpoint_tb(lora) == pytest.approx((7e9 * 2 + 7e7 * 14 * 3) / 1e12)
    assert checkpoint_tb(lora) < checkpoint_tb(full) / 10


def test_p99_is_shown_with_its_headroom():
    spec = WorkloadSpec.model_validate({
        "name": "serve", "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "8B", "precision": "bf16"},
        "inference": {"requests_per_second": 5, "input_tokens": 512, "output_tokens": 128,
                      "latency_p99_ms": 30000, "traffic": "variable", "hours_per_day": 24},
        "placement": {"clouds": ["gcp"], "accelerators": ["l4"]}})
    chosen = plan(spec, load_catalog())
    headroom = chosen.estimate.latency_headroom
    assert headroom == pytest.approx((30000 - chosen.estimate.latency_p99_ms) / 30000, abs=1e-3)
    assert f"against a 30,000 ms target ({headroom:.0%} headroom)" in render_text(chosen)


def test_a_monthly_figure_above_a_short_runs_total_says_why():
    chosen = plan(training(), load_catalog())
    assert chosen.estimate.monthly_usd > chosen.estimate.run_total_usd
    text = render_text(chosen)
    assert "is above the run total" in text and "bill all month while the stack exists" in text
    assert " 0 h " not in text and "0 h run" not in text
