"""The GPU VM startup script: golden files, shellcheck, and the placeholders filled safely."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from components.gpu_vm_script import render_startup_script

GOLDEN = Path(__file__).parent / "golden"
CASES = {"startup-gcp-stop.sh": ("gcp", 30, "stop", "cd /opt/job && torchrun train.py"),
         "startup-aws-delete.sh": ("aws", 45, "delete", None)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_script_matches_golden(name):
    assert render_startup_script(*CASES[name]) == (GOLDEN / name).read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_script_passes_shellcheck(name, tmp_path):
    script = tmp_path / name
    script.write_text(render_startup_script(*CASES[name]), encoding="utf-8")
    result = subprocess.run(["shellcheck", "-s", "bash", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_command_reaches_the_vm_encoded_so_quotes_cannot_break_the_script():
    command = "echo 'it''s' \"$HOME\"; rm -rf /tmp/x"
    script = render_startup_script("gcp", 30, "stop", command)
    encoded = base64.b64encode(command.encode()).decode()
    assert f"COMMAND_B64={encoded}" in script
    assert command not in script


def test_idle_minutes_and_action_are_written_where_the_check_reads_them():
    script = render_startup_script("aws", 45, "delete", None)
    assert "AUTOSTOP_IDLE_MINUTES=45" in script and "AUTOSTOP_ACTION=delete" in script
    assert "nvidia-smi --query-gpu=utilization.gpu" in script and "OnUnitActiveSec=1min" in script


def test_unknown_action_is_refused():
    with pytest.raises(ValueError):
        render_startup_script("gcp", 30, "hibernate", None)
