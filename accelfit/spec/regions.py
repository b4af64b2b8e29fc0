"""The public regions of each cloud (data/regions.yaml), to check `placement.regions` where the spec enters."""

from __future__ import annotations

import functools
from pathlib import Path

from accelfit.yamlio import read_package_yaml

_DATA = Path(__file__).parent / "data" / "regions.yaml"


@functools.cache
def cloud_regions() -> dict[str, frozenset[str]]:
    """cloud -> its region names. Shipped data, read once."""
    document = read_package_yaml(_DATA)
    return {cloud: frozenset(entry["regions"]) for cloud, entry in document["clouds"].items()}


def cloud_of_region(region: str) -> str | None:
    """The cloud that has `region`, or None when no cloud does."""
    return next((cloud for cloud, regions in cloud_regions().items() if region in regions), None)
