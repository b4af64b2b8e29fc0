"""Every data file the code reads at run time ships in the wheel: pyproject's package-data globs cover it.

An editable install (the README's) reads the source tree, so a missing glob only shows once someone installs the
wheel; this test catches it here.
"""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _package_data() -> dict[str, list[str]]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return pyproject["tool"]["setuptools"]["package-data"]


def test_every_data_file_under_a_package_is_listed_in_package_data():
    unlisted = []
    for package, patterns in _package_data().items():
        for path in (ROOT / package).rglob("*"):
            if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
                continue
            relative = path.relative_to(ROOT / package).as_posix()
            if not any(fnmatch(relative, pattern) for pattern in patterns):
                unlisted.append(f"{package}/{relative}")
    assert unlisted == [], f"add these to [tool.setuptools.package-data] in pyproject.toml: {unlisted}"
