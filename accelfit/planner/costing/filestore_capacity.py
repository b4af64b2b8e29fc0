"""Filestore share sizes per service tier, from `data/filestore_capacity.yaml` (sourced, dated). Pure.

`round_up_gib(tier, wanted)` is the size the planner writes into a plan; `capacity_problem(tier, gib)` says why
the API would refuse a size (used by the GCP components before anything is created).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

from accelfit.yamlio import read_package_yaml

CAPACITY_FILE = Path(__file__).parents[1] / "data" / "filestore_capacity.yaml"
PLANNED_TIER = "ZONAL"
"""The tier plans use (StoragePlan.filestore_tier's default): the one Google recommends for AI/ML training."""


@dataclass(frozen=True)
class CapacityBand:
    min_gib: int
    max_gib: int
    step_gib: int

    def holds(self, gib: int) -> bool:
        return self.min_gib <= gib <= self.max_gib and (gib - self.min_gib) % self.step_gib == 0


@dataclass(frozen=True)
class TierCapacity:
    tier: str
    bands: tuple[CapacityBand, ...]
    source: str
    as_of: str

    def describe(self) -> str:
        return "; ".join(f"{band.min_gib}-{band.max_gib} GiB in {band.step_gib} GiB steps" for band in self.bands)


@functools.cache
def tier_capacities() -> dict[str, TierCapacity]:
    data = read_package_yaml(CAPACITY_FILE)
    return {tier: TierCapacity(tier=tier, bands=tuple(CapacityBand(**band) for band in row["bands"]),
                               source=row["source"], as_of=str(data["as_of"]))
            for tier, row in data["tiers"].items()}


def round_up_gib(tier: str, wanted_gib: float) -> int:
    """The smallest size the tier accepts that holds `wanted_gib`. Raises ValueError past the tier's largest."""
    for band in tier_capacities()[tier].bands:
        size = band.min_gib + max(0, math.ceil((wanted_gib - band.min_gib) / band.step_gib)) * band.step_gib
        if size <= band.max_gib:
            return size
    raise ValueError(f"Filestore {tier} holds at most {tier_capacities()[tier].bands[-1].max_gib} GiB; "
                     f"{wanted_gib:,.0f} GiB do not fit")


def largest_gib(tier: str) -> int:
    return tier_capacities()[tier].bands[-1].max_gib


def capacity_problem(tier: str, gib: int) -> str | None:
    """Why Filestore `tier` refuses a share of `gib` GiB, or None when it accepts it."""
    capacity = tier_capacities().get(tier)
    if capacity is None:
        return f"unknown Filestore tier {tier}"
    if any(band.holds(gib) for band in capacity.bands):
        return None
    return f"Filestore {tier} takes {capacity.describe()} ({capacity.source.split(' ')[0]})"


def capacity_fix(tier: str, gib: int) -> str:
    """What to set instead of a size `capacity_problem` refused."""
    if tier not in tier_capacities():
        return f"use one of the Filestore tiers: {', '.join(tier_capacities())}"
    if gib > largest_gib(tier):
        return f"{tier} holds at most {largest_gib(tier)} GiB: pick a smaller share or another tier"
    return f"set {round_up_gib(tier, gib)} GiB (the next size {tier} accepts)"
