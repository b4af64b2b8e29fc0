"""Training efficiency by precision, architecture and size class (data/training_efficiency.yaml).

The catalog's MFU is a dense BF16 figure per accelerator. An FP8 or FP4 run goes faster by a published speed-up
over BF16 on that accelerator and model size; a Mixture-of-Experts run reaches a share of the dense efficiency
(FLOPs counted from the active parameters); a non-transformer model has its own figures. Each row carries its
source; the whole-run overhead stays a separate term (preferences.TRAINING_OVERHEAD_FRACTION).
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from accelfit.catalog.models import Precision
from accelfit.yamlio import read_package_yaml

EFFICIENCY_FILE = Path(__file__).parents[1] / "data" / "training_efficiency.yaml"
ANY = "*"


class _Row(BaseModel):
    # Built when the file is first read (defer_build): most plans never read it, and building the validators of
    # the file's models would cost every `accelfit plan` (issue 39).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    accelerator: str
    as_of: dt.date
    source: str = Field(min_length=3)
    verified: bool = True


class PrecisionSpeedup(_Row):
    precision: Precision
    min_active_parameters: float = Field(ge=0)
    speedup_over_bf16: float = Field(gt=0, le=4)


class MoeFactor(_Row):
    min_active_parameters: float = Field(ge=0)
    factor: float = Field(gt=0, le=1)


class OtherModel(_Row):
    training_mfu: float = Field(gt=0, le=1)
    serving_compute: float = Field(gt=0, le=1)
    batch_overhead_ms: float = Field(ge=0)


class MoeFit(BaseModel):
    """How well the MoE factors reproduce the published MoE rows: published over planned throughput per row."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    as_of: dt.date
    geo_mean: float = Field(gt=0)
    low: float = Field(gt=0)
    high: float = Field(gt=0)
    residuals: dict[str, float] = Field(min_length=4, description="Row name (published_training_runs.yaml) -> "
                                        "published / planned throughput.")

    def summary(self) -> str:
        return (f"fitted to {len(self.residuals)} published MoE runs and benchmarks: published/planned throughput "
                f"geo-mean x{self.geo_mean:g}, x{self.low:g}-x{self.high:g}")


class TrainingEfficiencyData(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    schema_version: int
    precision_speedups: tuple[PrecisionSpeedup, ...]
    moe: tuple[MoeFactor, ...]
    moe_fit: MoeFit
    other_models: tuple[OtherModel, ...]


@functools.cache
def training_efficiency_data() -> TrainingEfficiencyData:
    return TrainingEfficiencyData.model_validate(read_package_yaml(EFFICIENCY_FILE))


@dataclass(frozen=True)
class Figure:
    value: float
    source: str


def precision_speedup(accelerator: str, precision: Precision, active_parameters: float) -> Figure | None:
    """The published speed-up over BF16 for this accelerator, precision and size class; None when there is none
    (BF16/FP16/FP32 runs, or an accelerator without a published low-precision training figure)."""
    rows = [row for row in training_efficiency_data().precision_speedups
            if row.accelerator == accelerator and row.precision is precision
            and row.min_active_parameters <= active_parameters]
    if not rows:
        return None
    row = max(rows, key=lambda row: row.min_active_parameters)
    return Figure(row.speedup_over_bf16, row.source)


def moe_factor(accelerator: str, active_parameters: float) -> Figure:
    """The accelerator's own rows, else the "*" rows; of those the largest size class the model reaches."""
    rows = [row for row in training_efficiency_data().moe if row.accelerator == accelerator] or \
        [row for row in training_efficiency_data().moe if row.accelerator == ANY]
    row = max((row for row in rows if row.min_active_parameters <= active_parameters),
              key=lambda row: row.min_active_parameters)
    return Figure(row.factor, f"{training_efficiency_data().moe_fit.summary()}; {row.source}")


def other_model(accelerator: str) -> OtherModel:
    rows = {row.accelerator: row for row in training_efficiency_data().other_models}
    return rows.get(accelerator) or rows[ANY]
