"""One reading of the lock setting, the project's own config namespace, and secrets kept out of names and messages
(issue 29): `requireLock: maybe` stops check, plan, lock and preview alike; ACCELFIT_LOCKED=on is enforced by the
program as by `preview --locked`; a project not named accelfit reads `<project>:workload` everywhere; a secret
set as a map or list is refused without being echoed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from accelfit import lock_setting
from accelfit.cli.main import main
from accelfit.errors import SECRET_SIG, SECRET_SIG_KEY, InputError, problem
from accelfit.planner.lock import LockRequired
from accelfit.preview.run import preview_stack
from components.baremetal.join_token import token_secret_name

ROOT = Path(__file__).parents[2]
DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def project_copy(tmp_path: Path, text: str = DEV, name: str = "accelfit") -> Path:
    (tmp_path / "stacks").mkdir()
    project = (ROOT / "Pulumi.yaml").read_text()
    (tmp_path / "Pulumi.yaml").write_text(project.replace("name: accelfit\n", f"name: {name}\n", 1))
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(text)
    return tmp_path


def run(capsys, monkeypatch, project: Path, *args) -> tuple[int, str]:
    monkeypatch.chdir(project)
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


COMMANDS = [("check", "stacks/Pulumi.dev.yaml"), ("plan", "--stack", "dev"), ("lock", "--stack", "dev"),
            ("preview", "--stack", "dev")]


@pytest.mark.parametrize("value", ["maybe", "1", "[true]", "{a: 1}"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
def test_require_lock_that_is_not_a_boolean_stops_every_command(tmp_path, capsys, monkeypatch, command, value):
    if command[0] == "preview" and value != "maybe":
        pytest.skip("one preview run is enough: the same loader refuses before the program")
    project = project_copy(tmp_path, DEV.replace("config:\n", f"config:\n  accelfit:requireLock: {value}\n", 1))
    before = (project / "stacks" / "Pulumi.dev.yaml").read_bytes()
    code, output = run(capsys, monkeypatch, project, *command)
    assert code == 2, output
    assert "config.accelfit:requireLock" in output and "true or false" in output and "Traceback" not in output
    assert (project / "stacks" / "Pulumi.dev.yaml").read_bytes() == before


@pytest.mark.parametrize(("raw", "expected"), [("on", True), ("y", True), (" 1", True), ("TRUE", True), ("t", True),
                                               ("", False), ("off", False), ("0", False), (" no ", False)])
def test_one_reading_of_accelfit_locked(raw, expected):
    assert lock_setting.env_lock_required({"ACCELFIT_LOCKED": raw}) is expected
    assert lock_setting.lock_required(None, "stack", "accelfit:requireLock", {"ACCELFIT_LOCKED": raw}) is expected


@pytest.mark.parametrize("raw", ["maybe", "2", "yes please"])
def test_accelfit_locked_that_is_not_a_boolean_is_named(raw):
    with pytest.raises(InputError) as caught:
        lock_setting.env_lock_required({"ACCELFIT_LOCKED": raw})
    assert caught.value.problems[0].field == "ACCELFIT_LOCKED"


@pytest.mark.parametrize("value", [True, "true", "True", " false "])
def test_require_lock_booleans(value):
    assert lock_setting.config_lock_required(value, "f", "x") is (str(value).strip().lower() == "true")


@pytest.mark.parametrize("raw", ["on", "y", " 1"])
def test_the_program_enforces_accelfit_locked_as_preview_does(tmp_path, monkeypatch, raw):
    project = project_copy(tmp_path)
    monkeypatch.setenv("ACCELFIT_LOCKED", raw)
    with pytest.raises(LockRequired):  # the program itself (preview_stack without --locked) requires the lock
        preview_stack("dev", project, locked=False)


def test_accelfit_locked_garbage_is_exit_2_for_preview(tmp_path, capsys, monkeypatch):
    project = project_copy(tmp_path)
    monkeypatch.setenv("ACCELFIT_LOCKED", "maybe")
    code, output = run(capsys, monkeypatch, project, "preview", "--stack", "dev")
    assert code == 2 and "ACCELFIT_LOCKED" in output and "Traceback" not in output


def test_a_project_not_named_accelfit_reads_its_own_namespace(tmp_path, capsys, monkeypatch):
    project = project_copy(tmp_path, DEV.replace("accelfit:", "mlinfra:"), name="mlinfra")
    code, output = run(capsys, monkeypatch, project, "check", "stacks/Pulumi.dev.yaml")
    assert code == 0, output
    code, output = run(capsys, monkeypatch, project, "plan", "--stack", "dev", "--json")
    assert code == 0, output
    result = preview_stack("dev", project)
    assert result.document["resources"] and result.mandatory_violations == 0


def test_the_other_namespace_is_not_read_as_the_workload(tmp_path, capsys, monkeypatch):
    project = project_copy(tmp_path, DEV, name="mlinfra")  # keys still written accelfit:...
    code, output = run(capsys, monkeypatch, project, "check", "stacks/Pulumi.dev.yaml")
    assert code == 2 and "mlinfra:workload" in output


@pytest.mark.parametrize("value", ['{value: "abcdef.0123456789abcdef"}', '["abcdef.0123456789abcdef"]', "12345"])
def test_a_secret_that_is_not_text_is_refused_and_not_echoed(tmp_path, capsys, monkeypatch, value):
    project = project_copy(tmp_path, DEV.replace("config:\n", f"config:\n  accelfit:joinToken: {value}\n", 1))
    for command in (("check", "stacks/Pulumi.dev.yaml"), ("plan", "--stack", "dev"), ("preview", "--stack", "dev")):
        code, output = run(capsys, monkeypatch, project, *command)
        assert code == 2, output
        assert "config.accelfit:joinToken" in output and "a secret must be text" in output
        assert "0123456789abcdef" not in output and "12345" not in output


def test_only_a_well_formed_token_id_reaches_the_resource_name():
    assert token_secret_name("abcdef.0123456789abcdef") == "bootstrap-token-abcdef"
    for value in ('{"value": "abcdef.0123456789abcdef"}', "[secret]", "x" * 500, "abcdef"):
        assert token_secret_name(value) == "bootstrap-token-unknown"


@pytest.mark.parametrize("value", [
    {SECRET_SIG_KEY: SECRET_SIG, "value": "hunter2-plaintext"},
    ["a", {"b": {SECRET_SIG_KEY: SECRET_SIG, "plaintext": "hunter2-plaintext"}}],
    f'{{"{SECRET_SIG_KEY}": "{SECRET_SIG}", "value": "hunter2-plaintext"}}',
])
def test_messages_never_quote_a_secret_envelope(value):
    line = InputError([problem("preview.json", "steps[0].inputs.x", "not a number", "fix it", value)]).render()
    assert "hunter2" not in line and "not shown" in line
