"""Where the team efficiency file lives and how it is read and written.

`$ACCELFIT_EFFICIENCY_FILE` when set, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/efficiency.yaml`. The CLI
(`plan`, `lock`, `cost`, `preview`) and the Pulumi program load it when it exists and pass it to the planner.
"""

from __future__ import annotations

from pathlib import Path

import yaml

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
    if not path.exists():
        return None  # no calibration yet: the catalog's figures apply, and plans carry no "Calibration:" reason
    document = read_yaml(path)
    team = validate(TeamEfficiency, document, str(path))
    return team.model_copy(update={"path": str(path)})


def write_team_efficiency(team: TeamEfficiency, path: Path) -> None:
    """Write atomically (a temporary file renamed over the old one), so a failed write leaves the old file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = team.model_dump(mode="json")
    text = ("# Written by `accelfit calibrate`: this team's measured efficiency, used by the planner over the\n"
            "# catalog's figures. Re-run `accelfit calibrate` to update it; delete it to go back to the catalog.\n"
            + yaml.safe_dump(document, sort_keys=False))
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
