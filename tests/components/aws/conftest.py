"""Fixtures for the AWS component tests (this directory only)."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()
