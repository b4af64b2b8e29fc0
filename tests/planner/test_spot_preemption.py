"""The spot preemption overhead: sourced data (accelfit/planner/data/spot_preemption.yaml) that drives a spot plan's
run time, its cost and the text that states it."""

from __future__ import annotations

import pytest
import yaml

from accelfit.catalog import load_catalog
from accelfit.planner import plan
from accelfit.planner import preferences as pref
from accelfit.spec import WorkloadSpec

SPOT_LORA = {"name": "lora-ft", "kind": "fine-tuning", "framework": "pytorch",
             "model": {"parameters": "8B", "precision": "bf16"},
             "training": {"tokens": "200M", "deadline_days": 2, "method": "lora", "command": "python train.py"},
             "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "orchestration": "vms",
                           "accelerators": ["l4"]},
             "budget": {"pricing": "spot"}}


def test_the_overhead_is_the_sourced_row():
    data = yaml.safe_load(pref.SPOT_PREEMPTION_DATA.read_text(encoding="utf-8"))
    assert data["overhead_fraction"] == pref.SPOT_TRAINING_OVERHEAD_FRACTION
    assert data["as_of"] and "instance-advisor" in data["source"] and data["verified"] is False


def test_the_overhead_drives_the_run_time_the_cost_and_the_reason(monkeypatch):
    catalog = load_catalog()
    spec = WorkloadSpec.model_validate(SPOT_LORA)
    base = plan(spec, catalog)
    monkeypatch.setattr(pref, "SPOT_TRAINING_OVERHEAD_FRACTION", pref.SPOT_TRAINING_OVERHEAD_FRACTION + 0.25)
    more = plan(spec, catalog)
    assert more.gpu_vm.machine_type == base.gpu_vm.machine_type
    whole = 1 + pref.TRAINING_OVERHEAD_FRACTION
    assert more.estimate.hours / base.estimate.hours == pytest.approx((whole + 0.40) / (whole + 0.15), rel=1e-6)
    assert more.estimate.total_usd > base.estimate.total_usd
    assert any("preemptions cost 40% extra" in reason and "spot_preemption.yaml" in reason for reason in more.reasons)
