"""Where accelfit keeps per-user data (the imported catalog, the team's efficiency file)."""

from __future__ import annotations

import os
from pathlib import Path


def user_data_path(env_var: str, *parts: str) -> Path:
    """`$<env_var>` when set, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/<parts>`."""
    explicit = os.environ.get(env_var)
    if explicit:
        return _expanded(explicit)
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return _expanded(data_home).joinpath("accelfit", *parts)


def _expanded(text: str) -> Path:
    """`~` and `~user` expanded; a `~user` with no such user (Path.expanduser raises RuntimeError) stays as it is,
    so the folder is then reported as unusable by whoever reads it, never a traceback."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)
