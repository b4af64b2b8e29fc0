"""`check` on a stack file checks what `plan --stack`, `lock` and `preview` check, so it never says ok to a stack
they then refuse; stack names, Pulumi.yaml, charts and secrets fail as input errors (exit 2) naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from accelfit.cli.main import main
from tests.stackrules.stack_copies import project as copied_project

ROOT = Path(__file__).resolve().parents[2]
DEV = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(copied_project(tmp_path))  # every shipped stack and the policy config
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _write(project: Path, name: str, config: dict | None, raw: str | None = None) -> str:
    path = project / "stacks" / f"Pulumi.{name}.yaml"
    path.write_text(raw if raw is not None else yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    return f"stacks/Pulumi.{name}.yaml"


@pytest.mark.parametrize(("change", "words"), [
    ({"accelfit:enviroment": "dev"}, "did you mean accelfit:environment?"),
    ({"accelfit:teem": "x"}, "did you mean accelfit:team?"),
    ({"accelfit:team": None}, "missing. Fix: set accelfit:team"),
    ({"accelfit:team": 5}, "must be a label value"),
    ({"accelfit:environment": "qa"}, "unknown environment"),
    ({"accelfit:selection": "gke-gpu/gcp"}, "must be the mapping `accelfit lock` writes"),
    ({"accelfit:selection": {"option": "x", "locked_on": "2026-11-23", "catalog_as_of": "2026-11-21",
                             "monthly_usd": 1, "total_usd": 1}}, "not an option id"),
    ({"gcp:project": None}, "needs the project id"),
    ({"gcp:project": 12}, "needs the project id"),
])
def test_check_refuses_what_plan_or_preview_would(project, capsys, change, words):
    config = {key: value for key, value in {**DEV["config"], **change}.items() if value is not None}
    code, _, err = run(capsys, "check", _write(project, "t", config))
    assert code == 2, err
    assert words in err


def test_the_same_misspelling_stops_plan_and_lock(project, capsys):
    _write(project, "t", {**DEV["config"], "accelfit:enviroment": "dev"})
    for command in ("plan", "lock"):
        code, _, err = run(capsys, command, "--stack", "t")
        assert code == 2 and "did you mean accelfit:environment?" in err


def test_an_encrypted_team_is_set_not_missing(project, capsys):
    code, out, err = run(capsys, "check", _write(project, "t", {**DEV["config"], "accelfit:team": {"secure": "AAAB"}}))
    assert code == 0, err
    assert out.startswith("ok: stack file")


def test_a_stack_without_config_says_so(project, capsys):
    code, _, err = run(capsys, "check", _write(project, "t", None, raw="encryptionsalt: abc\n"))
    assert code == 2 and "needs a `config:` mapping" in err and "workload" not in err


def test_an_inventory_without_servers_says_so(project, capsys):
    (project / "inv.yaml").write_text("site: lab\n", encoding="utf-8")
    code, _, err = run(capsys, "check", "inv.yaml")
    assert code == 2 and "servers" in err and "kind" not in err


def test_check_ok_names_the_plan(project, capsys):
    code, out, _ = run(capsys, "check", "stacks/Pulumi.dev.yaml")
    assert code == 0 and "plans gke-" in out


@pytest.mark.parametrize("name", ["", "s" * 300, "../etc", "my stack"])
def test_bad_stack_names(project, capsys, name):
    for command in ("plan", "lock", "preview"):
        code, _, err = run(capsys, command, "--stack", name)
        assert code == 2 and "not a stack name" in err
        assert len(err) < 1000


@pytest.mark.parametrize(("document", "words"), [
    ({"name": "accelfit", "stackConfigDir": 5}, "stackConfigDir"),
    ({"name": "accelfit", "stackConfigDir": "/"}, "stackConfigDir"),
    ({"name": "accelfit", "stackConfigDir": "stacks", "config": "text"}, "config"),
    ({"stackConfigDir": "stacks"}, "name"),
    (["a"], "must be a mapping"),
])
def test_bad_project_files(project, capsys, document, words):
    (project / "Pulumi.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    code, _, err = run(capsys, "plan", "--stack", "dev")
    assert code == 2 and "Pulumi.yaml" in err and words in err


@pytest.mark.parametrize(("target", "words"), [("no/such/dir/chart.svg", "does not exist"),
                                               ("chart.txt", "unsupported chart format"), ("stacks", "directory")])
def test_chart_targets_are_checked_before_planning(project, capsys, target, words):
    code, _, err = run(capsys, "plan", "--stack", "dev", "--chart", target)
    assert code == 2 and words in err


def test_chart_without_matplotlib(project, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    code, _, err = run(capsys, "plan", "--stack", "dev", "--chart", "chart.svg")
    assert code == 2 and "pip install" in err


def test_an_unquoted_date_in_stack_config_does_not_break_preview(project, capsys):
    text = (project / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8").replace(
        "  gcp:region: us-central1\n", "  gcp:region: us-central1\n  gcp:labelsSince: 2026-11-23\n")
    (project / "stacks" / "Pulumi.dev.yaml").write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "preview", "--stack", "dev", "--json")
    assert code in (0, 1), err
    json.loads(out)


def _onprem(project: Path, environment: str) -> str:
    text = (project / "stacks" / "Pulumi.example-onprem-h100.yaml").read_text(encoding="utf-8")
    text = text.replace("  accelfit:environment: staging\n", f"  accelfit:environment: {environment}\n"
                        "  accelfit:joinToken: abcdef.0123456789abcdef\n")
    (project / "stacks" / f"Pulumi.onprem-{environment}.yaml").write_text(text, encoding="utf-8")
    return f"onprem-{environment}"


def test_a_plaintext_secret_never_reaches_the_preview_document(project, capsys):
    code, out, err = run(capsys, "preview", "--stack", _onprem(project, "staging"), "--json")
    assert code in (0, 1), err
    assert "0123456789abcdef" not in out and "0123456789abcdef" not in err
    assert "set in plain text" in err
    assert any("plain text" in warning for warning in json.loads(out)["warnings"])


def test_prod_refuses_a_plaintext_secret(project, capsys):
    name = _onprem(project, "prod")
    for args in (("preview", "--stack", name), ("check", f"stacks/Pulumi.{name}.yaml")):
        code, _, err = run(capsys, *args)
        assert code == 2 and "which prod refuses" in err


def test_the_onprem_example_previews_offline_with_its_secrets_unset(project, capsys):
    code, out, err = run(capsys, "preview", "--stack", "example-onprem-h100", "--json")
    assert code == 0, err
    unset = {item["key"]: item["set_with"] for item in json.loads(out)["unset_secrets"]}
    assert set(unset) == {"accelfit:joinToken", "accelfit:kubeconfig", "accelfit:sshPrivateKey"}
    assert all(command.startswith("pulumi config set --secret") for command in unset.values())


def test_every_key_the_program_reads_is_known():
    """A key the components read but PROJECT_KEYS lacks would be refused as a typo: keep the list complete."""
    import re

    from accelfit.stackfile import PROJECT_KEYS
    from components.baremetal.access import SECRET_KEYS

    used = set(SECRET_KEYS)
    for path in (ROOT / "stacks").glob("Pulumi.*.yaml"):
        used |= set(re.findall(r"^\s+accelfit:([A-Za-z]+):", path.read_text(encoding="utf-8"), re.M))
    for path in [*(ROOT / "components").rglob("*.py"), *(ROOT / "accelfit").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        if "pulumi.Config()" in text:
            used |= set(re.findall(r"(?:config|Config\(\))\.(?:get|require)\w*\(\"([A-Za-z]+)\"", text))
    assert used - set(PROJECT_KEYS) == set()


def test_component_errors_name_the_stack_file(project, capsys):
    text = (project / "stacks" / "Pulumi.example-onprem-h100.yaml").read_text(encoding="utf-8")
    # Missing (not malformed: the stack loader refuses a malformed one first), so the component reports it.
    text = text.replace("  accelfit:joinEndpoint: 10.20.0.5:6443\n", "")
    (project / "stacks" / "Pulumi.endpoint.yaml").write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "preview", "--stack", "endpoint")
    assert code == 2
    assert "Pulumi.endpoint.yaml: config.accelfit:joinEndpoint" in err and "error: stack:" not in err


def test_an_aws_plan_needs_a_region_for_the_provider(project, capsys, monkeypatch):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.example-aws-l4-inference.yaml").read_text(encoding="utf-8"))
    config = {key: value for key, value in stack["config"].items() if key != "aws:region"}
    code, _, err = run(capsys, "check", _write(project, "t", config))
    assert code == 2 and "config.aws:region" in err
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    assert run(capsys, "check", "stacks/Pulumi.t.yaml")[0] == 0
