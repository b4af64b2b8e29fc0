"""The GPU VM startup script (GCE startup-script metadata, EC2 user data), rendered from
templates/gpu_vm_startup.sh.tmpl: the autostop idle check as a systemd timer, and the team's command
(training.command) run once as a systemd unit. Pure.

Every `{{ name }}` placeholder is filled with a shell-quoted value; rendering fails on a placeholder without a
value and on a value without a placeholder. The command reaches the VM base64-encoded, so no quoting in it can
break the script.
"""

from __future__ import annotations

import base64
import re
import shlex
from pathlib import Path

TEMPLATE = Path(__file__).parent / "templates" / "gpu_vm_startup.sh.tmpl"
_PLACEHOLDER = re.compile(r"\{\{ ([a-z_]+) \}\}")
# A GPU at or above this utilization (percent, nvidia-smi's sampled utilization.gpu) counts as busy: a job that
# loads data between steps still shows single-digit figures, an idle GPU shows 0.
BUSY_UTILIZATION_PCT = 5


def render_startup_script(cloud: str, idle_minutes: int, action: str, command: str | None) -> str:
    if cloud not in ("gcp", "aws") or action not in ("stop", "delete") or idle_minutes < 1:
        raise ValueError(f"unsupported GPU VM script: cloud {cloud!r}, action {action!r}, {idle_minutes} min")
    values = {
        "cloud": cloud, "idle_minutes": str(int(idle_minutes)), "action": action,
        "busy_utilization_pct": str(BUSY_UTILIZATION_PCT),
        "encoded_command": base64.b64encode(command.encode()).decode() if command else "",
    }
    template = TEMPLATE.read_text(encoding="utf-8")
    names = set(_PLACEHOLDER.findall(template))
    if names != set(values):
        raise ValueError(f"template and values differ: {sorted(names ^ set(values))}")
    return _PLACEHOLDER.sub(lambda match: shlex.quote(values[match.group(1)]), template)
