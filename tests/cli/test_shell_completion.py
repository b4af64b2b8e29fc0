"""Shell completion (click's, documented in the README): the installed `accelfit` prints a completion script for
`_ACCELFIT_COMPLETE=<shell>_source`, and completes the subcommands through it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ACCELFIT = Path(sys.executable).parent / "accelfit"


def _run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ACCELFIT)], env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def test_bash_completion_script_is_a_bash_function():
    result = _run({"_ACCELFIT_COMPLETE": "bash_source"})
    assert result.returncode == 0, result.stderr
    assert "_accelfit_completion() {" in result.stdout
    assert "complete -o nosort -F _accelfit_completion accelfit" in result.stdout


@pytest.mark.parametrize(("shell", "marker"), [("zsh", "#compdef accelfit"), ("fish", "complete --no-files --command accelfit")])
def test_zsh_and_fish_scripts(shell, marker):
    result = _run({"_ACCELFIT_COMPLETE": f"{shell}_source"})
    assert result.returncode == 0 and marker in result.stdout


def test_the_script_completes_the_subcommands():
    """What the bash function asks the program at a TAB after `accelfit sch`."""
    result = _run({"_ACCELFIT_COMPLETE": "bash_complete", "COMP_WORDS": "accelfit sch", "COMP_CWORD": "1"})
    assert result.returncode == 0 and "plain,schema" in result.stdout.splitlines()
