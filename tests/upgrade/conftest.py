"""Every shipped stack recorded once per session at the working tree (in a subprocess, as upgrade_guard.py says),
and the previous release's (CHANGELOG.md) stateful rows: stored in recorded_release.json while its key holds,
else recorded from the release's tree in a second subprocess alongside."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

import upgrade_guard

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="session")
def release() -> tuple[str, str]:
    return upgrade_guard.previous_release((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def recorded(release, tmp_path_factory) -> dict[str, dict]:
    """{"before": {stack: rows}, "after": {stack: rows}}: the release's stacks as it built them (their stateful
    rows when stored), and the working tree's stacks (every shipped one) as it builds them."""
    version, commit = release
    stacks_after = upgrade_guard.shipped_stacks(ROOT)
    after = upgrade_guard.start_recording(ROOT, stacks_after)
    stored = upgrade_guard.stored_release(commit)
    if stored is None:
        before = _record_release_now(version, commit, stacks_after, tmp_path_factory)
    else:
        before = {stack: rows for stack, rows in stored.items() if stack in stacks_after}
    return {"before": before, "after": upgrade_guard.finish_recording(after, "the working tree")}


def _record_release_now(version: str, commit: str, stacks_after: list[str], tmp_path_factory) -> dict[str, list]:
    warnings.warn(f"{upgrade_guard.RECORDED_RELEASE.name} does not hold release {version} ({commit}) for the "
                  "installed packages: recording it now; store it with `.venv/bin/python "
                  "tests/upgrade/upgrade_guard.py --record-release`", stacklevel=2)
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the previous release's tree is read from git history")
    found = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    assert found.returncode == 0, (f"release {version} ({commit}) is not in this clone's history; fetch it "
                                   f"(git fetch --unshallow, or actions/checkout with fetch-depth: 0)")
    tree = upgrade_guard.extract_revision(ROOT, commit, tmp_path_factory.mktemp("release") / "tree")
    # A stack the release did not ship has nothing running to protect.
    stacks_before = [stack for stack in upgrade_guard.shipped_stacks(tree) if stack in stacks_after]
    return upgrade_guard.finish_recording(upgrade_guard.start_recording(tree, stacks_before), f"{version} ({commit})")
