"""Reading YAML input files into plain data, turning every failure into a user-facing `InputError`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from accelfit.errors import InputError, problem

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path | str) -> Any:
    """Parse a YAML file; a missing file, unreadable file or syntax error becomes an InputError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([problem(str(path), "", "file not found", "check the path (relative paths are "
                                  "resolved from the current directory or the file that names them)")]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError([problem(str(path), "", f"cannot read the file ({error.__class__.__name__})",
                                  "make it a readable UTF-8 text file")]) from None
    return parse_yaml(text, str(path))


def parse_yaml(text: str, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        raise InputError([problem(source, "", f"not valid YAML at {where}: {error.problem}",
                                  "fix the YAML syntax there (indentation, quotes, ':' after keys)")]) from None
    except yaml.YAMLError as error:
        raise InputError([problem(source, "", f"not valid YAML: {error}", "fix the YAML syntax")]) from None
