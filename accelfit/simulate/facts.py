"""The simulator's own sourced figures (data/simulate.yaml): the HPA's defaults behind KEDA, node provisioning and
removal, the burst shape of variable traffic. Everything the serving components build from is read from the
serving-traffic facts instead (accelfit.planner.serving.traffic)."""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Literal

from pydantic import Field

from accelfit.catalog.rows import Frozen
from accelfit.yamlio import read_package_yaml

DATA_FILE = Path(__file__).parent / "data" / "simulate.yaml"


class HpaFacts(Frozen):
    sync_period_seconds: float = Field(gt=0)
    tolerance: float = Field(ge=0, lt=1)
    scale_up_pods: int = Field(ge=1)
    scale_up_percent: float = Field(gt=0)
    scale_up_period_seconds: float = Field(gt=0)
    scale_down_stabilization_seconds: float = Field(ge=0)
    source: str = Field(min_length=3)
    verified: bool


class NodeFacts(Frozen):
    scale_down_unneeded_seconds: float = Field(ge=0)
    provisioning_seconds: dict[str, float]
    source: str = Field(min_length=3)
    verified: bool


class TrafficFacts(Frozen):
    burst_share: float = Field(gt=0, lt=1)
    burst_seconds: float = Field(gt=0)
    source: str = Field(min_length=3)
    verified: bool


class SimulateFacts(Frozen):
    schema_version: Literal[1]
    as_of: dt.date
    hpa: HpaFacts
    nodes: NodeFacts
    traffic: TrafficFacts


@functools.cache
def simulate_facts() -> SimulateFacts:
    return SimulateFacts.model_validate(read_package_yaml(DATA_FILE))
