"""Every shipped stack recorded once per session at the previous release (CHANGELOG.md) and at the working tree,
the two in parallel subprocesses (upgrade_guard.py says how)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import upgrade_guard

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="session")
def release() -> tuple[str, str]:
    return upgrade_guard.previous_release((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def recorded(release, tmp_path_factory) -> dict[str, dict]:
    """{"before": {stack: rows}, "after": {stack: rows}}: the release's stacks as it built them, and the working
    tree's stacks (every shipped one) as it builds them."""
    version, commit = release
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the previous release's tree is read from git history")
    found = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    assert found.returncode == 0, (f"release {version} ({commit}) is not in this clone's history; fetch it "
                                   f"(git fetch --unshallow, or actions/checkout with fetch-depth: 0)")
    tree = upgrade_guard.extract_revision(ROOT, commit, tmp_path_factory.mktemp("release") / "tree")
    stacks_after = upgrade_guard.shipped_stacks(ROOT)
    # A stack the release did not ship has nothing running to protect.
    stacks_before = [stack for stack in upgrade_guard.shipped_stacks(tree) if stack in stacks_after]
    before = upgrade_guard.start_recording(tree, stacks_before)
    after = upgrade_guard.start_recording(ROOT, stacks_after)
    return {"before": upgrade_guard.finish_recording(before, f"{version} ({commit})"),
            "after": upgrade_guard.finish_recording(after, "the working tree")}
