"""The fake third cloud (tests/clouds/fake_cloud.py), registered for one test and gone after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accelfit.clouds import Cloud, register, unregister
from tests.clouds import fake_cloud


@pytest.fixture
def third_cloud() -> Iterator[Cloud]:
    register(fake_cloud.CLOUD)
    try:
        yield fake_cloud.CLOUD
    finally:
        unregister(fake_cloud.CLOUD.name)
