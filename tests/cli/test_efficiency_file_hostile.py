"""A team efficiency file that cannot be read is exit 2 naming the file and the fix (issue 36, item 10): a symlink
loop, a folder that cannot be searched, a path through a file, a directory, a FIFO or an unreadable file is never
silently skipped (a plan without the team's figures that exits 0). Nothing there at all, or a symlink to where
`calibrate` will write, is still "no calibration yet"."""

from __future__ import annotations

import os
import time

import pytest

from accelfit.calibration import store
from accelfit.cli.main import main

SPEC = """\
name: pretrain
kind: training
framework: pytorch
model: {parameters: 8B, precision: bf16}
training: {tokens: 200B, deadline_days: 14}
placement: {clouds: [aws], accelerators: [h100-80gb]}
"""


@pytest.fixture()
def plan(tmp_path, capsys, monkeypatch):
    def run(path) -> tuple[int, str]:
        spec = tmp_path / "spec.yaml"
        spec.write_text(SPEC)
        monkeypatch.setenv(store.ENV_VAR, str(path))
        code = main(["plan", str(spec), "--json"])
        _, err = capsys.readouterr()
        return code, err
    return run


def _loop(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.symlink_to(b)
    b.symlink_to(a)
    return a


def _search_denied(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "efficiency.yaml").write_text("training: []\n")
    folder.chmod(0o000)
    return folder / "efficiency.yaml"


def _through_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    return tmp_path / "afile" / "efficiency.yaml"


def _unreadable(tmp_path):
    path = tmp_path / "efficiency.yaml"
    path.write_text("training: []\n")
    path.chmod(0o000)
    return path


def _directory(tmp_path):
    (tmp_path / "efficiency.yaml").mkdir()
    return tmp_path / "efficiency.yaml"


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "efficiency.yaml")
    return tmp_path / "efficiency.yaml"


CASES = {"symlink-loop": (_loop, "symlink loop"), "folder-not-searchable": (_search_denied, "permission denied"),
         "through-a-file": (_through_a_file, "not a directory"), "unreadable": (_unreadable, "permission denied"),
         "directory": (_directory, "directory"), "fifo": (_fifo, "not a regular file")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_efficiency_file_that_cannot_be_read_is_exit_2_naming_it(tmp_path, plan, name):
    make, words = CASES[name]
    path = make(tmp_path)
    if name in ("folder-not-searchable", "unreadable") and os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    started = time.monotonic()
    try:
        code, err = plan(path)
    finally:
        for folder in (tmp_path / "locked",):
            if folder.exists():
                folder.chmod(0o700)
    assert code == 2, err
    assert str(path) in err and words in err and "Fix:" in err and "Traceback" not in err
    assert time.monotonic() - started < 30


def test_the_symlink_loop_message_names_the_setting(tmp_path, plan):
    code, err = plan(_loop(tmp_path))
    assert code == 2 and store.ENV_VAR in err


@pytest.mark.parametrize("kind", ["absent", "dangling-symlink"])
def test_no_file_yet_is_still_no_calibration(tmp_path, plan, kind):
    path = tmp_path / "efficiency.yaml"
    if kind == "dangling-symlink":
        path.symlink_to(tmp_path / "shared" / "team.yaml")  # calibrate writes the link's target
    code, err = plan(path)
    assert code == 0, err
    assert store.load_team_efficiency(path) is None


def test_a_permission_error_is_exit_2_even_for_root(tmp_path, plan, monkeypatch):
    """The same refusal where the suite runs as root (mode bits do not stop root): the OS's answer is simulated."""
    path = tmp_path / "efficiency.yaml"
    path.write_text("training: []\n")
    real = os.stat

    def denied(target, *args, **kwargs):
        if str(target) == str(path):
            raise PermissionError(13, "Permission denied", str(target))
        return real(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", denied)
    code, err = plan(path)
    assert code == 2 and str(path) in err and "permission denied" in err and "Traceback" not in err
