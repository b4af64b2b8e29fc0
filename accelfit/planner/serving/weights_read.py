"""Reading the weights (data/weights_read.yaml): the read rate per weights location and the engine's start-up, from
which the plan estimates how long a server replica takes to become ready. Loaded once; each row has its source."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import Field

from accelfit.catalog.rows import Frozen, Sourced
from accelfit.yamlio import read_package_yaml

WEIGHTS_READ_FILE = Path(__file__).parents[1] / "data" / "weights_read.yaml"


class ReadSource(Sourced):
    scheme: Literal["gs", "s3", "hf"]
    reader: Literal["gcs-fuse", "runai-streamer", "hf-hub"]
    network_share: float = Field(gt=0, le=1, description="Share of the node's network the reader reaches.")
    cap_gbps: float = Field(gt=0, description="Most one node reads at, Gbps.")


class Startup(Sourced):
    kind: Literal["gpu", "tpu"]
    seconds: float = Field(gt=0, description="Engine start after the weights are read, seconds.")


class WeightsReadData(Frozen):

    schema_version: Literal[1]
    sources: tuple[ReadSource, ...]
    startup: tuple[Startup, ...]


@functools.cache
def weights_read_data() -> WeightsReadData:
    return WeightsReadData.model_validate(read_package_yaml(WEIGHTS_READ_FILE))


def read_source(scheme: str) -> ReadSource:
    return next(row for row in weights_read_data().sources if row.scheme == scheme)


def startup(kind: str) -> Startup:
    return next(row for row in weights_read_data().startup if row.kind == kind)


def read_gbps(scheme: str, node_network_gbps: float | None) -> float:
    """What one node reads the weights at: its network share, capped (a TPU host without a figure: the cap)."""
    row = read_source(scheme)
    if not node_network_gbps:
        return row.cap_gbps
    return min(node_network_gbps * row.network_share, row.cap_gbps)
