"""Suite-wide set-up: every test sees the shipped catalog, never an imported one on this machine; and a folder the
test processes of one run share (`pytest -n N` runs N workers), for what they build once and read many times.

`accelfit catalog update` installs an imported catalog under `$ACCELFIT_CATALOG_DIR`, and `load_catalog()` uses
it when present; pointing the variable at an empty directory keeps the suite independent of the machine. Tests
that import a catalog set the variable themselves (monkeypatch) to their own temporary directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile

# Set by the first process of a run (pytest itself, or the controller of `-n N`, whose workers inherit it):
# tests/shared_once.py keeps what several processes would each build under it. Removed when that process ends.
SHARED_DIR_ENV = "ACCELFIT_TEST_SHARED_DIR"


def pytest_configure(config) -> None:
    os.environ["ACCELFIT_CATALOG_DIR"] = tempfile.mkdtemp(prefix="accelfit-test-catalog-")
    if SHARED_DIR_ENV not in os.environ:
        os.environ[SHARED_DIR_ENV] = tempfile.mkdtemp(prefix="accelfit-test-shared-")
        config._accelfit_owns_shared_dir = True


def pytest_unconfigure(config) -> None:
    if getattr(config, "_accelfit_owns_shared_dir", False):
        shutil.rmtree(os.environ.pop(SHARED_DIR_ENV), ignore_errors=True)
