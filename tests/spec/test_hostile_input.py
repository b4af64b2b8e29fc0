"""Hostile and careless input: every case is an InputError (exit 2) naming the file and the field, never a
traceback, a hang or a silent misreading."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml

from accelfit.errors import InputError, problem
from accelfit.inputfile import read_text
from accelfit.jsonio import parse_json
from accelfit.spec import Inventory, WorkloadSpec
from accelfit.validation import validate
from accelfit.yamlio import parse_yaml, read_yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = yaml.safe_load((ROOT / "examples" / "llama2-7b-a100.yaml").read_text(encoding="utf-8"))
INVENTORY = yaml.safe_load((ROOT / "examples" / "inventories" / "lab-rack-a.yaml").read_text(encoding="utf-8"))


def _rendered(error: pytest.ExceptionInfo[InputError]) -> str:
    return error.value.render()


# --- files -------------------------------------------------------------------------------------------------------
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "spec.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_text(fifo)


@pytest.mark.parametrize(("make", "words"), [
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: (p.symlink_to(p.name + "2"), (p.parent / (p.name + "2")).symlink_to(p.name)), "symlink loop"),
    (lambda p: p.symlink_to("/dev/zero"), "not a regular file"),
    (lambda p: p.write_bytes(bytes(range(256))), "binary"),
    (lambda p: p.write_bytes("name: caf\xe9\n".encode("latin-1")), "not valid UTF-8 (byte offset 9)"),
    (lambda p: p.open("wb").truncate(20 * 1024 * 1024), "more than the"),
    (lambda p: None, "file not found"),
])
def test_odd_files_are_input_errors(tmp_path, make, words):
    path = tmp_path / "input.yaml"
    make(path)
    with pytest.raises(InputError) as error:
        read_yaml(path)
    assert words in _rendered(error)


def test_a_5000_character_path_is_an_input_error_with_a_bounded_message():
    with pytest.raises(InputError) as error:
        read_yaml("./" * 2500 + "spec.yaml")
    assert len(_rendered(error)) < 500


# --- YAML --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "words"), [
    ("a: " + "[" * 100_000 + "]" * 100_000, "nested too deep"),
    ("".join(" " * i + "a:\n" for i in range(200)), "nested too deep"),
    ("a: 1\nb: 2\na: 3\n", "duplicate key 'a' (first at line 1)"),
    ("n: " + "9" * 5000 + "\n", "5000-digit integer"),
    ("? [a, b]\n: 1\n", "mapping key must be a plain value"),
])
def test_yaml_refusals(text, words):
    with pytest.raises(InputError) as error:
        parse_yaml(text, "in.yaml")
    assert words in _rendered(error)


# Whichever layer notices first (our event check at depth 65, or libyaml's own scanner limit in newer PyYAML
# wheels), the user gets the same contract: exit 2, the file, the line, "nested too deep", no traceback.
@pytest.mark.parametrize(("text", "line"), [
    ("a: " + "[" * 100_000 + "]" * 100_000, "line 1"),  # flow: the libyaml bundled by newer PyYAML refuses it first
    ("a: " + "[" * 70 + "]" * 70, "line 1"),  # flow, under libyaml's limit: our check refuses it
    ("".join(" " * i + "a:\n" for i in range(200)), "line 65"),  # block mappings: the 65th level's line
])
def test_a_deep_document_is_exit_2_naming_the_file_and_line(tmp_path, text, line):
    import subprocess
    import sys

    deep = tmp_path / "deep.yaml"
    deep.write_text(text, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "accelfit.cli.main", "check", str(deep)], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    message = result.stderr + result.stdout
    assert "deep.yaml" in message and "nested too deep" in message and f"{line}:" in message


def test_an_alias_bomb_is_refused_quickly():
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    with pytest.raises(InputError, match="aliases expand the document"):
        parse_yaml("\n".join(lines) + "\nname: *a8\n", "bomb.yaml")


def test_a_few_aliases_are_fine():
    assert parse_yaml("base: &b {x: 1}\nother:\n  <<: *b\n  x: 2\ncopy: *b\n", "ok.yaml") == {
        "base": {"x": 1}, "other": {"x": 2}, "copy": {"x": 1}}


def test_sexagesimal_and_dates_stay_strings_and_are_then_refused_where_a_number_belongs():
    assert parse_yaml("d: 1:30\nw: 2026-11-23\n", "x.yaml") == {"d": "1:30", "w": "2026-11-23"}
    spec = copy.deepcopy(SPEC)
    spec["training"]["deadline_days"] = "1:30"
    with pytest.raises(InputError, match="not a string"):
        validate(WorkloadSpec, spec, "spec.yaml")


def test_problems_name_the_yaml_line():
    text = (ROOT / "examples" / "llama2-7b-a100.yaml").read_text(encoding="utf-8").replace(
        "deadline_days: 21", "deadline_days: -2")
    assert "deadline_days: -2" in text
    line = next(index for index, row in enumerate(text.splitlines(), 1) if "deadline_days" in row)
    with pytest.raises(InputError) as error:
        validate(WorkloadSpec, parse_yaml(text, "line-test.yaml"), "line-test.yaml")
    assert f"training.deadline_days (line {line}): out of range: allowed is more than 0 and at most 3,650 " \
           f"(got -2)" in _rendered(error)


# --- JSON --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "words"), [
    ('{"a": NaN}', "NaN is not a JSON number"), ('{"a": Infinity}', "Infinity is not a JSON number"),
    ('{"a": 1e400}', "too large"), ('{"a": ' + "9" * 5000 + "}", "5000-digit"),
    ("[" * 100_000 + "]" * 100_000, "nested too deep"), ('{"a": ', "not valid JSON"),
])
def test_json_refusals(text, words):
    with pytest.raises(InputError) as error:
        parse_json(text, "doc.json", "regenerate it")
    assert words in _rendered(error)


# --- numbers -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "value", "words"), [
    ("training.deadline_days", True, "not a boolean"),
    ("training.deadline_days", "30", "not a string"),
    ("training.deadline_days", float("inf"), "finite"),
    ("training.deadline_days", 10**400, "finite number"),
    ("training.tokens", 10**400, "far too large"),
    ("training.tokens", "1e400", "finite"),
    ("model.parameters", True, "boolean"),
    ("model.parameters", 1e39, "allowed is more than 0 and at most 1,000,000,000,000,000"),
    ("model.layers", 1e39, "whole number"),
    ("model.layers", 5000, "at most 1,000"),
    ("model.layers", True, "not a boolean"),
    ("data.dataset_tb", True, "boolean"),
    ("budget.max_monthly_usd", float("nan"), "finite"),
])
def test_numbers_are_strict_and_bounded(field, value, words):
    spec = copy.deepcopy(SPEC)
    section, name = field.split(".")
    spec.setdefault(section, {})[name] = value
    with pytest.raises(InputError) as error:
        validate(WorkloadSpec, spec, "spec.yaml")
    assert field in _rendered(error) and words in _rendered(error)


def test_error_output_is_bounded():
    spec = {**SPEC, **{f"key{i}": i for i in range(50_000)}, "k" * 100_000: 1}
    with pytest.raises(InputError) as error:
        validate(WorkloadSpec, spec, "spec.yaml")
    assert len("\n".join(error.value.lines())) < 10_000
    assert "more problems" in error.value.lines()[-1]
    assert len(problem("f", "x", "m", "fix", "v" * 100_000).render()) < 400


# --- spec values -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "value", "words"), [
    ("regions", ["us-central-1"], "did you mean 'us-central1'"),
    ("regions", ["us-céntral1"], "did you mean 'us-central1'"),
    ("regions", ["mars-north1"], "not a region of any cloud"),
    ("accelerators", ["a100 80gb"], "did you mean 'a100-80gb'"),
    ("inventory", "", "at least 1 character"),
])
def test_spec_values_that_used_to_pass(field, value, words):
    spec = copy.deepcopy(SPEC)
    spec.setdefault("placement", {})[field] = value
    if field == "inventory":
        spec["placement"]["deployment"] = "any"
    with pytest.raises(InputError) as error:
        validate(WorkloadSpec, spec, "spec.yaml")
    assert words in _rendered(error)


def test_a_region_of_a_cloud_the_spec_excludes_is_named():
    spec = copy.deepcopy(SPEC)
    spec["placement"] = {"clouds": ["gcp"], "regions": ["us-east-1"]}
    with pytest.raises(InputError, match="us-east-1 is a aws region but clouds is"):
        validate(WorkloadSpec, spec, "spec.yaml")


# --- inventories -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("address", ["gpu-01\n", "999.999.999.999", "010.000.000.001", "10.0.1", "gpu_01", "",
                                     "a" * 300])
def test_bad_addresses(address):
    inventory = copy.deepcopy(INVENTORY)
    inventory["servers"][0]["address"] = address
    with pytest.raises(InputError, match=r"servers\[0\]\.address"):
        validate(Inventory, inventory, "inv.yaml")


@pytest.mark.parametrize(("one", "other"), [("fd00::1", "fd00:0:0:0:0:0:0:1"), ("GPU-01.lab", "gpu-01.lab"),
                                            ("10.20.0.11", "::ffff:10.20.0.11")])
def test_duplicate_addresses_spelt_differently(one, other):
    inventory = copy.deepcopy(INVENTORY)
    first = inventory["servers"][0]
    inventory["servers"] = [{**first, "address": one}, {**first, "name": "gpu-99", "address": other}]
    with pytest.raises(InputError, match="already used by servers"):
        validate(Inventory, inventory, "inv.yaml")


def test_a_label_value_with_a_trailing_newline_is_refused():
    inventory = copy.deepcopy(INVENTORY)
    inventory["servers"][0]["labels"] = {"rack": "r1\n"}
    with pytest.raises(InputError, match="labels"):
        validate(Inventory, inventory, "inv.yaml")
