"""`accelfit calibrate` goes through the planner's current serving model (planner/serving/sizing.py: the replica under
load with vLLM's scheduler limits, queueing included), so a plan of the measured deployment at the measured p99 carries
the measured rate. It went through the older no-queue batch search (sizing.best_batch), whose figure (0.54 of the
L4's bandwidth here, against 0.75 now) made the same plan choose another layout carrying twice the rate."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from accelfit.calibration.compute import measure_runs, team_file
from accelfit.calibration.measurements import MeasuredRun
from accelfit.catalog import load_catalog
from accelfit.planner import Environment, plan
from accelfit.spec import WorkloadSpec


def test_a_plan_of_the_measured_deployment_carries_the_measured_rate():
    catalog = load_catalog()
    run = MeasuredRun.model_validate({
        "kind": "serving", "accelerator": "l4", "count": 2, "model": "8B", "precision": "bf16",
        "requests_per_second": 3.0, "input_tokens": 512, "output_tokens": 128, "latency_p99_ms": 8000,
        "tensor_parallel": 2})
    team = team_file(measure_runs([("rows[0]", run)], catalog, "runs.csv"), "runs.csv", None, dt.date(2026, 11, 28))
    spec = WorkloadSpec.model_validate({
        "name": "chat", "kind": "inference", "framework": "pytorch", "model": {"parameters": "8B", "precision": "bf16"},
        "inference": {"requests_per_second": 3.0, "input_tokens": 512, "output_tokens": 128, "latency_p99_ms": 8000,
                      "headroom_pct": 0, "peak_factor": 1, "traffic": "steady"},
        "placement": {"clouds": ["aws"], "accelerators": ["l4"]}})
    result = plan(spec, catalog, Environment(efficiency=team))
    serving = next(reason for reason in result.reasons if reason.startswith("Serving"))
    group = int(re.search(r"replicas of (\d+) × l4", serving).group(1))
    per_replica = float(re.search(r"about ([0-9.]+) req/s each", serving).group(1))
    assert group == run.tensor_parallel
    assert per_replica == pytest.approx(3.0, rel=0.02)
