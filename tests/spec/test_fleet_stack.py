"""The fleet form of a stack file (`accelfit:workloads`, `accelfit:fleet`, the selection map): every mistake is an
input error naming the file, the field and the fix (exit 2); the single form loads exactly as before."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.stackfile import load_stack

ROOT = Path(__file__).resolve().parents[2]
DEV = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))["config"]
SERVE = {"name": "chat-serve", "kind": "inference", "framework": "pytorch", "model": {"parameters": "8B"},
         "inference": {"requests_per_second": 2, "latency_p99_ms": 20000},
         "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["l4"]},
         "budget": {"max_monthly_usd": 25000}}
SELECTION = {"option": "gke-gpu/gcp/us-central1/l4/g2-standard-24/x11/on-demand", "locked_on": "2026-11-23",
             "catalog_as_of": "2026-11-21", "monthly_usd": 100.0, "total_usd": 100.0}


def fleet_config() -> dict:
    config = {key: value for key, value in copy.deepcopy(DEV).items() if key != "accelfit:workload"}
    config["accelfit:workloads"] = [copy.deepcopy(DEV["accelfit:workload"]), copy.deepcopy(SERVE)]
    return config


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(project: Path, config: dict, name: str = "dev") -> Path:
    path = project / "stacks" / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    return path


def problems(project: Path, config: dict, name: str = "dev") -> list[str]:
    path = write(project, config, name)
    with pytest.raises(InputError) as caught:
        load_stack(name, project)
    lines = caught.value.lines()
    assert all(str(path) in line for line in lines)
    return lines


def test_a_fleet_stack_loads_its_workloads_in_order(project):
    write(project, fleet_config())
    stack = load_stack("dev", project)
    assert stack.is_fleet and stack.fleet == "dev"
    assert [spec.name for spec in stack.specs] == ["llm-pretrain", "chat-serve"]
    assert stack.selections == {}


def test_the_single_form_is_unchanged(project):
    write(project, copy.deepcopy(DEV))
    stack = load_stack("dev", project)
    assert not stack.is_fleet and stack.fleet is None
    assert stack.spec.name == "llm-pretrain" and stack.workload.spec is stack.spec and stack.specs == (stack.spec,)
    assert stack.selection is None and stack.selections == {}


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda c: c.update({"accelfit:workload": copy.deepcopy(DEV["accelfit:workload"])}), "config.accelfit:workload",
     "not both"),
    (lambda c: c.update({"accelfit:workloads": []}), "config.accelfit:workloads", "holds no workload"),
    (lambda c: c.update({"accelfit:workloads": {"name": "x"}}), "config.accelfit:workloads", "must be a list"),
    (lambda c: c["accelfit:workloads"][1].update({"name": "llm-pretrain"}), "config.accelfit:workloads[1].name",
     "already used by config.accelfit:workloads[0]"),
    (lambda c: c["accelfit:workloads"][1].update({"kind": "trainng"}), "config.accelfit:workloads[1].kind", ""),
    (lambda c: c["accelfit:workloads"].__setitem__(0, "pretrain"), "config.accelfit:workloads[0]",
     "expected a mapping"),
    (lambda c: c.update({"accelfit:fleet": "ML_Platform"}), "config.accelfit:fleet", "fleet name"),
    (lambda c: c.update({"accelfit:fleet": "x" * 38}), "config.accelfit:fleet", "1 to 37"),
    (lambda c: c.update({"accelfit:selection": {"chat-serv": SELECTION}}), "config.accelfit:selection.chat-serv",
     "did you mean chat-serve"),
    (lambda c: c.update({"accelfit:selection": SELECTION}), "config.accelfit:selection",
     "map of workload name"),
    (lambda c: c.update({"accelfit:selection": {"chat-serve": {**SELECTION, "option": "nonsense"}}}),
     "config.accelfit:selection.chat-serve.option", "not an option id"),
    (lambda c: c.update({"accelfit:selection": ["chat-serve"]}), "config.accelfit:selection",
     "map of workload name"),
])
def test_fleet_form_errors_name_the_field_and_the_fix(project, change, field, words):
    config = fleet_config()
    change(config)
    lines = problems(project, config)
    assert any(f"{field}" in line and words in line and "Fix:" in line for line in lines), lines


def test_a_stack_name_that_cannot_name_the_fleet_asks_for_accelfit_fleet(project):
    lines = problems(project, fleet_config(), name="Team_Fleet")
    assert any("config.accelfit:fleet" in line and "set accelfit:fleet" in line for line in lines), lines


def test_accelfit_fleet_in_a_single_stack_is_an_error(project):
    config = copy.deepcopy(DEV)
    config["accelfit:fleet"] = "ml"
    assert any("config.accelfit:fleet" in line and "one workload" in line for line in problems(project, config))


def test_commands_that_read_one_workload_say_the_stack_is_a_fleet(project):
    write(project, fleet_config())
    stack = load_stack("dev", project)
    with pytest.raises(InputError, match="holds a fleet"):
        stack.spec  # noqa: B018
    with pytest.raises(InputError, match="map by workload name"):
        stack.selection  # noqa: B018


def test_check_reports_a_fleet_error_with_exit_2(project, capsys):
    config = fleet_config()
    config["accelfit:workloads"] = []
    path = write(project, config)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "config.accelfit:workloads" in err and "Traceback" not in err


def test_a_plain_spec_loader_refuses_a_fleet_stack_and_says_where_to_go(project):
    from accelfit.spec import load_workload

    path = write(project, fleet_config())
    with pytest.raises(InputError, match="--stack ENV"):
        load_workload(path)


def test_a_key_written_like_brackets_is_an_unknown_key_not_a_crash():
    """Found by the loader fuzz test: a key "[]" was taken for one of pydantic's own location tags."""
    from accelfit.spec import workload_from_document

    with pytest.raises(InputError) as caught:
        workload_from_document({"[]": None}, "fuzz.yaml")
    assert any("unknown key '[]'" in line for line in caught.value.lines())
