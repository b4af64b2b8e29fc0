"""Environments as data (accelfit.environments): `accelfit env new qa --from staging` writes qa's policy
configuration, a stack naming qa loads, plans and previews under qa's own caps, and changing qa's cap changes the
policy result. Unknown names and sources exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.preview.run import preview_stack

ROOT = Path(__file__).parents[2]


def _project(tmp_path: Path) -> Path:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    text = (ROOT / "stacks" / "Pulumi.staging.yaml").read_text()
    assert "accelfit:environment: staging" in text
    (tmp_path / "stacks" / "Pulumi.qa.yaml").write_text(text.replace("accelfit:environment: staging",
                                                                     "accelfit:environment: qa"))
    return tmp_path


def test_qa_is_refused_until_it_exists_then_previews_under_its_own_policy(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    assert main(["check", "stacks/Pulumi.qa.yaml"]) == 2
    assert "accelfit env new" in capsys.readouterr().err

    assert main(["env", "new", "qa", "--from", "staging"]) == 0
    qa = json.loads((project / "policies" / "config" / "qa.json").read_text())
    staging = json.loads((project / "policies" / "config" / "staging.json").read_text())
    assert qa["environment-label-matches-stack"]["environment"] == "qa"
    assert {k: v for k, v in qa.items() if k != "environment-label-matches-stack"} == \
        {k: v for k, v in staging.items() if k != "environment-label-matches-stack"}
    capsys.readouterr()
    assert main(["env", "list", "--json"]) == 0
    listed = {item["name"]: item for item in json.loads(capsys.readouterr().out)}
    assert set(listed) == {"dev", "ephemeral", "qa", "staging", "prod"} and listed["qa"]["requireLock"] is True

    result = preview_stack("qa", project)
    assert result.mandatory_violations == 0
    assert result.document["environment"] == "qa"
    [policy_line] = [line for line in result.document["budget"]["lines"] if line["source"].startswith("policy")]
    assert policy_line["source"].endswith("(policies/config/qa.json)") and policy_line["limit_usd"] == 300000
    labels = {r["inputs"].get("resourceLabels", {}).get("environment") for r in result.document["resources"]
              if r["custom"] and isinstance(r["inputs"].get("resourceLabels"), dict)}
    assert labels == {"qa"}

    # qa's cap, not staging's, is what the policy enforces: below this stack's cost, the preview fails.
    monthly = result.document["cost"]["monthly_usd"]
    qa["stack-monthly-budget"]["maxMonthlyUsd"] = round(monthly / 2)
    (project / "policies" / "config" / "qa.json").write_text(json.dumps(qa))
    capsys.readouterr()
    assert main(["preview", "--stack", "qa"]) == 1
    assert "stack-monthly-budget" in capsys.readouterr().err
    assert preview_stack("staging", _staging(project)).mandatory_violations == 0  # staging is untouched


def _staging(project: Path) -> Path:
    shutil.copy(ROOT / "stacks" / "Pulumi.staging.yaml", project / "stacks" / "Pulumi.staging.yaml")
    return project


@pytest.mark.parametrize("args, field", [
    (["env", "new", "QA", "--from", "staging"], "NAME"),
    (["env", "new", "prod", "--from", "staging"], "NAME"),
    (["env", "new", "qa", "--from", "stagin"], "--from"),
])
def test_bad_environment_input_exits_2_naming_the_field(tmp_path, capsys, monkeypatch, args, field):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    before = sorted(p.name for p in (project / "policies" / "config").iterdir())
    assert main(args) == 2
    assert field in capsys.readouterr().err
    assert sorted(p.name for p in (project / "policies" / "config").iterdir()) == before


def test_plan_environment_is_discovered(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    spec = ROOT / "examples"
    specs = sorted(spec.glob("*.yaml")) if spec.is_dir() else []
    if not specs:
        pytest.skip("no example spec")
    assert main(["plan", str(specs[0]), "--environment", "qa"]) == 2
    assert "--environment" in capsys.readouterr().err
    assert main(["env", "new", "qa", "--from", "dev"]) == 0
    assert main(["plan", str(specs[0]), "--environment", "qa"]) in (0, 1)


def test_qa_joins_the_deploy_and_preview_matrix_in_order(tmp_path, monkeypatch):
    """deploy.yml and preview.yml read `python3 -m accelfit.environments`: qa, copied from staging (lock required, no
    reviewers), deploys after dev and before prod; its GitHub environments are checked; a reviewed copy of prod is
    checked for reviewers."""
    from accelfit.environments.__main__ import outputs

    project = _project(tmp_path)
    monkeypatch.chdir(project)
    for name in ("dev", "staging", "prod"):
        shutil.copy(ROOT / "stacks" / f"Pulumi.{name}.yaml", project / "stacks" / f"Pulumi.{name}.yaml")
    assert dict(line.split("=", 1) for line in outputs(project))["stacks"] == "dev staging prod"  # qa: no config yet
    assert main(["env", "new", "qa", "--from", "staging"]) == 0
    assert main(["env", "new", "prod-eu", "--from", "prod"]) == 0  # no stack of its name: not deployed
    found = dict(line.split("=", 1) for line in outputs(project))
    assert json.loads(found["targets"]) == [
        {"stack": "dev", "locked": False, "reviewed": False}, {"stack": "qa", "locked": True, "reviewed": False},
        {"stack": "staging", "locked": True, "reviewed": False}, {"stack": "prod", "locked": True, "reviewed": True}]
    assert found["reviewed"] == "--reviewed prod"
    # Changing qa's settings changes what the workflows do with it.
    path = project / "policies" / "config" / "qa.json"
    config = json.loads(path.read_text())
    config["environment-label-matches-stack"]["requiredReviewers"] = True
    path.write_text(json.dumps(config))
    assert dict(line.split("=", 1) for line in outputs(project))["reviewed"] == "--reviewed prod --reviewed qa"
