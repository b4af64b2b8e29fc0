"""Shared fixtures: the packaged catalog (loaded once) and a writable copy of its data directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from accelfit.catalog import DATA_DIR, Catalog, load_catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture()
def data_copy(tmp_path: Path) -> Path:
    """A private copy of the data files that a test may break."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target
