"""`accelfit lock` never loses a byte of a user's stack file: atomic replacement (full disk, I/O error, a kill in
the middle), concurrent runs, unusual layouts (CRLF, no final newline, quoted `config`, block scalars that look
like the selection key), read-only files."""

from __future__ import annotations

import datetime as dt
import errno
import multiprocessing
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from accelfit import lockfile
from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.planner.lock import Selection

ROOT = Path(__file__).resolve().parents[2]
DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
SELECTION = Selection(option="gke-tpu/gcp/us-central1/tpu-v6e/v6e-4/x1/spot", locked_on=dt.date(2026, 11, 23),
                      catalog_as_of=dt.date(2026, 11, 21), monthly_usd=57.98, total_usd=48.21)
KEY = "accelfit:selection"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    return tmp_path


def _stack(project: Path, text: str | bytes, name: str = "dev") -> Path:
    path = project / "stacks" / f"Pulumi.{name}.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _without_selection(text: str) -> dict:
    document = yaml.safe_load(text)
    document["config"].pop(KEY, None)
    return document


def _lines_kept(before: str, after: str) -> None:
    """Every line of `before` is in `after`, in order (the selection block is only inserted)."""
    remaining = iter(after.splitlines())
    for line in before.splitlines():
        assert any(line == candidate for candidate in remaining), f"line lost: {line!r}"


def test_lock_writes_the_selection_and_keeps_every_line(project):
    path = _stack(project, DEV)
    lockfile.write_selection(path, "accelfit", SELECTION)
    after = path.read_text(encoding="utf-8")
    _lines_kept(DEV, after)
    assert Selection.model_validate(yaml.safe_load(after)["config"][KEY]) == SELECTION
    lockfile.write_selection(path, "accelfit", SELECTION.model_copy(update={"monthly_usd": 99.0}))
    again = path.read_text(encoding="utf-8")
    assert again.count(KEY) == 1 and "monthly_usd: 99.0" in again
    _lines_kept(DEV, again)


@pytest.mark.parametrize("variant", ["no-final-newline", "crlf", "quoted-config", "spaced-config",
                                     "block-scalar-lookalike", "comment-after", "four-space-indent"])
def test_unusual_layouts_keep_everything_but_the_selection(project, variant):
    text = {
        "no-final-newline": DEV.rstrip("\n"),
        "crlf": DEV.replace("\n", "\r\n"),
        "quoted-config": DEV.replace("config:", '"config":', 1),
        "spaced-config": DEV.replace("config:", "config :", 1),
        "block-scalar-lookalike": DEV + "notes: |\n  accelfit:selection: not the selection\n    indented: 1\n",
        "comment-after": DEV + "# a closing comment\n",
        "four-space-indent": DEV.replace("\n  ", "\n    ").replace("\n    accelfit:workload", "\n    accelfit:workload"),
    }[variant]
    path = _stack(project, text)
    lockfile.write_selection(path, "accelfit", SELECTION)
    raw = path.read_bytes()
    after = raw.decode("utf-8")
    assert _without_selection(after) == _without_selection(text)
    assert Selection.model_validate(yaml.safe_load(after)["config"][KEY]) == SELECTION
    _lines_kept(text.replace("\r\n", "\n"), after.replace("\r\n", "\n"))
    if variant == "crlf":
        assert raw.count(b"\r\n") == raw.count(b"\n"), "a CRLF file stays CRLF throughout"
    if variant == "no-final-newline":
        assert DEV.rstrip("\n").splitlines()[-1] in after.splitlines()


def test_an_existing_selection_is_replaced_not_duplicated(project):
    path = _stack(project, DEV)
    lockfile.write_selection(path, "accelfit", SELECTION)
    lockfile.write_selection(path, "accelfit", SELECTION)
    assert path.read_text(encoding="utf-8").count("# Written by `accelfit lock`") == 1


def test_flow_style_config_is_refused_and_untouched(project):
    text = "config: {accelfit:team: a}\n"
    path = _stack(project, text)
    with pytest.raises(InputError, match="flow style"):
        lockfile.write_selection(path, "accelfit", SELECTION)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failed_write_leaves_the_file_intact_and_no_temporary(project, monkeypatch, failing):
    path = _stack(project, DEV)
    mode = path.stat().st_mode

    def broken(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lockfile.os, failing, broken)
    with pytest.raises(InputError, match=r"No space left on device.*unchanged"):
        lockfile.write_selection(path, "accelfit", SELECTION)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == DEV and path.stat().st_mode == mode
    assert sorted(p.name for p in path.parent.iterdir()) == ["Pulumi.dev.yaml"]


def test_the_file_mode_is_kept(project):
    path = _stack(project, DEV)
    path.chmod(0o640)
    lockfile.write_selection(path, "accelfit", SELECTION)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_read_only_file_is_refused_with_exit_2(project, monkeypatch, capsys):
    path = _stack(project, DEV)
    path.chmod(0o444)
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", "dev"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == DEV


_SLOW_WRITER = """
import os, sys, time
from pathlib import Path
from accelfit import lockfile
real_write = os.write
def slow_write(fd, data):
    time.sleep(30)  # killed here, half way through replacing the file
    return real_write(fd, data)
lockfile.os.write = slow_write
from tests.preview.test_lock_safety import SELECTION
print("writing", flush=True)
lockfile.write_selection(Path(sys.argv[1]), "accelfit", SELECTION)
"""


def test_a_kill_during_the_write_leaves_the_old_file(project):
    path = _stack(project, DEV)
    process = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(path)], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "writing"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(p.name.endswith(".tmp") for p in path.parent.iterdir()):
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert path.read_text(encoding="utf-8") == DEV
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["config"]["accelfit:team"] == "research-llm"


def _lock_in_process(path: str, monthly: float) -> None:
    lockfile.write_selection(Path(path), "accelfit", SELECTION.model_copy(update={"monthly_usd": monthly}))


def test_concurrent_locks_take_turns(project):
    path = _stack(project, DEV)
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_lock_in_process, args=(str(path), float(index))) for index in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 6
    after = path.read_text(encoding="utf-8")
    assert after.count(KEY) == 1 and after.count("# Written by `accelfit lock`") == 1
    assert _without_selection(after) == _without_selection(DEV)
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_lock_command_end_to_end_keeps_the_file_valid(project, monkeypatch, capsys):
    path = _stack(project, DEV)
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", "dev"]) == 0
    assert "locked" in capsys.readouterr().out
    assert main(["check", str(path)]) == 0
    assert os.access(path, os.R_OK)
