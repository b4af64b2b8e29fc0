"""Protection is the environment's setting, not its name: `protected: true` in the environment entry of
policies/config/<env>.json (prod as shipped) turns on deletion protection for clusters and buckets, refuses
plain-text secrets and makes the spec's budget mandatory. A qa copied from prod is protected; a prod whose file
says otherwise is not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.environments import ENVIRONMENT_ENTRY, is_protected
from accelfit.preview.run import preview_stack

ROOT = Path(__file__).parents[2]
SOURCE_STACK = "example-aws-l4-inference"  # a prod stack: an EKS cluster and an S3 bucket


def _project(tmp_path: Path, environment: str) -> Path:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    text = (ROOT / "stacks" / f"Pulumi.{SOURCE_STACK}.yaml").read_text()
    assert "accelfit:environment: prod" in text
    (tmp_path / "stacks" / f"Pulumi.{environment}.yaml").write_text(
        text.replace("accelfit:environment: prod", f"accelfit:environment: {environment}"))
    return tmp_path


def _set_protected(project: Path, environment: str, value: bool) -> None:
    path = project / "policies" / "config" / f"{environment}.json"
    config = json.loads(path.read_text())
    config[ENVIRONMENT_ENTRY]["protected"] = value
    path.write_text(json.dumps(config))


def _protection(project: Path, stack: str) -> tuple[list[str], bool, str]:
    """Protected resource names, the EKS cluster's deletionProtection, the spec budget's level."""
    result = preview_stack(stack, project)
    resources = result.document["resources"]
    [cluster] = [r for r in resources if r["type"] == "aws:eks/cluster:Cluster"]
    [spec_line] = [line for line in result.document["budget"]["lines"] if line["source"].startswith("spec")]
    return ([r["name"] for r in resources if r["protect"]], cluster["inputs"].get("deletionProtection") is True,
            spec_line["level"])


@pytest.fixture(scope="module")
def shipped_prod(tmp_path_factory) -> tuple[list[str], bool, str]:
    project = _project(tmp_path_factory.mktemp("prod"), "prod")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        return _protection(project, "prod")


def test_shipped_prod_is_protected(shipped_prod):
    names, deletion_protection, level = shipped_prod
    assert names == ["chat-serve-data-bucket"] and deletion_protection and level == "mandatory"
    assert is_protected("prod", ROOT) and not is_protected("staging", ROOT) and not is_protected("dev", ROOT)


def test_an_environment_copied_from_prod_is_protected_as_prod_is(tmp_path, monkeypatch, capsys, shipped_prod):
    project = _project(tmp_path, "qa")
    monkeypatch.chdir(project)
    assert main(["env", "new", "qa", "--from", "prod"]) == 0
    capsys.readouterr()
    assert main(["env", "list", "--json"]) == 0
    listed = {item["name"]: item for item in json.loads(capsys.readouterr().out)}
    assert listed["qa"]["protected"] is True and listed["staging"]["protected"] is False
    assert _protection(project, "qa") == shipped_prod


def test_protection_follows_the_file_not_the_name(tmp_path, monkeypatch):
    project = _project(tmp_path, "prod")
    monkeypatch.chdir(project)
    _set_protected(project, "prod", False)
    names, deletion_protection, _ = _protection(project, "prod")
    assert names == [] and not deletion_protection
    assert not is_protected("prod", project)


def test_a_protected_environment_refuses_plain_text_secrets(tmp_path, monkeypatch, capsys):
    project = _project(tmp_path, "qa")
    monkeypatch.chdir(project)
    assert main(["env", "new", "qa", "--from", "staging"]) == 0
    stack = project / "stacks" / "Pulumi.qa.yaml"
    stack.write_text(stack.read_text().replace("config:\n", "config:\n  accelfit:hfToken: hf_plain\n", 1))
    capsys.readouterr()
    assert main(["check", str(stack)]) == 0  # staging's copy: a warning at most
    _set_protected(project, "qa", True)
    assert main(["check", str(stack)]) == 2
    assert "which qa refuses (a protected environment)" in capsys.readouterr().err
