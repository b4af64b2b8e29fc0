"""The offline preview end to end: the program under mocks, priced, checked by the real policy pack."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.preview.run import preview_stack

ROOT = Path(__file__).parents[2]
GOLDEN = Path(__file__).parent / "golden"


def project_copy(tmp_path: Path, stack: str, edit=None) -> Path:
    """A copy of the project's stack, project file and policy config, with an optional text edit of the stack."""
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    text = (ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text()
    if edit:
        old, new = edit
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "stacks" / f"Pulumi.{stack}.yaml").write_text(text)
    return tmp_path


def test_dev_preview_document_is_stable():
    document = preview_stack("dev", ROOT).document
    rendered = json.dumps(document, indent=2, sort_keys=True) + "\n"
    golden = GOLDEN / "preview-dev.json"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(rendered)
    assert rendered == golden.read_text()


def test_dev_preview_has_every_part():
    result = preview_stack("dev", ROOT)
    document = result.document
    assert document["stack"] == "dev" and document["plan"]["platform"] == "gke-tpu"
    custom = [r for r in document["resources"] if r["custom"]]
    assert len(custom) >= 10
    assert all({"type", "name", "parent", "inputs", "protect", "monthly_usd"} <= set(r) for r in custom)
    assert all(r["parent"] for r in custom), "every resource belongs to a component"
    assert document["cost"]["monthly_usd"] == pytest.approx(sum(r["monthly_usd"] for r in custom), abs=0.05)
    assert len(document["policies"]["rules"]) >= 20
    assert result.mandatory_violations == 0


def test_example_stacks_are_clean_under_their_policies():
    for stack in ("staging", "prod"):
        result = preview_stack(stack, ROOT)
        mandatory = [v for v in result.document["policies"]["violations"] if v["level"] == "mandatory"]
        assert mandatory == [], (stack, mandatory)


def test_prod_change_over_the_policy_budget_fails(tmp_path, capsys, monkeypatch):
    # Cutting the prod deadline from 30 to 7 days quadruples the slice. As planned it bills only for its run and
    # fits; when prod's policy budget measures full_scale_monthly_usd, the v6e-256 pool at its maximum all month
    # is over it, so the planner (which respects its environment's policy) does not choose it, and nothing else
    # fits the spec's own budget: the preview fails, naming both.
    project = project_copy(tmp_path, "prod", ("deadline_days: 30", "deadline_days: 7"))
    assert preview_stack("prod", project).mandatory_violations == 0
    config_path = project / "policies" / "config" / "prod.json"
    config = json.loads(config_path.read_text())
    config["stack-monthly-budget"]["figure"] = "full_scale_monthly_usd"
    config_path.write_text(json.dumps(config))
    monkeypatch.chdir(project)
    assert main(["preview", "--stack", "prod"]) == 1
    err = capsys.readouterr().err
    assert "no feasible plan" in err and "stack-monthly-budget" in err


def test_the_policy_budget_rule_measures_the_figure_its_config_names():
    from policies.accelfit_policies.cost import check_budget
    from types import SimpleNamespace

    report = SimpleNamespace(monthly_usd=100.0, full_scale_monthly_usd=900.0, resources=())
    price = lambda resources, catalog: report  # noqa: E731
    assert check_budget([], {"maxMonthlyUsd": 500}, price, object()) == []
    [(message, _)] = check_budget([], {"maxMonthlyUsd": 500, "figure": "full_scale_monthly_usd"}, price, object())
    assert "full_scale_monthly_usd" in message and "allowed 500" in message


def test_preview_markdown_and_text(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["preview", "--stack", "dev", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### accelfit preview: `dev`") and "<details>" in out
    assert main(["preview", "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "Policies (accelfit" in out and "Cost assumptions:" in out


def test_invalid_stack_exits_2(tmp_path, capsys, monkeypatch):
    project = project_copy(tmp_path, "dev", ("framework: jax", "framework: jaxx"))
    monkeypatch.chdir(project)
    assert main(["preview", "--stack", "dev"]) == 2
    err = capsys.readouterr().err
    assert "config.accelfit:workload.framework" in err and "did you mean 'jax'" in err and "Traceback" not in err


def with_secrets_set(stack: str) -> Path:
    """The project, or for a stack whose comments say which secrets to set, a copy with them set (encrypted
    values the offline preview shows as placeholders, as the CLI writes them after `pulumi config set --secret`)."""
    text = (ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text()
    keys = sorted(set(re.findall(r"pulumi config set --secret (accelfit:\w+)", text)))
    if not keys:
        return ROOT
    import tempfile

    copy = Path(tempfile.mkdtemp())
    shutil.copy(ROOT / "Pulumi.yaml", copy / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", copy / "policies" / "config")
    shutil.copytree(ROOT / "stacks", copy / "stacks")
    secured = "".join(f"  {key}:\n    secure: v1:AAAAAAAAAAAAAAAA\n" for key in keys)
    (copy / "stacks" / f"Pulumi.{stack}.yaml").write_text(text.replace("config:\n", "config:\n" + secured, 1))
    return copy


def test_every_example_stack_is_clean_under_its_environment_policies():
    stacks = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                    for path in (ROOT / "stacks").glob("Pulumi.example-*.yaml"))
    assert len(stacks) >= 5
    for stack in stacks:
        try:
            result = preview_stack(stack, with_secrets_set(stack))
        except Exception as error:  # bare-metal examples need their own components; report which stack failed
            raise AssertionError(f"{stack}: {error}") from error
        mandatory = [v for v in result.document["policies"]["violations"] if v["level"] == "mandatory"]
        assert mandatory == [], (stack, mandatory)
