"""Shipped data files are read as mappings (accelfit.yamlio.read_package_yaml, typed dict[str, Any] for the
checker): every file that ships is one, and a file that is not is refused naming it, not handed on as a list."""

from __future__ import annotations

from pathlib import Path

import pytest

import accelfit
from accelfit.yamlio import read_package_yaml

PACKAGE = Path(accelfit.__file__).parent


def test_a_shipped_data_file_that_is_not_a_mapping_is_refused_naming_it(tmp_path):
    rows = tmp_path / "rows.yaml"
    rows.write_text("- name: a\n- name: b\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"rows\.yaml: a shipped data file must be a mapping at the top, not list"):
        read_package_yaml(rows)


def test_every_shipped_data_file_is_a_mapping():
    files = sorted(PACKAGE.glob("**/data/**/*.yaml"))
    assert len(files) > 20
    for path in files:
        assert isinstance(read_package_yaml(path), dict), path
