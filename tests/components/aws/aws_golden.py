"""Golden-file comparison for the AWS tests: exact match, regenerated with ACCELFIT_UPDATE_GOLDEN=1."""

from __future__ import annotations

import json
import os
from pathlib import Path

from accelfit.preview.recorder import Recording

GOLDEN = Path(__file__).parent / "golden"


def updating() -> bool:
    return os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1"


def check_text(name: str, actual: str) -> None:
    path = GOLDEN / name
    if updating():
        path.write_text(actual)
    assert path.exists(), f"{path} is missing; create it with ACCELFIT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(), f"{path} differs; regenerate with ACCELFIT_UPDATE_GOLDEN=1 if intended"


def resource_list(recording: Recording) -> str:
    """Every resource (type, name, parent name, inputs, protect), in a stable order, as pretty JSON."""
    rows = [{"type": r.type, "name": r.name, "parent": r.parent_name, "inputs": r.inputs, "protect": r.protect}
            for r in recording.resources]
    rows.sort(key=lambda row: (row["name"], row["type"]))
    return json.dumps(rows, indent=2, sort_keys=True) + "\n"
