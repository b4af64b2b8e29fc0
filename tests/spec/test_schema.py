"""`accelfit schema` is what editors validate specs with: it must accept the project's own syntax (sizes such as
70B as strings) for every example and every stack's workload, and still refuse what the loader refuses."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from accelfit.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
INVENTORIES = sorted([*(ROOT / "examples" / "inventories").glob("*.yaml"), *(ROOT / "stacks" / "inventories").glob("*.yaml")])


def _schema(capsys, *args: str) -> jsonschema.Draft202012Validator:
    assert main(["schema", *args]) == 0
    document = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def _errors(validator, document) -> list[str]:
    return [error.message for error in validator.iter_errors(document)]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates_against_the_schema(path, capsys):
    assert _errors(_schema(capsys), yaml.safe_load(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_every_stack_workload_validates_against_the_schema(path, capsys):
    config = yaml.safe_load(path.read_text(encoding="utf-8"))["config"]
    validator = _schema(capsys)
    for workload in config.get("accelfit:workloads") or [config["accelfit:workload"]]:  # fleet form: every workload
        assert _errors(validator, workload) == []


@pytest.mark.parametrize("path", INVENTORIES, ids=lambda p: p.name)
def test_every_inventory_validates_against_the_inventory_schema(path, capsys):
    assert _errors(_schema(capsys, "--inventory"), yaml.safe_load(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize(("path", "value"), [
    (("model", "parameters"), "70 parsecs"), (("model", "parameters"), -5), (("training", "deadline_days"), 0),
    (("training", "deadline_days"), "30"), (("training", "deadline_days"), 5000), (("data", "dataset_tb"), -1),
    (("kind",), "trainng"),
])
def test_the_schema_still_refuses_bad_values(path, value, capsys):
    document = yaml.safe_load((ROOT / "examples" / "jax-pretrain.yaml").read_text(encoding="utf-8"))
    target = document
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value
    assert _errors(_schema(capsys), document)
