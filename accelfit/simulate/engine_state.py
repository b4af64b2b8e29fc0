"""The simulator's per-request book (accelfit.simulate.engine): where each request is, the steps it was admitted,
had its first token and ends at, what a preempted one had generated; and the FCFS queue (`head` into the arrival
order, then the preempted requests to readmit first). Admission (admission.py) and preemption (preemption.py) work
on it; the engine steps the pools tick by tick."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from accelfit.simulate.engine_types import Capacity, Requests, ServerShape
from accelfit.simulate.pool_state import PoolState


class EngineState:
    def __init__(self, requests: Requests, shapes: Sequence[ServerShape], capacity: Capacity, dt: float,
                 timeout_s: float, horizon_s: float):
        self.requests = requests
        self.capacity = capacity
        self.dt = dt
        self.timeout_s = timeout_s
        self.ticks = math.ceil(horizon_s / dt)
        count = len(requests)
        longest = int(requests.answer.max()) if count else 1
        self.pools = [PoolState(shape, horizon_steps=longest * 4 + 4096) for shape in shapes]
        self.pool = np.full(count, -1, dtype=np.int8)
        self.admit_step = np.zeros(count)
        self.first_step = np.zeros(count)
        self.done_step = np.zeros(count, dtype=np.int64)
        self.admitted = np.full(count, np.nan)
        self.first_pool = np.full(count, -1, dtype=np.int8)  # where a preempted request's first token came out
        self.first_orig = np.zeros(count)
        self.kv_at_end = np.zeros(count)
        self.own_prefill = np.zeros(count)  # seconds its own prompt chunk adds before its first token
        self.mean_prompt = float(requests.prompt.mean()) if count else 1.0
        self.prompt_sums = np.concatenate([[0.0], np.cumsum(requests.prompt, dtype=np.float64)])
        self.generated = np.zeros(count, dtype=np.int64)  # tokens a preempted request had
        self.failed = np.zeros(count, dtype=bool)
        self.preemptions = np.zeros(count, dtype=np.int32)
        self.head = 0  # next request in arrival order not yet admitted or failed
        self.requeued: list[int] = []  # preempted requests, first to readmit first
        self.steps_at = np.zeros((self.ticks + 1, len(shapes)))
        self.tick_waiting = np.zeros(self.ticks, dtype=np.int64)
        self.tick_running = np.zeros((self.ticks, len(shapes)))
        self.tick_ready = np.zeros((self.ticks, len(shapes)), dtype=np.int64)
        self.tick_kv = np.zeros((self.ticks, len(shapes)))
        self.edges = np.searchsorted(requests.arrival, np.arange(1, self.ticks + 1) * dt, side="left")
