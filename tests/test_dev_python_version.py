"""`./dev` checks the interpreter before it installs anything: on Python 3.10 set-up used to fail later with an
unrelated pip error. A stub interpreter in tmp answers the version query; the real script runs in a copy of the
project's files, so what it creates (or does not) is seen."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MESSAGE = "accelfit needs Python 3.11+ (found {}); install python3.11 or set PYTHON=/path/to/python3.11"


def _stub(tmp_path: Path, version: str) -> Path:
    """An 'interpreter' that prints `version` for the version query and fails at anything else."""
    stub = tmp_path / "bin" / "python"
    stub.parent.mkdir()
    stub.write_text(f'#!/bin/sh\ncase "$*" in *version_info*) echo "{version}"; exit 0 ;; esac\nexit 1\n',
                    encoding="utf-8")
    stub.chmod(0o755)
    return stub


def _dev(tmp_path: Path, python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("dev", "pyproject.toml", "requirements.lock", "requirements-uv.lock"):
        shutil.copy2(ROOT / name, project / name)
    env = {**os.environ, "PYTHON": str(python)}
    return subprocess.run([str(project / "dev"), *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("version", ["3.10", "3.9", "2.7"])
def test_setup_on_an_older_python_says_so_and_installs_nothing(tmp_path, version):
    result = _dev(tmp_path, _stub(tmp_path, version), "setup")
    assert result.returncode == 2
    assert MESSAGE.format(version) in result.stderr
    assert not (tmp_path / "project" / ".venv").exists() and not (tmp_path / "project" / ".venv-uv").exists()


def test_a_missing_interpreter_is_the_same_clear_error(tmp_path):
    result = _dev(tmp_path, tmp_path / "no-such-python", "test")
    assert result.returncode == 2 and MESSAGE.format("none") in result.stderr


def test_a_newer_python_passes_the_check(tmp_path):
    """3.12 gets past the check (the stub then fails the install itself, with another error)."""
    result = _dev(tmp_path, _stub(tmp_path, "3.12"), "setup")
    assert "needs Python" not in result.stderr and result.returncode != 0


def test_requires_python_is_the_same_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == ">=3.11"
