"""The scheduled sweep finds ephemeral stacks on the backend, not in stack files: `ephemeral up` tags the backend
stack with accelfit:expiresAt, `ephemeral sweep --backend` lists the stacks with that tag and destroys the expired
ones (destroy, then stack rm), whether or not a stack file exists here. Driven against a stand-in Pulumi CLI that
records its calls and answers `stack ls --json` and `stack tag get` as the CLI reference documents them."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import stat
import sys
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.ephemeral.lifecycle import CREATED_TAG, EXPIRY_TAG, HOURLY_TAG

ROOT = Path(__file__).parents[2]
FAKE_PULUMI = """#!{python}
import json, sys
from pathlib import Path
state = Path({state!r})
args = sys.argv[1:]
with (state / "calls.jsonl").open("a") as log:
    log.write(json.dumps(args) + "\\n")
stacks = json.loads((state / "stacks.json").read_text())
if args[:2] == ["stack", "ls"]:
    print(json.dumps([{{"name": name, "current": False, "updateInProgress": False}} for name in stacks
                      if "--tag" not in args or args[args.index("--tag") + 1] in stacks[name]]))
elif args[:3] == ["stack", "tag", "get"]:
    ref = args[args.index("--stack") + 1]
    print(stacks[ref.rsplit("/", 1)[-1]][args[3]])
"""


def _fake_cli(tmp_path: Path, stacks: dict[str, dict[str, str]]) -> Path:
    state = tmp_path / "cli"
    state.mkdir()
    (state / "stacks.json").write_text(json.dumps(stacks))
    script = state / "pulumi"
    script.write_text(FAKE_PULUMI.format(python=sys.executable, state=str(state)))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return state


def _calls(state: Path) -> list[list[str]]:
    path = state / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "project"
    (folder / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", folder / "policies" / "config")
    shutil.copy(ROOT / "stacks" / "Pulumi.example-gcp-vllm-serving.yaml", folder / "stacks")
    monkeypatch.chdir(folder)
    return folder


def _instant(delta_hours: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(hours=delta_hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_sweep_destroys_the_expired_backend_stacks_only(project, tmp_path, monkeypatch, capsys):
    state = _fake_cli(tmp_path, {"pr-1": {EXPIRY_TAG: _instant(-2)}, "pr-2": {EXPIRY_TAG: _instant(+5)},
                                 "prod": {}, "Not_Ephemeral": {EXPIRY_TAG: _instant(-2)}})
    monkeypatch.setenv("PATH", f"{state}:/usr/bin:/bin")
    assert main(["ephemeral", "sweep", "--backend", "--plan", "--org", "acme"]) == 0
    assert capsys.readouterr().out.splitlines() == ["expired: pr-1"]
    assert not any(call[0] == "destroy" for call in _calls(state))

    assert main(["ephemeral", "sweep", "--backend", "--org", "acme"]) == 0
    assert capsys.readouterr().out.splitlines() == ["destroyed: pr-1"]
    changes = [call for call in _calls(state) if call[0] == "destroy" or call[:2] == ["stack", "rm"]]
    assert changes == [["destroy", "--yes", "--skip-preview", "--stack", "acme/pr-1"],
                       ["stack", "rm", "--yes", "--stack", "acme/pr-1"]]
    assert ["stack", "ls", "--json", "--tag", EXPIRY_TAG] in _calls(state)


def test_without_backend_the_sweep_reads_stack_files_only(project, tmp_path, monkeypatch, capsys):
    state = _fake_cli(tmp_path, {"pr-1": {EXPIRY_TAG: _instant(-2)}})
    monkeypatch.setenv("PATH", f"{state}:/usr/bin:/bin")
    assert main(["ephemeral", "sweep", "--plan"]) == 0
    assert capsys.readouterr().out == "" and _calls(state) == []


def test_up_tags_the_backend_stack_with_its_expiry(project, tmp_path, monkeypatch, capsys):
    state = _fake_cli(tmp_path, {})
    monkeypatch.setenv("PATH", f"{state}:/usr/bin:/bin")
    assert main(["ephemeral", "up", "--from", "example-gcp-vllm-serving", "--name", "pr-7", "--org", "acme",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    calls = _calls(state)
    init = calls.index(["stack", "init", "acme/pr-7"])
    tags = {call[3]: call[4] for call in calls[init + 1:init + 4] if call[:3] == ["stack", "tag", "set"]}
    assert tags[EXPIRY_TAG] == report["expires_at"] and set(tags) == {EXPIRY_TAG, CREATED_TAG, HOURLY_TAG}
    assert float(tags[HOURLY_TAG]) == pytest.approx(report["monthly_usd"] / 730, abs=1e-4)
    assert calls[init + 4][0] == "up" and report["deployed"] is True


def test_down_says_what_the_copy_cost_so_far(project, tmp_path, monkeypatch, capsys):
    state = _fake_cli(tmp_path, {"pr-9": {EXPIRY_TAG: _instant(+19), CREATED_TAG: _instant(-5),
                                          HOURLY_TAG: "2.5000"}})
    monkeypatch.setenv("PATH", f"{state}:/usr/bin:/bin")
    assert main(["ephemeral", "down", "--name", "pr-9", "--missing-file-ok", "--json", "--org", "acme"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["destroyed"] is True and report["cost_so_far"]["hourly_usd"] == 2.5
    assert report["cost_so_far"]["hours"] == pytest.approx(5.0, abs=0.05)
    assert report["cost_so_far"]["usd"] == pytest.approx(12.5, abs=0.15)
    assert ["destroy", "--yes", "--skip-preview", "--stack", "acme/pr-9"] in _calls(state)
