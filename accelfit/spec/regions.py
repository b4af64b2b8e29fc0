"""The public regions of each cloud (data/regions.yaml, and a registered cloud's own `Cloud.regions` where that
list has none), to check `placement.regions` where the spec enters."""

from __future__ import annotations

import functools
from pathlib import Path

from accelfit.clouds import all_clouds
from accelfit.yamlio import read_package_yaml

_DATA = Path(__file__).parent / "data" / "regions.yaml"


@functools.cache
def _published() -> dict[str, frozenset[str]]:
    """cloud -> its region names. Shipped data, read once."""
    document = read_package_yaml(_DATA)
    return {cloud: frozenset(entry["regions"]) for cloud, entry in document["clouds"].items()}


def cloud_regions() -> dict[str, frozenset[str]]:
    """cloud -> its region names: the published lists, then each registered cloud's own where they have none (read
    each time: a cloud may be registered after the first call)."""
    published = _published()
    return {**published, **{cloud.name: frozenset(cloud.regions) for cloud in all_clouds()
                            if cloud.regions and cloud.name not in published}}


def cloud_of_region(region: str) -> str | None:
    """The cloud that has `region`, or None when no cloud does."""
    return next((cloud for cloud, regions in cloud_regions().items() if region in regions), None)
