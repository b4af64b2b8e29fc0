"""What sizing answers: a training or inference size, or `Unfit` (no count works), and the latency budget both
serving models size to. Plain data, shared by the training sizing (`training/sizing.py`), the transformer serving
sizing (`serving/sizing.py`) and the non-transformer serving model (`serving/other_models.py`), which the serving
sizing calls."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass

from accelfit.planner import preferences as pref
from accelfit.spec import InferenceSpec, Traffic, WorkloadSpec


class Unfit(Exception):
    """The offer cannot meet the workload at any count it allows; `rule` groups it, `best` is how close it got."""

    def __init__(self, rule: str, reason: str, best: float | None = None, misses: tuple[Any, ...] = ()):
        super().__init__(reason)
        self.rule = rule
        self.reason = reason
        self.best = best
        # Latency: each target the offer misses even at a light load (serving/load.py Miss: field, modelled, budget).
        self.misses = misses


@dataclass(frozen=True)
class RunCap:
    """The longest run a buying model sells (flex-start, a Capacity Block), as the compute hours a training run may
    take on it: a constraint on the sizing search, which grows the node count until the run fits (as it does for
    the deadline), not a filter after it."""

    hours: float
    rule: str
    why: str


@dataclass(frozen=True)
class TrainingSize:
    units: int
    devices: int
    hours: float
    mfu: float
    memory_per_device_gib: float
    tokens_per_second: float
    tensor_parallel: int = 1
    recompute_fraction: float = 0.0
    activation_gib: float = 0.0
    state_gib: float = 0.0


@dataclass(frozen=True)
class InferenceSize:
    units: int
    devices: int
    replicas: int
    devices_per_replica: int
    batch: int
    latency_p99_ms: float
    memory_per_device_gib: float
    tokens_per_second: float
    lengths: str = ""
    requests_per_replica: float = 0.0
    tensor_parallel_link: str = ""
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    data_parallel: int = 1
    notes: tuple[str, ...] = ()
    # At the planned peak (requests_per_second × peak_factor over `replicas`): the modelled p99s, the mean batch.
    ttft_p99_ms: float | None = None
    tpot_p99_ms: float | None = None
    in_flight: float = 0.0
    token_budget: int = 0


def latency_budget_ms(spec: WorkloadSpec) -> float:
    """The p99 the plan sizes to: the target less its headroom (inference.headroom_pct)."""
    inference = spec.inference
    assert inference is not None  # sized for latency: an inference spec
    return inference.latency_p99_ms * (1.0 - inference.headroom_pct / 100.0)


def peak_factor(inference: InferenceSpec) -> float:
    """The burst peak over requests_per_second the replicas are sized for: the spec's inference.peak_factor, else
    the default for its traffic (preferences)."""
    if inference.peak_factor is not None:
        return inference.peak_factor
    return pref.PEAK_FACTOR_VARIABLE if inference.traffic is Traffic.variable else pref.PEAK_FACTOR_STEADY
