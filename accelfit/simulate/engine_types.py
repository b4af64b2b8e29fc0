"""What the simulator takes and gives: a pool's server as the scheduler sees it, the requests, the capacity over
time (the autoscaler or a fixed fleet) and the trace of what happened (accelfit.simulate.engine runs it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

StepSeconds = Callable[[float, float, float], float]  # (sequences, KV tokens, prompt tokens per step) per server


@dataclass(frozen=True)
class ServerShape:
    """One server of a pool as the scheduler sees it."""

    step: StepSeconds
    slots: int  # max_num_seqs
    token_budget: int  # max_num_batched_tokens
    kv_tokens: float  # KV-cache capacity, tokens


@dataclass(frozen=True)
class Requests:
    arrival: np.ndarray  # seconds, ascending
    prompt: np.ndarray  # tokens
    answer: np.ndarray  # tokens (at least 1)

    def __len__(self) -> int:
        return len(self.arrival)


class Capacity(Protocol):
    """Ready servers per pool over time; the autoscaler (accelfit.simulate.scaler) is one, a fixed fleet another."""

    def ready(self, pool: int) -> int: ...

    def tick(self, now: float, waiting: int, running: Sequence[float]) -> None:
        """Called at the start of every tick with the requests waiting and each pool's sequences in flight."""


@dataclass
class FixedCapacity:
    servers: Sequence[int]

    def ready(self, pool: int) -> int:
        return self.servers[pool]

    def tick(self, now: float, waiting: int, running: Sequence[float]) -> None:
        """A fixed fleet does not react to load."""


@dataclass
class Trace:
    """What happened: per request, per tick."""

    requests: Requests
    dt: float
    pool: np.ndarray  # -1 never served (failed), else the pool index
    admitted: np.ndarray  # seconds
    first_token: np.ndarray  # seconds
    done: np.ndarray  # seconds
    failed: np.ndarray  # bool
    preemptions: np.ndarray  # per request
    ticks: np.ndarray  # tick start times
    waiting: np.ndarray  # per tick
    running: np.ndarray  # ticks x pools
    ready: np.ndarray  # ticks x pools
    kv_use: np.ndarray  # ticks x pools, share of the pool's KV cache
