"""Where accelfit keeps per-user data (the imported catalog, the team's efficiency file)."""

from __future__ import annotations

import os
from pathlib import Path


def user_data_path(env_var: str, *parts: str) -> Path:
    """`$<env_var>` when set, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/<parts>`."""
    explicit = os.environ.get(env_var)
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser().joinpath("accelfit", *parts)
