"""Fixed overheads of a training run per platform (stack creation, accelerator start), from versioned data."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from accelfit.pricing.figures import RunWindow
from accelfit.yamlio import read_package_yaml

DATA = Path(__file__).parent / "data" / "run_overheads.yaml"


class Overhead(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    setup_hours: float = Field(ge=0)
    start_hours: float = Field(ge=0)
    source: str = Field(min_length=1)


class Overheads(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    as_of: dt.date
    platforms: dict[str, Overhead]


@lru_cache(maxsize=1)
def load_overheads() -> Overheads:
    # Shipped data: the C loader the other shipped files use (yamlio.read_package_yaml); PyYAML's pure-Python
    # safe_load took 1.5 ms of each plan for this one file.
    return Overheads.model_validate(read_package_yaml(DATA))


def overhead_for(platform: str) -> Overhead:
    return load_overheads().platforms.get(platform, Overhead(setup_hours=0.0, start_hours=0.0,
                                                              source="no overhead data for this platform"))


def run_window(platform: str, compute_hours: float) -> RunWindow:
    overhead = overhead_for(platform)
    return RunWindow(compute_hours=compute_hours, setup_hours=overhead.setup_hours,
                     start_hours=overhead.start_hours)
