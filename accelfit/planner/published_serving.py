"""Published serving results as data (data/calibration_inference.yaml) and the model's figure for each.

The check asks the same replica model the planner sizes with for the published system's best offline throughput:
every tensor-parallel group size that divides the system, each at the largest batch memory and the engine allow.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from accelfit.catalog.models import Catalog
from accelfit.planner.lengths import Lengths
from accelfit.planner.serving import Efficiency, ReplicaModel
from accelfit.planner.serving_data import efficiency_for
from accelfit.spec import ModelSpec
from accelfit.yamlio import read_yaml

POINTS_FILE = Path(__file__).parent / "data" / "calibration_inference.yaml"


class PublishedServing(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    accelerator: str
    devices: int = Field(ge=1)
    engine: str
    model: ModelSpec
    input_tokens: int = Field(ge=1)
    output_tokens: int = Field(ge=1)
    sequences_per_request: int = Field(default=1, ge=1, description="Beams per request (beam search).")
    output_tokens_per_second: float = Field(gt=0)
    as_of: dt.date
    verified: bool = True
    source: str
    lengths_source: str = ""
    known_miss: str = Field(default="", description=(
        "Why the model cannot land within x1.5 of this point (a named reason, not a fit); the calibration test "
        "expects the miss, so a model change that lands the point is noticed and the reason is revisited."))


def published_points() -> tuple[PublishedServing, ...]:
    return tuple(PublishedServing.model_validate(row) for row in read_yaml(POINTS_FILE)["points"])


def modelled_throughput(point: PublishedServing, catalog: Catalog, efficiency: Efficiency | None = None,
                        max_batch: int = 1024) -> float:
    """The model's best offline output tokens/s for the published system (all its devices)."""
    from accelfit.planner.sizing import best_batch, usable_batch  # sizing imports this module's neighbours

    accelerator = catalog.accelerator(point.accelerator)
    if efficiency is None:
        row = efficiency_for(accelerator.name, point.engine)
        efficiency = Efficiency(row.decode_bandwidth, row.prefill_compute)
    lengths = Lengths(point.input_tokens, point.output_tokens, point.input_tokens, point.output_tokens,
                      point.input_tokens, point.output_tokens, varying=False)
    model = ReplicaModel(accelerator, point.model, lengths, efficiency, point.sequences_per_request)
    best = 0.0
    for group in (size for size in (1, 2, 4, 8) if size <= point.devices and point.devices % size == 0):
        memory_batch = usable_batch(model, group)
        if memory_batch < 1:
            continue
        batch = best_batch(model, group, memory_batch, max_batch, latency_ms=float("inf"))
        if batch:
            best = max(best, point.devices // group * model.output_tokens_per_second(group, batch))
    return best
