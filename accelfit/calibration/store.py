"""Where the team efficiency file lives and how it is read and written.

`$ACCELFIT_EFFICIENCY_FILE` when set, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/efficiency.yaml`. The CLI
(`plan`, `lock`, `cost`, `preview`) and the Pulumi program load it when it exists and pass it to the planner.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from accelfit.atomicwrite import real_target, write_atomically
from accelfit.errors import InputError, problem
from accelfit.paths import user_data_path
from accelfit.planner.team_efficiency import TeamEfficiency
from accelfit.validation import validate
from accelfit.yamlio import read_yaml

ENV_VAR = "ACCELFIT_EFFICIENCY_FILE"


def efficiency_path() -> Path:
    return user_data_path(ENV_VAR, "efficiency.yaml")


def load_team_efficiency(path: Path | None = None) -> TeamEfficiency | None:
    """The team file when it exists (None otherwise); a malformed file is an InputError naming the field."""
    path = path or efficiency_path()
    if not os.path.exists(path):  # a dangling symlink too: calibrate then writes its target
        return None  # no calibration yet: the catalog's figures apply, and plans carry no "Calibration:" reason
    document = read_yaml(path)
    team = validate(TeamEfficiency, document, str(path))
    return team.model_copy(update={"path": str(path)})


def write_team_efficiency(team: TeamEfficiency, path: Path) -> None:
    """Write atomically (`accelfit.atomicwrite`: an exclusively created temporary file, fsynced, renamed over the
    old one; a symlink's target written; owner and mode kept), so a failed write leaves the old file and no copy."""
    document = team.model_dump(mode="json")
    text = ("# Written by `accelfit calibrate`: this team's measured efficiency, used by the planner over the\n"
            "# catalog's figures. Re-run `accelfit calibrate` to update it; delete it to go back to the catalog.\n"
            + yaml.safe_dump(document, sort_keys=False))
    try:
        real_target(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError([problem(str(path), "", f"cannot create the folder of the efficiency file "
                                  f"({error.strerror or error})", "pass --output a path in a folder you can "
                                  f"write, or set {ENV_VAR}")]) from None
    write_atomically(path, text.encode("utf-8"), what="the efficiency file")
