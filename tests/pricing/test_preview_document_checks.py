"""`accelfit cost --pulumi-preview`: a preview document with mistyped inputs is refused before pricing, naming the
step, the resource and the field (exit 2), never a traceback in the pricer."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.pricing.pulumi_preview import resources_from_preview

ROOT = Path(__file__).resolve().parents[2]
PREVIEW = json.loads((ROOT / "tests" / "fixtures" / "pulumi-preview-dev.json").read_text(encoding="utf-8"))
POOL = "gcp:container/nodePool:NodePool"


def _with(path: str, value) -> dict:
    document = copy.deepcopy(PREVIEW)
    step = next(step for step in document["steps"] if step.get("newState", {}).get("type") == POOL)
    target = step["newState"]["inputs"]
    parts = path.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value
    return document


@pytest.mark.parametrize(("path", "value", "words"), [
    ("nodeCount", "3", "expected a number from 0"), ("nodeCount", True, "a boolean"),
    ("nodeCount", float("inf"), "non-finite"), ("nodeCount", -1, "the number -1"),
    ("nodeConfig", [], "expected a map, found a list"), ("nodeConfig.machineType", 5, "a short name"),
    ("autoscaling.totalMaxNodeCount", "ten", "expected a number"), ("nodeLocations", "us-central1-a", "a list"),
    ("location", "a", "a region or zone name"), ("nodeConfig.spot", "yes", "true or false"),
])
def test_mistyped_priced_inputs_are_named(path, value, words):
    with pytest.raises(InputError) as error:
        resources_from_preview(_with(path, value), "preview.json")
    rendered = error.value.render()
    assert words in rendered and f"inputs.{path}" in rendered and "steps[" in rendered


def test_inputs_that_are_not_a_map_are_refused():
    document = copy.deepcopy(PREVIEW)
    step = next(step for step in document["steps"] if step.get("newState", {}).get("type") == POOL)
    step["newState"]["inputs"] = []
    with pytest.raises(InputError, match="expected a map of inputs, found a list"):
        resources_from_preview(document, "preview.json")


def test_the_real_document_still_prices(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["cost", "--pulumi-preview", str(ROOT / "tests/fixtures/pulumi-preview-dev.json"), "--stack", "dev",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resources"]


def test_nan_in_the_file_is_refused(tmp_path, monkeypatch, capsys):
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(_with("nodeCount", "X")).replace('"X"', "NaN"), encoding="utf-8")
    monkeypatch.chdir(ROOT)
    assert main(["cost", "--pulumi-preview", str(path), "--stack", "dev"]) == 2
    assert "NaN is not a JSON number" in capsys.readouterr().err
