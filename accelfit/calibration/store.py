"""Where the team efficiency file lives and how it is read and written.

`$ACCELFIT_EFFICIENCY_FILE` when set, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/efficiency.yaml`. The CLI
(`plan`, `lock`, `cost`, `preview`) and the Pulumi program load it when it exists and pass it to the planner.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from accelfit.atomicwrite import real_target, write_atomically
from accelfit.errors import InputError, problem
from accelfit.inputfile import os_error
from accelfit.paths import user_data_path
from accelfit.validation import validate
from accelfit.yamlio import read_yaml

if TYPE_CHECKING:  # the team file's models are built when there is a team file to read
    from accelfit.planner.team_efficiency import TeamEfficiency

ENV_VAR = "ACCELFIT_EFFICIENCY_FILE"


def efficiency_path() -> Path:
    return user_data_path(ENV_VAR, "efficiency.yaml")


def load_team_efficiency(path: Path | None = None) -> TeamEfficiency | None:
    """The team file when it exists (None otherwise); a malformed file is an InputError naming the field."""
    path = path or efficiency_path()
    if not _present(path):
        return None  # no calibration yet: the catalog's figures apply, and plans carry no "Calibration:" reason
    from accelfit.planner.team_efficiency import TeamEfficiency

    document = read_yaml(path)
    team = validate(TeamEfficiency, document, str(path))
    return team.model_copy(update={"path": str(path)})


def _present(path: Path) -> bool:
    """Whether there is a team file to read. Only "nothing there" (no file, or a symlink to where calibrate will write
    one) means no calibration; a symlink loop, a folder that cannot be searched or a path through a file is an error
    naming the file, never a silent fallback to the catalog's figures (os.path.exists says False for all of them)."""
    try:
        os.stat(path)
        return True
    except OSError as error:
        if error.errno == errno.ENOENT:
            return False
        raise _unreadable(path, error) from None
    except ValueError as error:  # a NUL byte in $ACCELFIT_EFFICIENCY_FILE
        raise InputError([problem(str(path), ENV_VAR, f"the path cannot be used ({error})",
                                  f"set {ENV_VAR} to the path of the team efficiency file")]) from None


def _unreadable(path: Path, error: OSError) -> InputError:
    reason = os_error(path, error).problems[0]
    return InputError([problem(str(path), ENV_VAR, f"the team efficiency file cannot be read: {reason.message}",
                               f"{reason.fix}, or set {ENV_VAR} to the team file (unset it to use the catalog's "
                               "figures)")])


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
