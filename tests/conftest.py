"""Suite-wide set-up: every test sees the shipped catalog, never an imported one on this machine.

`accelfit catalog update` installs an imported catalog under `$ACCELFIT_CATALOG_DIR`, and `load_catalog()` uses
it when present; pointing the variable at an empty directory keeps the suite independent of the machine. Tests
that import a catalog set the variable themselves (monkeypatch) to their own temporary directory.
"""

from __future__ import annotations

import os
import tempfile


def pytest_configure(config) -> None:
    os.environ["ACCELFIT_CATALOG_DIR"] = tempfile.mkdtemp(prefix="accelfit-test-catalog-")
