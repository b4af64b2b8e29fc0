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
    assert set(listed) == {"dev", "qa", "staging", "prod"} and listed["qa"]["requireLock"] is True

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
