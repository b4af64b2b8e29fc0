"""Preview a stack as it was at a git revision: the `--base-ref` convenience of `accelfit diff`.

The revision is checked out into a temporary `git worktree` (the working tree is never touched) and previewed by
a subprocess of the same Python running `-m accelfit.cli.main preview --stack ENV --json` there. A subprocess,
because the preview imports the revision's own `components` and `policies`, which must not mix with the modules
this process already imported; the same Python, so both sides use the same installed Pulumi and providers. The
worktree is removed afterwards, also when the preview fails or the command is interrupted: SIGINT, SIGTERM and
SIGHUP unwind through the cleanup (`accelfit.unwind`), which stops the preview child (it runs in its own process
group, so its own children go too) and removes the worktree. After a SIGKILL, which nothing can catch, the next
`--base-ref` run finds the leftover: each worktree's folder records the pid of the run that made it and of its
preview child, and a worktree whose run is gone is removed (and its child stopped) before a new one is added.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.unwind import signals_unwind
from accelfit.diff.document import new_stack_document
from accelfit.inputfile import is_regular_file
from accelfit.jsonio import parse_json

PREVIEW_TIMEOUT_S = 900


SCRATCH_PREFIX = "accelfit-base-"
_OWNER_FILE = "owner.pid"
_CHILD_FILE = "child.pid"


def preview_at_revision(ref: str, stack: str, project_dir: Path) -> tuple[Any, str]:
    """(decoded preview document, a label naming it) for `stack` at git revision `ref`."""
    top = _git(["rev-parse", "--show-toplevel"], project_dir, ref).strip()
    commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], project_dir, ref).strip()
    # The project may sit below the repository root; preview the same folder inside the worktree.
    relative = project_dir.resolve().relative_to(Path(top).resolve())
    prune_stale_worktrees(project_dir)
    with signals_unwind(), tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX) as scratch:
        (Path(scratch) / _OWNER_FILE).write_text(str(os.getpid()), encoding="ascii")
        worktree = Path(scratch) / "tree"
        child: subprocess.Popen[str] | None = None
        try:
            _git(["worktree", "add", "--detach", "--quiet", str(worktree), commit], project_dir, ref)
            if not stack_exists(worktree / relative, stack):
                return new_stack_document(stack), f"{stack}@{ref} (new stack)"
            child = subprocess.Popen(
                [sys.executable, "-m", "accelfit.cli.main", "preview", "--stack", stack, "--json"],
                cwd=worktree / relative, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True)  # its own process group: stopped as a whole on the way out
            (Path(scratch) / _CHILD_FILE).write_text(str(child.pid), encoding="ascii")
            try:
                stdout, stderr = child.communicate(timeout=PREVIEW_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise InputError([problem(f"{stack}@{ref}", "", f"previewing the stack at this revision took more "
                                          f"than {PREVIEW_TIMEOUT_S} s", "pass BASE as a file")]) from None
            returncode = child.returncode
        finally:
            if child is not None and child.poll() is None:
                _stop_group(child.pid)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=10)
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=project_dir,
                           capture_output=True, check=False)
    label = f"{stack}@{ref}"
    # Exit 1 is a preview with mandatory violations (or no feasible plan): the document is still printed when
    # there is one, and a base that violates policy is a normal thing to compare against.
    if returncode not in (0, 1) or not stdout.strip():
        detail = (stderr.strip().splitlines() or ["no output"])[-1]
        raise InputError([problem(label, "", f"previewing the stack at this revision failed ({detail})",
                                  "check that the stack exists and previews at that revision, or pass BASE as a "
                                  "file")])
    return parse_json(stdout, label, "run `accelfit preview --stack ENV --json` at that revision to see why"), \
        label


def _stop_group(pid: int) -> None:
    """SIGTERM the preview child's process group, then SIGKILL it if it is still there a moment later."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, signum)
        except (ProcessLookupError, PermissionError):
            return
        for _ in range(20):
            try:
                os.killpg(pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() and 0 < len(text) <= 10 else None


def prune_stale_worktrees(project_dir: Path) -> list[str]:
    """Remove the worktrees earlier `--base-ref` runs registered and never removed (they were SIGKILLed), and stop
    their preview children; returns the worktrees removed. Only worktrees in an `accelfit-base-*` folder whose run
    is gone are touched; a child is stopped only if it still works inside that worktree (a reused pid is not)."""
    listing = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=project_dir, capture_output=True,
                             text=True, check=False)
    removed = []
    for line in listing.stdout.splitlines() if listing.returncode == 0 else []:
        if not line.startswith("worktree "):
            continue
        tree = Path(line.removeprefix("worktree "))
        scratch = tree.parent
        if tree.name != "tree" or not scratch.name.startswith(SCRATCH_PREFIX):
            continue
        owner = _read_pid(scratch / _OWNER_FILE)
        if owner is not None and _alive(owner):
            continue  # another run is using it now
        child = _read_pid(scratch / _CHILD_FILE)
        if child is not None and _works_in(child, tree):
            _stop_group(child)
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=project_dir, capture_output=True,
                       check=False)
        shutil.rmtree(scratch, ignore_errors=True)
        removed.append(str(tree))
    subprocess.run(["git", "worktree", "prune"], cwd=project_dir, capture_output=True, check=False)
    return removed


def _works_in(pid: int, tree: Path) -> bool:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd")).resolve().is_relative_to(tree.resolve())
    except (OSError, ValueError):
        return False


def stack_exists(project: Path, stack: str) -> bool:
    """Whether the project (at a revision, or the working tree) has this stack's file: a stack the change adds does
    not exist on the base side, one it deletes not on the head side."""
    from accelfit.stackfile import PROJECT_FILE, stack_path

    if not is_regular_file(project / PROJECT_FILE):
        return False  # the whole project is new
    try:
        return is_regular_file(stack_path(stack, project))
    except InputError:
        return True  # a broken Pulumi.yaml at the revision: let the preview report it


def _git(args: list[str], cwd: Path, ref: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise InputError([problem(None, "--base-ref", "git is not installed", "install git or pass BASE as a file")]) \
            from None
    if done.returncode != 0:
        detail = done.stderr.strip() or f"git {' '.join(args)} failed"
        raise InputError([problem(None, "--base-ref", f"{detail}", "pass a branch, tag or commit that exists "
                                  "(in CI: fetch it first, e.g. actions/checkout with fetch-depth: 0)", ref)])
    return done.stdout
