"""Pinned Helm charts of the Kubernetes layer, read from `data/charts.yaml`. Pure: no Pulumi import."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from accelfit.yamlio import read_package_yaml

CHARTS_FILE = Path(__file__).parent / "data" / "charts.yaml"


@dataclass(frozen=True)
class ChartPin:
    """One chart at one exact version, and the namespace accelfit installs it into."""

    chart: str
    version: str
    repository: str | None
    namespace: str
    source: str = ""
    """Where the pin was checked: upstream repository, tag and commit."""


@functools.cache
def chart_pins() -> dict[str, ChartPin]:
    data = read_package_yaml(CHARTS_FILE)
    return {key: ChartPin(**value) for key, value in data["charts"].items()}


def pin(key: str) -> ChartPin:
    return chart_pins()[key]
