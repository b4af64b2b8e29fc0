"""A pool's scheduler state in the simulator: its sequences, KV tokens and prompt backlog per server, and the
calendar of the steps at which its running sequences end (accelfit.simulate.engine)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accelfit.simulate.engine_types import ServerShape


@dataclass
class PoolState:
    shape: ServerShape
    horizon_steps: int
    running: float = 0.0
    kv: float = 0.0
    backlog: float = 0.0  # prompt tokens per server not yet prefilled
    steps: float = 0.0  # each server's completed steps (the servers step together)
    ending: np.ndarray = field(init=False)
    ending_kv: np.ndarray = field(init=False)
    recent: list[Any] = field(default_factory=list)  # index arrays admitted here, newest last (preemption order)

    def __post_init__(self) -> None:
        self.ending = np.zeros(self.horizon_steps + 2, dtype=np.int64)
        self.ending_kv = np.zeros(self.horizon_steps + 2, dtype=np.float64)

    base: int = 0  # the calendar's first entry is step `base` (consumed steps are dropped as the pool steps on)

    def grow(self, needed: int) -> None:
        """Room in the calendar up to step `needed`; drops the steps already behind."""
        behind = math.floor(self.steps) - self.base
        if behind > len(self.ending) // 2:
            self.ending = np.concatenate([self.ending[behind:], np.zeros(behind, dtype=np.int64)])
            self.ending_kv = np.concatenate([self.ending_kv[behind:], np.zeros(behind)])
            self.base += behind
        if needed - self.base >= len(self.ending):
            size = max(needed - self.base + 2, 2 * len(self.ending))
            self.ending = np.concatenate([self.ending, np.zeros(size - len(self.ending), dtype=np.int64)])
            self.ending_kv = np.concatenate([self.ending_kv, np.zeros(size - len(self.ending_kv))])

    def window(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The calendar's entries for steps first..last (inclusive)."""
        self.grow(last + 1)
        return self.ending[first - self.base:last + 1 - self.base], self.ending_kv[first - self.base:last + 1 - self.base]


@dataclass(frozen=True)
class Match:
    taken: np.ndarray
    tokens: np.ndarray
    when: np.ndarray
    at_step: np.ndarray
    first: np.ndarray
    last: np.ndarray
