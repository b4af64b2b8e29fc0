"""Ephemeral environments offline, end to end on recorded resources: `accelfit ephemeral up --no-deploy` writes a
scaled copy of a shipped stack, previewed under policies/config/ephemeral.json at under 5% of its source's monthly
cost, with its TTL labelled on every resource and its cap enforced; it expires; its destroy plan removes every
recorded resource (none protected). Bad input exits 2, nothing written."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
import yaml

from accelfit.cli.main import main
from accelfit.ephemeral.lifecycle import destroy_plan, expired_stacks
from accelfit.preview.run import preview_stack

ROOT = Path(__file__).parents[2]


def _project(tmp_path: Path, *stacks: str) -> Path:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    for stack in stacks:
        shutil.copy(ROOT / "stacks" / f"Pulumi.{stack}.yaml", tmp_path / "stacks")
    return tmp_path


@pytest.mark.parametrize("source", ["example-gcp-vllm-serving", "example-aws-h100-training"])
def test_an_ephemeral_copy_previews_small_with_ttl_cap_and_a_full_destroy_plan(tmp_path, capsys, monkeypatch,
                                                                               source):
    project = _project(tmp_path, source)
    monkeypatch.chdir(project)
    assert main(["ephemeral", "up", "--from", source, "--name", "pr-123", "--ttl", "24h", "--no-deploy",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deployed"] is None and report["mandatory_violations"] == 0
    assert report["monthly_usd"] < 0.05 * report["source_monthly_usd"], report
    config = yaml.safe_load((project / "stacks" / "Pulumi.pr-123.yaml").read_text())["config"]
    assert config["accelfit:environment"] == "ephemeral" and "accelfit:selection" not in config
    expires = dt.datetime.strptime(config["accelfit:expiresAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    assert dt.timedelta(hours=23) < expires - dt.datetime.now(dt.UTC) <= dt.timedelta(hours=24)

    result = preview_stack("pr-123", project)
    document = result.document
    assert document["plan"]["accelerator"]["name"] == preview_stack(source, project).document["plan"]["accelerator"]["name"]
    assert "/spot" in document["plan"]["option"] and "/x1/" in document["plan"]["option"]  # one node, spot
    [cap] = [line for line in document["budget"]["lines"] if line["source"].startswith("policy")]
    assert cap["level"] == "mandatory" and cap["limit_usd"] == report["cap_monthly_usd"] and cap["within"]
    label = expires.strftime("%Y%m%dt%H%M%Sz")
    rows = [r for r in document["resources"] if r["custom"]]
    # Every resource that carries the ownership labels carries its expiry too (what the cloud shows to sweep by).
    owned = [r for r in rows if '"managed-by": "accelfit"' in json.dumps(r["inputs"])]
    assert owned and all(label in json.dumps(r["inputs"]) for r in owned)

    # Expiry: not before its instant, then the sweep finds it.
    assert expired_stacks(project, dt.datetime.now(dt.UTC)) == []
    assert expired_stacks(project, expires) == ["pr-123"]
    # The destroy plan is every recorded resource, and none is protected (a protected one would stop the destroy).
    plan = destroy_plan(project, "pr-123")
    assert {row["urn"] for row in plan} == {r["urn"] for r in rows} and not any(row["protect"] for row in plan)
    assert main(["ephemeral", "down", "--name", source]) == 2  # never destroys a stack it did not make

    # Autostop: a serving copy serves 4 h a day from the minute it was made, and its servers may go after that
    # (the ScaledObject built lets them); a training copy stops when its run ends and reports no window.
    spec = config.get("accelfit:workload")
    if spec["kind"] == "training":
        assert report["autostop"] is None
        return
    created = expires - dt.timedelta(hours=24)
    assert spec["inference"]["serving_start_utc"] == created.strftime("%H:%M")
    assert spec["inference"]["hours_per_day"] == 4
    assert report["autostop"] == {"from_utc": created.strftime("%H:%M"), "hours_per_day": 4.0,
                                  "workloads": {"chat-vllm": True}}


def _copy(project: Path, capsys, name: str, *args: str) -> tuple[dict, dict]:
    assert main(["ephemeral", "up", "--from", "example-gcp-vllm-serving", "--name", name, "--no-deploy", "--json",
                 *args]) == 0
    report = json.loads(capsys.readouterr().out)
    return report, preview_stack(name, project).document


def test_autostop_sets_the_copys_serving_window_and_its_price(tmp_path, capsys, monkeypatch):
    """--autostop moves the ScaledObject's cron window and the GPU pool's priced hours alike (plan = preview)."""
    project = _project(tmp_path, "example-gcp-vllm-serving")
    monkeypatch.chdir(project)
    short, short_document = _copy(project, capsys, "pr-short", "--autostop", "90m")
    long, long_document = _copy(project, capsys, "pr-long", "--autostop", "8h")
    windows = []
    for document in (short_document, long_document):
        assert document["plan"]["estimate"]["monthly_usd"] == pytest.approx(document["cost"]["monthly_usd"],
                                                                            abs=0.05)
        [scaler] = [r["inputs"]["spec"] for r in document["resources"] if r["type"].endswith(":ScaledObject")]
        assert scaler["minReplicaCount"] == 0
        [cron] = [t["metadata"] for t in scaler["triggers"] if t["type"] == "cron"]
        windows.append((cron["start"], cron["end"]))
    # Each copy's window from its own start (the minute it was created: the two copies may straddle a minute).
    for (start, end), hours in zip(windows, (1.5, 8), strict=True):
        start_minute, start_hour = (int(part) for part in start.split()[:2])
        end_minute, end_hour = (int(part) for part in end.split()[:2])
        assert ((end_hour * 60 + end_minute) - (start_hour * 60 + start_minute)) % 1440 == round(hours * 60)
    assert short["autostop"]["hours_per_day"] == 1.5 and long["autostop"]["hours_per_day"] == 8
    assert short["monthly_usd"] < long["monthly_usd"]


def test_autostop_on_a_copy_that_serves_nothing_exits_2(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path, "example-aws-h100-training")
    monkeypatch.chdir(project)
    assert main(["ephemeral", "up", "--from", "example-aws-h100-training", "--name", "pr-5", "--autostop", "2h",
                 "--no-deploy"]) == 2
    err = capsys.readouterr().err
    assert "--autostop" in err and "drop --autostop" in err
    assert not (project / "stacks" / "Pulumi.pr-5.yaml").exists()


def test_the_ephemeral_cap_is_enforced(tmp_path, capsys, monkeypatch):
    """Lower ephemeral.json's cap below the copy's cost: `up` fails on the mandatory budget and leaves no file."""
    project = _project(tmp_path, "example-gcp-vllm-serving")
    monkeypatch.chdir(project)
    path = project / "policies" / "config" / "ephemeral.json"
    config = json.loads(path.read_text())
    config["stack-monthly-budget"]["maxMonthlyUsd"] = 100
    path.write_text(json.dumps(config))
    assert main(["ephemeral", "up", "--from", "example-gcp-vllm-serving", "--name", "pr-9", "--no-deploy"]) == 1
    assert not (project / "stacks" / "Pulumi.pr-9.yaml").exists()


@pytest.mark.parametrize("args, field", [
    (["--from", "no-such-stack", "--name", "pr-1"], "no-such-stack"),
    (["--from", "example-gcp-vllm-serving", "--name", "PR_1"], "--name"),
    (["--from", "example-gcp-vllm-serving", "--name", "example-gcp-vllm-serving"], "--name"),
    (["--from", "example-gcp-vllm-serving", "--name", "pr-1", "--ttl", "3w"], "--ttl"),
    (["--from", "example-gcp-vllm-serving", "--name", "pr-1", "--ttl", "9d"], "--ttl"),
    (["--from", "example-gcp-vllm-serving", "--name", "pr-1", "--autostop", "2d"], "--autostop"),
    (["--from", "example-gcp-vllm-serving", "--name", "pr-1", "--autostop", "10m"], "--autostop"),
    (["--from", "example-gcp-vllm-serving", "--name", "pr-1", "--autostop", "24h"], "--autostop"),
])
def test_bad_ephemeral_input_exits_2_and_writes_nothing(tmp_path, capsys, monkeypatch, args, field):
    project = _project(tmp_path, "example-gcp-vllm-serving")
    monkeypatch.chdir(project)
    before = sorted(p.name for p in (project / "stacks").iterdir())
    assert main(["ephemeral", "up", *args, "--no-deploy"]) == 2
    assert field in capsys.readouterr().err
    assert sorted(p.name for p in (project / "stacks").iterdir()) == before


def test_deploy_without_a_pulumi_cli_stops_after_the_preview(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path, "example-gcp-vllm-serving")
    monkeypatch.chdir(project)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["ephemeral", "up", "--from", "example-gcp-vllm-serving", "--name", "pr-2"]) == 0
    assert "not deployed: no Pulumi CLI" in capsys.readouterr().out
    assert main(["ephemeral", "down", "--name", "pr-2"]) == 2
    assert "Pulumi CLI" in capsys.readouterr().err and (project / "stacks" / "Pulumi.pr-2.yaml").exists()


def test_a_bad_expiry_is_refused_before_the_build(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path, "example-gcp-vllm-serving")
    monkeypatch.chdir(project)
    path = project / "stacks" / "Pulumi.example-gcp-vllm-serving.yaml"
    path.write_text(path.read_text().replace("  accelfit:team:", "  accelfit:expiresAt: tomorrow\n  accelfit:team:"))
    assert main(["check", str(path)]) == 2
    assert "accelfit:expiresAt" in capsys.readouterr().err
