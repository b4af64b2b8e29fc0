"""A killed `accelfit diff --base-ref` leaves no registered worktree and no preview child running (issue 29):
SIGTERM/SIGHUP/SIGINT unwind through the cleanup; after a SIGKILL, the next run removes the leftover worktree and
stops its child."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accelfit.diff.at_revision import prune_stale_worktrees

ROOT = Path(__file__).parents[2]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    project = tmp_path / "repo"
    (project / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", project)
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", project / "stacks")
    shutil.copytree(ROOT / "policies" / "config", project / "policies" / "config")
    _git(project, "init", "--quiet")
    _git(project, "add", ".")
    _git(project, "commit", "--quiet", "-m", "base")
    return project


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def _start(repo: Path, scratch: Path) -> tuple[subprocess.Popen, int]:
    """`accelfit diff --base-ref HEAD` running, with its preview child started; (process, child pid)."""
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(scratch)}
    process = subprocess.Popen([sys.executable, "-m", "accelfit.cli.main", "diff", "--base-ref", "HEAD", "--stack",
                                "dev"], cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list(scratch.glob("accelfit-base-*/child.pid"))
        if found and found[0].read_text().strip():
            return process, int(found[0].read_text())
        time.sleep(0.05)
    process.kill()
    raise AssertionError("the preview child never started")


def _worktrees(repo: Path) -> int:
    return _git(repo, "worktree", "list").count("\n")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signalled_diff_cleans_up(repo, tmp_path, signum):
    process, child = _start(repo, tmp_path / "tmp")
    process.send_signal(signum)
    process.wait(timeout=60)
    assert _worktrees(repo) == 1
    assert not _alive(child)
    assert list((tmp_path / "tmp").glob("accelfit-base-*")) == []


def test_after_a_sigkill_the_next_run_prunes_the_worktree_and_stops_the_child(repo, tmp_path):
    process, child = _start(repo, tmp_path / "tmp")
    deadline = time.monotonic() + 30
    while _worktrees(repo) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.kill()
    process.wait(timeout=30)
    assert _worktrees(repo) == 2  # SIGKILL cannot be caught: the leftover is there
    removed = prune_stale_worktrees(repo)
    assert len(removed) == 1 and _worktrees(repo) == 1
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    assert list((tmp_path / "tmp").glob("accelfit-base-*")) == []
