"""`check`, `plan --stack`, `lock --stack` and `schema --fleet` on a fleet stack; the single form's outputs stay
as they were (their goldens and tests elsewhere are unchanged)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from accelfit.stackfile import load_stack
from tests.cli.test_cli_stack_checks import run
from tests.spec.test_fleet_stack import fleet_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    config = fleet_config()
    config["accelfit:fleet"] = "ml-platform"
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(
        "# the team's fleet\n" + yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_plans_every_workload_of_a_fleet(project, capsys):
    code, out, _ = run(capsys, "check", "stacks/Pulumi.dev.yaml")
    assert code == 0
    assert "fleet ml-platform in dev, 2 workloads in 1 shared cluster" in out
    assert "llm-pretrain (training, jax): plans gke-tpu/" in out and "chat-serve (inference, pytorch)" in out


def test_plan_text_reports_each_workload_the_clusters_and_the_totals(project, capsys):
    code, out, _ = run(capsys, "plan", "--stack", "dev")
    assert code == 0
    assert out.startswith("Fleet ml-platform (2 workloads, dev), stack dev")
    for words in ("Clusters:", "saves $", "Workload llm-pretrain (training, jax)", "Workload chat-serve",
                  "Fallback chain:", "the planned pool", "Why:", "a month as planned (monthly_usd)"):
        assert words in out, words


def test_plan_json_is_the_fleet_plan_with_each_lock(project, capsys):
    code, out, _ = run(capsys, "plan", "--stack", "dev", "--json")
    document = json.loads(out)
    assert code == 0 and document["name"] == "ml-platform"
    assert [member["name"] for member in document["workloads"]] == ["llm-pretrain", "chat-serve"]
    assert all(member["lock"]["state"] == "none" for member in document["workloads"])
    assert document["cost"]["monthly_usd"] == document["monthly_usd"]
    assert document["clusters"][0]["workloads"] == ["llm-pretrain", "chat-serve"]
    first = document["workloads"][0]
    assert first["fallback"][0]["rank"] == 1 and first["plan"]["option"] == first["fallback"][0]["option"]


def test_plan_markdown(project, capsys):
    code, out, _ = run(capsys, "plan", "--stack", "dev", "--markdown")
    assert code == 0 and out.startswith("### Fleet `ml-platform`") and "**Fallback chain**" in out
    assert "#### `chat-serve` (inference, pytorch)" in out


def test_plan_chart_refuses_a_fleet(project, capsys):
    code, _, err = run(capsys, "plan", "--stack", "dev", "--chart", "x.svg")
    assert code == 2 and "--chart" in err


def test_lock_writes_the_selection_map_and_reads_it_back(project, capsys):
    code, out, _ = run(capsys, "lock", "--stack", "dev")
    assert code == 0 and "locked fleet ml-platform (2 workloads)" in out
    text = (project / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    assert text.startswith("# the team's fleet\n")
    stack = load_stack("dev", project)
    assert set(stack.selections) == {"llm-pretrain", "chat-serve"}
    _, planned, _ = run(capsys, "plan", "--stack", "dev", "--json")
    document = json.loads(planned)
    for member in document["workloads"]:
        assert member["lock"]["state"] == "used"
        assert stack.selections[member["name"]].option == member["plan"]["option"]
    code, again, _ = run(capsys, "lock", "--stack", "dev")
    assert code == 0 and again.startswith("kept: every workload") and "llm-pretrain: kept" in again
    assert (project / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8") == text


def test_lock_relocks_only_the_workload_whose_lock_went_stale(project, capsys):
    run(capsys, "lock", "--stack", "dev")
    path = project / "stacks" / "Pulumi.dev.yaml"
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    kept = document["config"]["accelfit:selection"]["llm-pretrain"]
    document["config"]["accelfit:selection"]["chat-serve"]["option"] = (
        "gke-gpu/gcp/us-central1/l4/g2-standard-4/x1/on-demand")  # too small to meet the spec: stale
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    code, out, _ = run(capsys, "lock", "--stack", "dev")
    assert code == 0 and "llm-pretrain: kept" in out and "chat-serve: locked" in out and "(was " in out
    after = load_stack("dev", project).selections
    assert after["llm-pretrain"].option == kept["option"]
    assert after["chat-serve"].option != "gke-gpu/gcp/us-central1/l4/g2-standard-4/x1/on-demand"


def test_schema_documents_the_fleet_form(project, capsys):
    code, out, _ = run(capsys, "schema", "--fleet")
    document = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(document)
    validator = jsonschema.Draft202012Validator(document)
    # The whole stack file, as an editor or check-jsonschema sees it (it described only the `config:` keys before).
    stack_file = yaml.safe_load((project / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    config = stack_file["config"]
    assert code == 0 and list(validator.iter_errors(stack_file)) == []
    assert list(validator.iter_errors(config))  # the config mapping alone is not a stack file
    config["accelfit:workloads"][1]["kind"] = "serving"
    assert list(validator.iter_errors(stack_file))
    config["accelfit:workloads"] = []
    assert list(validator.iter_errors(stack_file))


GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize(("flag", "golden"), [((), "fleet-plan.txt"), (("--markdown",), "fleet-plan.md")])
def test_fleet_report_golden(project, capsys, flag, golden):
    """A regression guard of the whole fleet report (GCP only; regenerate with ACCELFIT_UPDATE_GOLDEN=1 after
    reading the diff)."""
    import os

    path = project / "stacks" / "Pulumi.dev.yaml"
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    document["config"]["accelfit:workloads"][0]["placement"].update({"clouds": ["gcp"], "regions": ["us-central1"]})
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    code, out, _ = run(capsys, "plan", "--stack", "dev", *flag)
    path = GOLDEN / golden
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(out, encoding="utf-8")
    assert code == 0 and path.exists(), f"{path} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert out == path.read_text(encoding="utf-8"), f"differs from {path.name}; regenerate with ACCELFIT_UPDATE_GOLDEN=1"


def test_plan_of_a_fleet_over_max_accelerators_is_no_feasible_plan_exit_1(project, capsys):
    code, out, _ = run(capsys, "plan", "--stack", "dev", "--json")
    assert code == 0
    counts = [sum(pool["max_nodes"] * pool.get("accelerators_per_node", 0) for pool in member["plan"]["node_pools"]
                  if pool["role"] != "system" and not pool.get("fallback_rank"))
              or member["plan"]["accelerator"]["count"] for member in json.loads(out)["workloads"]]
    config_path = project / "policies" / "config" / "dev.json"
    config = json.loads(config_path.read_text())
    config["max-accelerators"] = {"maxAccelerators": sum(counts) - 1}
    config_path.write_text(json.dumps(config))
    code, out, err = run(capsys, "plan", "--stack", "dev")
    assert code == 1
    for words in ("max-accelerators", "policies/config/dev.json", f"allows {sum(counts) - 1}", "llm-pretrain",
                  "chat-serve", "raise maxAccelerators"):
        assert words in out + err, words
