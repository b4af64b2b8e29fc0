import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "planner"))

from accelfit.catalog import load_catalog


@pytest.fixture(scope="session")
def catalog():
    return load_catalog()
