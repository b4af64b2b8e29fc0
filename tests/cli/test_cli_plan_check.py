"""The CLI's contract: exit codes, the JSON keys scripts rely on, and readable errors without tracebacks."""

import json
import os
from pathlib import Path

import pytest

from accelfit.cli.main import main

ROOT = Path(__file__).parents[2]


@pytest.fixture(autouse=True)
def in_project(monkeypatch):
    monkeypatch.chdir(ROOT)


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_json_has_the_documented_keys(capsys):
    code, out, _ = run(capsys, "plan", "--stack", "dev", "--json")
    assert code == 0
    document = json.loads(out)
    for key in ("platform", "cloud", "region", "accelerator", "estimate", "reasons", "alternatives", "rejected"):
        assert key in document
    assert set(document["accelerator"]) >= {"name", "kind", "count", "topology", "instance_type", "nodes"}
    assert set(document["estimate"]) >= {"hours", "accelerator_hours", "mfu", "monthly_usd", "total_usd",
                                         "breakdown"}
    for alternative in document["alternatives"]:
        assert set(alternative) >= {"platform", "accelerator", "count", "hours", "total_usd", "monthly_usd",
                                    "why_not"}
    for rejection in document["rejected"]:
        assert set(rejection) >= {"option", "reason"}


def test_plan_text_and_markdown(capsys):
    code, out, _ = run(capsys, "plan", "--stack", "prod")
    assert code == 0 and "Chosen:" in out and "Why:" in out
    code, out, _ = run(capsys, "plan", "--stack", "prod", "--markdown", "--top", "3")
    assert code == 0 and out.startswith("### Plan for `llm-pretrain`") and "<details>" in out


def test_plan_chart_svg(capsys, tmp_path):
    chart = tmp_path / "options.svg"
    code, _, _ = run(capsys, "plan", "examples/llama2-7b-a100.yaml", "--chart", str(chart))
    assert code == 0
    assert chart.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_plan_chart_rejects_unknown_format(capsys, tmp_path):
    code, _, err = run(capsys, "plan", "examples/llama2-7b-a100.yaml", "--chart", str(tmp_path / "x.gif"))
    assert code == 2 and "--chart" in err


def test_impossible_budget_exits_1_naming_the_budget(capsys, tmp_path):
    spec = (ROOT / "examples" / "llama2-7b-a100.yaml").read_text() + "  max_total_usd: 1000\n"
    path = tmp_path / "spec.yaml"
    path.write_text(spec.replace("budget:\n  pricing: on-demand\n  max_total_usd", "budget:\n  pricing: on-demand\n"
                                 "  max_total_usd"))
    code, _, err = run(capsys, "plan", str(path))
    assert code == 1
    assert "max_total_usd" in err and "raise max_total_usd to at least $" in err


def test_check_misspelt_key_exits_2_with_the_right_spelling(capsys, tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("name: x\nkind: training\nframework: jax\nmodel: {parameters: 1B}\n"
                    "training: {tokens: 1B, deadline_dayz: 2}\n")
    code, out, err = run(capsys, "check", str(path))
    assert code == 2
    assert "training.deadline_dayz" in err and "did you mean 'deadline_days'" in err
    assert "Traceback" not in err + out


def test_check_stack_and_inventory(capsys):
    code, out, _ = run(capsys, "check", "stacks/Pulumi.dev.yaml")
    assert code == 0 and "ok: stack file" in out
    code, out, _ = run(capsys, "check", "tests/fixtures/inventory-lab.yaml")
    assert code == 0 and "4 servers, 32 GPUs" in out


def test_check_says_the_lock_state_in_words(capsys):
    # dev is left unlocked on purpose (it follows the catalog); prod is locked (deploys build only its lock).
    code, out, _ = run(capsys, "check", "stacks/Pulumi.dev.yaml")
    assert code == 0 and "(not locked: a fresh plan; `accelfit lock` pins it)" in out and "none lock" not in out
    code, out, _ = run(capsys, "check", "stacks/Pulumi.prod.yaml")
    assert code == 0 and out.rstrip().endswith("/v6e-64/x1/on-demand (the locked selection)")


def test_unknown_stack(capsys):
    code, _, err = run(capsys, "plan", "--stack", "qa")
    assert code == 2 and "use one of" in err


def test_schema_is_json_schema(capsys):
    code, out, _ = run(capsys, "schema")
    document = json.loads(out)
    assert code == 0 and document["additionalProperties"] is False and "model" in document["properties"]


def test_console_script_exit_code(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: nonsense\n")
    result = subprocess.run([sys.executable, "-m", "accelfit.cli.main", "check", str(bad)], capture_output=True,
                            text=True, env={**os.environ}, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
