"""`accelfit diff --base-ref REF --stack ENV`: the stack previewed at a git revision (in a temporary worktree,
by a subprocess) against the working tree, in a throwaway repository holding a copy of the project's stacks."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from accelfit.cli.main import main

ROOT = Path(__file__).parents[2]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
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
    monkeypatch.chdir(project)
    return project


def test_base_ref_previews_the_revision_and_diffs_the_working_tree(repo, capsys):
    stack = repo / "stacks" / "Pulumi.dev.yaml"
    stack.write_text(stack.read_text(encoding="utf-8").replace("tokens: 20B", "tokens: 150B"), encoding="utf-8")
    code = main(["diff", "--base-ref", "HEAD", "--stack", "dev", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    diff = json.loads(out)
    assert diff["base"] == "dev@HEAD" and diff["head"] == "dev (working tree)"
    assert diff["selection"]["base_option"].endswith("/v6e-4/x1/spot")
    assert diff["selection"]["head_option"].endswith("/v6e-16/x1/spot")
    assert diff["cost"]["delta_monthly_usd"] > 0
    # The temporary worktree is gone again.
    assert _git(repo, "worktree", "list").count("\n") == 1


def test_an_unknown_ref_exits_2(repo, capsys):
    code = main(["diff", "--base-ref", "no-such-branch", "--stack", "dev"])
    _, err = capsys.readouterr()
    assert code == 2 and "--base-ref" in err and "no-such-branch" in err


def test_base_ref_needs_a_stack(repo, capsys):
    code = main(["diff", "--base-ref", "HEAD"])
    _, err = capsys.readouterr()
    assert code == 2 and "--stack" in err


def test_a_stack_that_does_not_exist_at_the_base_is_a_new_stack(repo, capsys):
    shutil.copy(repo / "stacks" / "Pulumi.dev.yaml", repo / "stacks" / "Pulumi.qa-new.yaml")
    text = (repo / "stacks" / "Pulumi.qa-new.yaml").read_text(encoding="utf-8")
    (repo / "stacks" / "Pulumi.qa-new.yaml").write_text(text, encoding="utf-8")
    code = main(["diff", "--base-ref", "HEAD", "--stack", "qa-new", "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    diff = json.loads(out)
    assert diff["base_is_new"] is True and diff["base"] == "qa-new@HEAD (new stack)"
    assert diff["summary"]["add"] > 0 and diff["summary"]["remove"] == 0
    assert main(["diff", "--base-ref", "HEAD", "--stack", "qa-new"]) in (0, 1)
    assert "a new stack, every resource is new" in capsys.readouterr().out


def test_a_stack_the_working_tree_deletes_is_a_removed_stack(repo, capsys):
    (repo / "stacks" / "Pulumi.dev.yaml").unlink()
    code = main(["diff", "--base-ref", "HEAD", "--stack", "dev", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    diff = json.loads(out)
    assert diff["head_is_removed"] is True and diff["head"] == "dev (working tree, removed)"
    assert diff["summary"]["remove"] > 0 and diff["summary"]["add"] == 0
    assert diff["cost"]["head_monthly_usd"] == 0.0 and diff["cost"]["delta_monthly_usd"] < 0
    assert main(["diff", "--base-ref", "HEAD", "--stack", "dev"]) == 0
    assert "the change deletes it" in capsys.readouterr().out


def test_a_stack_on_neither_side_is_still_an_unknown_stack(repo, capsys):
    code = main(["diff", "--base-ref", "HEAD", "--stack", "nowhere"])
    _, err = capsys.readouterr()
    assert code == 2 and "nowhere" in err
