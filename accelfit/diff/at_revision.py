"""Preview a stack as it was at a git revision: the `--base-ref` convenience of `accelfit diff`.

The revision is checked out into a temporary `git worktree` (the working tree is never touched) and previewed by
a subprocess of the same Python running `-m accelfit.cli.main preview --stack ENV --json` there. A subprocess,
because the preview imports the revision's own `components` and `policies`, which must not mix with the modules
this process already imported; the same Python, so both sides use the same installed Pulumi and providers. The
worktree is removed afterwards, also when the preview fails.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.diff.document import new_stack_document
from accelfit.inputfile import is_regular_file
from accelfit.jsonio import parse_json

PREVIEW_TIMEOUT_S = 900


def preview_at_revision(ref: str, stack: str, project_dir: Path) -> tuple[Any, str]:
    """(decoded preview document, a label naming it) for `stack` at git revision `ref`."""
    top = _git(["rev-parse", "--show-toplevel"], project_dir, ref).strip()
    commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], project_dir, ref).strip()
    # The project may sit below the repository root; preview the same folder inside the worktree.
    relative = project_dir.resolve().relative_to(Path(top).resolve())
    with tempfile.TemporaryDirectory(prefix="accelfit-base-") as scratch:
        worktree = Path(scratch) / "tree"
        _git(["worktree", "add", "--detach", "--quiet", str(worktree), commit], project_dir, ref)
        try:
            if not stack_exists(worktree / relative, stack):
                return new_stack_document(stack), f"{stack}@{ref} (new stack)"
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "accelfit.cli.main", "preview", "--stack", stack, "--json"],
                    cwd=worktree / relative, capture_output=True, text=True, timeout=PREVIEW_TIMEOUT_S, check=False)
            except subprocess.TimeoutExpired:
                raise InputError([problem(f"{stack}@{ref}", "", f"previewing the stack at this revision took more "
                                          f"than {PREVIEW_TIMEOUT_S} s", "pass BASE as a file")]) from None
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=project_dir,
                           capture_output=True, check=False)
    label = f"{stack}@{ref}"
    # Exit 1 is a preview with mandatory violations (or no feasible plan): the document is still printed when
    # there is one, and a base that violates policy is a normal thing to compare against.
    if done.returncode not in (0, 1) or not done.stdout.strip():
        detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise InputError([problem(label, "", f"previewing the stack at this revision failed ({detail})",
                                  "check that the stack exists and previews at that revision, or pass BASE as a "
                                  "file")])
    return parse_json(done.stdout, label, "run `accelfit preview --stack ENV --json` at that revision to see why"), \
        label


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
