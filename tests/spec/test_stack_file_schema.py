"""`accelfit schema --stack-file` (and `--fleet`): the JSON Schema of whole stack files, built from the key table
(accelfit.stackkeys) and the spec's models. check-jsonschema (from the lock) and jsonschema accept every shipped
stack and refuse the known-bad ones, each of which the loader refuses too (exit 2)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from accelfit.cli.main import main
from accelfit.stackfile import PROJECT_KEYS
from accelfit.stackkeys import PROVIDER_KEYS
from accelfit.stackrules import AFTER_PLAN, BEFORE_PLAN

ROOT = Path(__file__).resolve().parents[2]
STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
FLEETS = [path for path in STACKS if "accelfit:workloads" in yaml.safe_load(path.read_text(encoding="utf-8"))["config"]]
SINGLE = ROOT / "stacks" / "Pulumi.example-gcp-vllm-serving.yaml"
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"


def _document(capsys, *flags: str) -> dict:
    assert main(["schema", *flags]) == 0
    document = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator.check_schema(document)
    return document


def _errors(document: dict, stack: dict) -> list[str]:
    return [error.message for error in jsonschema.Draft202012Validator(document).iter_errors(stack)]


def _stack(path: Path = SINGLE) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_check_jsonschema_accepts_every_shipped_stack(capsys, tmp_path):
    schema = tmp_path / "stack.schema.json"
    schema.write_text(json.dumps(_document(capsys, "--stack-file")), encoding="utf-8")
    result = subprocess.run([str(CHECK_JSONSCHEMA), "--schemafile", str(schema), *map(str, STACKS)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(STACKS) >= 15 and FLEETS


def test_check_jsonschema_refuses_a_bad_stack(capsys, tmp_path):
    """The same tool the way a user runs it, on a file with a typo'd key: it fails, naming the file."""
    schema = tmp_path / "stack.schema.json"
    schema.write_text(json.dumps(_document(capsys, "--stack-file")), encoding="utf-8")
    stack = _stack()
    stack["config"]["accelfit:enviroment"] = "prod"
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text(yaml.safe_dump(stack), encoding="utf-8")
    result = subprocess.run([str(CHECK_JSONSCHEMA), "--schemafile", str(schema), str(bad)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Pulumi.bad.yaml" in result.stdout + result.stderr


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_every_shipped_stack_validates(path, capsys):
    assert _errors(_document(capsys, "--stack-file"), _stack(path)) == []


@pytest.mark.parametrize("path", FLEETS, ids=lambda p: p.name)
def test_fleet_schema_describes_the_whole_fleet_stack_file(path, capsys):
    """`schema --fleet` described the `config:` keys, so check-jsonschema failed the shipped fleet stack."""
    document = _document(capsys, "--fleet")
    assert _errors(document, _stack(path)) == []
    assert _errors(document, _stack(SINGLE))  # the fleet form only


BAD = {
    "unknown accelfit key": ("accelfit:enviroment", "prod"),
    "team not a label value": ("accelfit:team", "Research LLM"),
    "team of the wrong type": ("accelfit:team", 5),
    "unknown environment": ("accelfit:environment", "qa-typo"),
    "requireLock not a boolean": ("accelfit:requireLock", "maybe"),
    "eks endpoint access": ("accelfit:eksEndpointAccess", "open"),
    "controlPlane unknown field": ("accelfit:controlPlane", {"authorizedCidrs": [], "dns": True}),
    "kubernetesVersion as a number": ("accelfit:kubernetesVersion", 1.3),
    "joinCaCertHash": ("accelfit:joinCaCertHash", "md5:abc"),
    "teamNamespaces empty": ("accelfit:teamNamespaces", []),
    "gcp project id": ("gcp:project", "Acme_ML"),
    "gcp region unknown": ("gcp:region", "us-central-1"),
    "gcp zone not a zone": ("gcp:zone", "us-central1"),
    "secure with another key": ("accelfit:team", {"secure": "v1:abc", "plain": "x"}),
    "fleet name in a single stack": ("accelfit:fleet", "ml-platform"),
    "both forms": ("accelfit:workloads", "COPY"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_stack_key_is_refused(case, capsys):
    key, value = BAD[case]
    stack = _stack()
    stack["config"][key] = [stack["config"]["accelfit:workload"]] if value == "COPY" else value
    assert _errors(_document(capsys, "--stack-file"), stack)


@pytest.mark.parametrize(("field", "value"), [("kind", "serving"), ("name", "Not_A_Label"), ("framework", 7)])
def test_a_bad_workload_field_is_refused(field, value, capsys):
    stack = _stack()
    stack["config"]["accelfit:workload"][field] = value
    assert _errors(_document(capsys, "--stack-file"), stack)


@pytest.mark.parametrize("edit", ["missing team", "no workload", "unknown top-level key", "config as a list"])
def test_a_bad_stack_file_shape_is_refused(edit, capsys):
    stack = _stack()
    if edit == "missing team":
        del stack["config"]["accelfit:team"]
    elif edit == "no workload":
        del stack["config"]["accelfit:workload"]
    elif edit == "unknown top-level key":
        stack["secretprovider"] = "passphrase"
    else:
        stack["config"] = list(stack["config"])
    assert _errors(_document(capsys, "--stack-file"), stack)


def test_secure_values_and_other_providers_keys_are_accepted(capsys):
    stack = _stack()
    stack["config"].update({"accelfit:team": {"secure": "v1:AAAA"}, "accelfit:hfToken": {"secure": "v1:BBBB"},
                            "gcp:credentials": {"secure": "v1:CCCC"}, "kubernetes:context": "prod",
                            "accelfit:requireLock": "True"})
    stack.update(secretsprovider="passphrase", encryptionsalt="v1:salt")
    assert _errors(_document(capsys, "--stack-file"), stack) == []


def test_the_schema_names_every_key_the_loader_and_the_stack_rules_read(capsys):
    """One table: every key the loader knows and every key a stack rule reads is a property of the schema."""
    properties = _document(capsys, "--stack-file")["$defs"]["Config"]["properties"]
    read = {f"accelfit:{key}" if ":" not in key else key
            for check in (*BEFORE_PLAN, *AFTER_PLAN) for key in check.keys}
    assert {f"accelfit:{key}" for key in PROJECT_KEYS} | {key.name for key in PROVIDER_KEYS} == set(properties)
    assert read <= set(properties)


@pytest.mark.parametrize("case", ["unknown accelfit key", "requireLock not a boolean", "unknown environment",
                                  "gcp region unknown", "eks endpoint access"])
def test_what_the_schema_refuses_the_loader_refuses(case, tmp_path, monkeypatch, capsys):
    """The schema is not a second, stricter or looser, rule set: `accelfit check` refuses the same files (exit 2)."""
    project = tmp_path / "project"
    (project / "stacks").mkdir(parents=True)
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    key, value = BAD[case]
    stack = copy.deepcopy(_stack())
    stack["config"][key] = value
    path = project / "stacks" / "Pulumi.bad.yaml"
    path.write_text(yaml.safe_dump(stack), encoding="utf-8")
    monkeypatch.chdir(project)
    assert main(["check", str(path)]) == 2
    assert key in capsys.readouterr().err


def _patterns(node) -> list[str]:
    if isinstance(node, dict):
        return [*([node["pattern"]] if isinstance(node.get("pattern"), str) else []),
                *(found for value in node.values() for found in _patterns(value))]
    return [found for value in node for found in _patterns(value)] if isinstance(node, list) else []


def test_every_pattern_reads_the_same_in_python_and_ecma(capsys):
    """The key table's patterns are Python's (\\Z, (?P<name>...)); the schema's must be read alike by jsonschema
    (Python's re) and check-jsonschema or an editor (ECMA-262)."""
    import re

    patterns = _patterns(_document(capsys, "--stack-file"))
    assert len(patterns) > 10
    for pattern in patterns:
        re.compile(pattern)
        assert "(?P<" not in pattern and "\\Z" not in pattern and "\\A" not in pattern, pattern
