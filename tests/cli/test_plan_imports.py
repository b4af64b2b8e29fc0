"""`accelfit plan` of a training spec imports nothing it does not use (issue 39): not the serving model, not the
inventory's models, not the preview's rate book, not Pulumi; the data files it does not read are not validated. A
serving spec does load the serving model, so the list below names modules a plan can need."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
_PROBE = """
import json, sys, contextlib, io
from accelfit.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["plan", sys.argv[1], "--json"])
from accelfit.planner.serving.traffic import ServingTrafficFacts
from accelfit.planner.training.efficiency import TrainingEfficiencyData
print(json.dumps({"code": code, "modules": sorted(sys.modules),
                  "built": {"ServingTrafficFacts": ServingTrafficFacts.__pydantic_complete__,
                            "TrainingEfficiencyData": TrainingEfficiencyData.__pydantic_complete__}}))
"""
SERVING_ONLY = ("accelfit.planner.serving.layout", "accelfit.planner.serving.sizing",
                "accelfit.planner.serving.load", "accelfit.planner.serving.engine_figures",
                "accelfit.planner.serving.replica")
NEVER_FOR_A_PLAN = ("accelfit.spec.inventory", "accelfit.pricing.rates", "accelfit.pricing.onprem",
                    "accelfit.preview", "components", "pulumi")


@pytest.fixture(scope="module")
def loaded() -> dict[str, dict]:
    found = {}
    for spec in ("jax-pretrain.yaml", "vllm-serving-gcp.yaml"):
        done = subprocess.run([sys.executable, "-c", _PROBE, f"examples/{spec}"], cwd=ROOT, capture_output=True,
                              text=True, check=True)
        found[spec] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_a_training_plan_loads_no_serving_inventory_rate_book_or_pulumi(loaded):
    training = loaded["jax-pretrain.yaml"]
    assert training["code"] == 0
    assert [name for name in SERVING_ONLY + NEVER_FOR_A_PLAN if name in training["modules"]] == []


def test_a_training_plan_builds_no_validator_for_the_serving_files_it_never_reads(loaded):
    assert loaded["jax-pretrain.yaml"]["built"] == {"ServingTrafficFacts": False, "TrainingEfficiencyData": False}


def test_a_serving_plan_does_load_the_serving_model(loaded):
    serving = loaded["vllm-serving-gcp.yaml"]
    assert serving["code"] == 0
    assert all(name in serving["modules"] for name in SERVING_ONLY)
    assert serving["built"]["ServingTrafficFacts"] is True
    assert [name for name in NEVER_FOR_A_PLAN if name in serving["modules"]] == []
