"""Shared fixtures: the packaged catalog (loaded once), a writable copy of its data directory, and the
upstream-format fixtures imported once per session (each test gets its own copy of that import)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from accelfit.catalog import DATA_DIR, Catalog, load_catalog, loader, store
from accelfit.catalog.update import update_catalog

UPSTREAM_FIXTURES = Path(__file__).parent / "fixtures" / "skypilot_v8"
IMPORT_DATE = dt.date(2026, 11, 23)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture()
def data_copy(tmp_path: Path) -> Path:
    """A private copy of the data files that a test may break."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


@pytest.fixture(scope="session")
def imported_once(tmp_path_factory) -> Path:
    """`update_catalog` of the upstream-format fixtures, run once per session: the catalog folder it leaves (the
    imports/ folder, the relative `imported` pointer and the compiled cache). Never handed to a test to change."""
    directory = tmp_path_factory.mktemp("imported-once") / "catalog"
    update_catalog(str(UPSTREAM_FIXTURES), base=directory, today=IMPORT_DATE)
    loader.forget_active()
    return directory


@pytest.fixture()
def imported_base(imported_once: Path, tmp_path: Path, monkeypatch) -> Path:
    """A private copy of that import, byte for byte (the pointer stays a relative symlink, and the compiled cache
    is keyed on file names and bytes, not on the folder), made the active catalog; as if this test had run
    `accelfit catalog update --from <fixtures>` itself, without paying for the import each time."""
    directory = tmp_path / "catalog"
    shutil.copytree(imported_once, directory, symlinks=True)
    monkeypatch.setenv(store.ENV_VAR, str(directory))
    loader.forget_active()
    yield directory
    loader.forget_active()
