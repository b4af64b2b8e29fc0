"""Published serving results as data (data/calibration_inference.yaml) and the model's figure for each.

The check asks the same replica model the planner sizes with for what the published benchmark measured, in the
benchmark's own shape:
  - an offline maximum-throughput result (MLPerf Offline, trtllm-bench): the system's best steady-state throughput,
    every tensor-parallel group size that divides the system, each at the largest batch memory and the engine allow;
  - a server result (`scenario: server`, MLPerf Server): the tokens/s the system sustains with every request's TTFT
    and TPOT p99 inside the benchmark's bounds: the planner's own capacity search (load.py) at those bounds,
    on the tensor-parallel group that serves the most;
  - a finite run (`requests` set: vLLM's benchmark_throughput and CI throughput tests, `vllm bench serve` or
    sglang.bench_serving at request rate inf, with or without a concurrency cap): the run itself, stepped through
    with its fill and drain (benchmark_run.py), because the published figure is requests ÷ that run's duration.
Answer lengths are fixed unless the point's model gives `context_tokens` (the benchmark's prompt + answer filter),
in which case they vary as the planner's own length model says (lengths.py).
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from accelfit.catalog.models import Catalog
from accelfit.planner.serving.lengths import lengths_for
from accelfit.planner.serving.replica import Efficiency, ReplicaModel
from accelfit.planner.serving.engine_figures import efficiency_for
from accelfit.planner.serving.benchmark_run import run
from accelfit.spec import ModelSpec
from accelfit.yamlio import read_yaml

POINTS_FILE = Path(__file__).parents[1] / "data" / "calibration_inference.yaml"


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
    requests: int | None = Field(default=None, ge=1, description=(
        "Requests in the published run when its figure is requests ÷ the duration of one finite run that starts "
        "with every request waiting (request rate inf); the comparison then steps through that run."))
    max_in_flight: int | None = Field(default=None, ge=1, description=(
        "Most requests the run keeps in flight: the engine's max_num_seqs or the client's --max-concurrency, "
        "whichever is smaller (memory may cap it lower)."))
    tensor_parallel: int | None = Field(default=None, ge=1, description="The published replica's tensor-parallel size.")
    scenario: Literal["offline", "server"] = Field(default="offline", description=(
        "offline: maximum throughput (or a finite run with `requests`); server: throughput within the TTFT and TPOT "
        "p99 bounds below, requests arriving over time (MLPerf Server)."))
    ttft_p99_ms: float | None = Field(default=None, gt=0, description="Server: the benchmark's TTFT p99 bound.")
    tpot_p99_ms: float | None = Field(default=None, gt=0, description="Server: the benchmark's TPOT p99 bound.")
    as_of: dt.date
    verified: bool = True
    source: str
    lengths_source: str = ""
    shape_source: str = Field(default="", description="Where the run's shape (requests, in flight, TP) is stated.")

    @model_validator(mode="after")
    def _a_run_names_its_shape(self) -> PublishedServing:
        if self.scenario == "server" and (self.ttft_p99_ms is None or self.tpot_p99_ms is None or self.requests):
            raise ValueError(f"{self.name}: a server result needs ttft_p99_ms and tpot_p99_ms and no requests")
        if self.requests is not None:
            if self.max_in_flight is None or self.tensor_parallel is None or not self.shape_source:
                raise ValueError(f"{self.name}: a finite run needs max_in_flight, tensor_parallel and shape_source")
            if self.devices % self.tensor_parallel:
                raise ValueError(f"{self.name}: tensor_parallel must divide devices")
            if self.sequences_per_request != 1:
                raise ValueError(f"{self.name}: finite runs are modelled without beam search")
        return self


def published_points() -> tuple[PublishedServing, ...]:
    return tuple(PublishedServing.model_validate(row) for row in read_yaml(POINTS_FILE)["points"])


def replica_model_for(point: PublishedServing, catalog: Catalog, efficiency: Efficiency | None = None) -> ReplicaModel:
    accelerator = catalog.accelerator(point.accelerator)
    if efficiency is None:
        row = efficiency_for(accelerator.name, point.engine)
        efficiency = Efficiency(row.decode_bandwidth, row.prefill_compute)
    lengths = lengths_for(point.input_tokens, point.output_tokens, point.model.context_tokens)
    return ReplicaModel(accelerator, point.model, lengths, efficiency, point.sequences_per_request)


def modelled_throughput(point: PublishedServing, catalog: Catalog, efficiency: Efficiency | None = None,
                        max_batch: int = 1024) -> float:
    """The model's output tokens/s for the published system (all its devices), in the benchmark's shape."""
    from accelfit.planner.serving.sizing import best_batch, usable_batch  # sizing imports this module's neighbours

    model = replica_model_for(point, catalog, efficiency)
    if point.scenario == "server":
        return _server_throughput(point, model)
    if point.requests is not None:
        assert point.tensor_parallel is not None  # a finite run names its shape (_a_run_names_its_shape)
        return _finite_run_throughput(point, model, usable_batch(model, point.tensor_parallel))
    best = 0.0
    for group in (size for size in (1, 2, 4, 8) if size <= point.devices and point.devices % size == 0):
        memory_batch = usable_batch(model, group)
        if memory_batch < 1:
            continue
        batch = best_batch(model, group, memory_batch, max_batch, latency_ms=float("inf"))
        if batch:
            best = max(best, point.devices // group * model.output_tokens_per_second(group, batch))
    return best


def _finite_run_throughput(point: PublishedServing, model: ReplicaModel, memory_batch: int) -> float:
    """Each replica serves its share of the run's requests; the run lasts as long as the slowest replica's share."""
    assert point.requests is not None and point.max_in_flight is not None and point.tensor_parallel is not None
    if memory_batch < 1:
        return 0.0
    replicas = point.devices // point.tensor_parallel
    share = math.ceil(point.requests / replicas)
    result = run(model, point.tensor_parallel, share, min(point.max_in_flight, memory_batch))
    return replicas * result.output_tokens_per_second


def _server_throughput(point: PublishedServing, model: ReplicaModel) -> float:
    """The most output tokens/s the system carries with TTFT and TPOT p99 within the published bounds."""
    from accelfit.planner.serving.engine_figures import engine_limits, max_num_batched_tokens
    from accelfit.planner.serving.load import Budgets, ReplicaLoad, largest_slots
    from accelfit.planner.serving.sizing import usable_batch

    budgets = Budgets(math.inf, point.ttft_p99_ms, point.tpot_p99_ms)
    token_budget = max_num_batched_tokens(point.accelerator)
    best = 0.0
    for group in (size for size in (1, 2, 4, 8) if size <= point.devices and point.devices % size == 0):
        memory_batch = usable_batch(model, group)
        slots = largest_slots(model, group, min(engine_limits().max_num_seqs, memory_batch), token_budget, budgets) \
            if memory_batch >= 1 else None
        capacity = ReplicaLoad(model, group, slots, token_budget).capacity(budgets) if slots else None
        if capacity is not None:
            best = max(best, point.devices // group * capacity.rate * model.lengths.mean_output)
    return best
