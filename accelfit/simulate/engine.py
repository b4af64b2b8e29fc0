"""Requests through serving pools, tick by tick: vLLM's scheduler per server, the servers of a pool side by side.

Each pool's servers run the scheduler of vLLM v1 (vllm-project/vllm vllm/v1/core/sched/scheduler.py @00024d31):
a step gives every running sequence its next token, then fills the rest of the step's token budget
(max_num_batched_tokens) with prompt chunks; new requests join while fewer than max_num_seqs run and their prompt's
KV blocks are free; when the KV cache runs out, the newest running request is preempted (its blocks freed) and goes
back to the head of the waiting queue, to be prefilled again (prompt and the tokens it had) when it is readmitted.

The servers of a pool are taken as alike and evenly loaded (the endpoint picker sends each request to the server
with the shortest queue and the most free KV cache): each tick the pool's sequences, KV tokens and prompt backlog
are shared over its ready servers, which step together at the step time of one server at that share. A request is
admitted FCFS from one queue, to the first pool in route order with a free place: the k-th waiting request takes the
k-th place to free up in the tick (places free at the steps their sequences end). Per request the simulator keeps the
step it was admitted at, its first token's step and its last token's step; the times follow from each pool's step
count over time. A request waiting longer than the route's request timeout fails (the gateway answers 504), and so
does one that arrives while no pool has a ready server (the endpoint picker answers 503).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from accelfit.simulate.admission import Admission
# The simulator's inputs and outputs are named from here by its callers (fleet, servers, traffic, tests).
from accelfit.simulate.engine_types import (
    Capacity, FixedCapacity, Requests, ServerShape, StepSeconds, Trace,
)
from accelfit.simulate.pool_state import PoolState
from accelfit.simulate.preemption import Preemption


class Engine(Admission, Preemption):
    def run(self) -> Trace:
        for tick in range(self.ticks):
            self._tick(tick)
        return self._trace()

    def _tick(self, tick: int) -> None:
        start = tick * self.dt
        arrived = int(self.edges[tick])
        self._expire(start)
        # Waiting at the tick's start (what the server's queue metric shows): arrived before it, not admitted.
        before = int(self.edges[tick - 1]) if tick else 0
        waiting = max(0, before - self.head) + len(self.requeued)
        self.capacity.tick(start, waiting, [pool.running for pool in self.pools])
        readiness = [self.capacity.ready(index) for index in range(len(self.pools))]
        for index, pool in enumerate(self.pools):
            ready = readiness[index]
            self.tick_ready[tick, index] = ready
            self.tick_running[tick, index] = pool.running
            self.tick_kv[tick, index] = pool.kv / (ready * pool.shape.kv_tokens) if ready else 0.0
            if ready > 0:
                self._serve(index, pool, ready, start, arrived)
            self.steps_at[tick + 1, index] = pool.steps
        self.tick_waiting[tick] = waiting
        if not any(readiness):
            self._refuse(arrived)  # no ready server anywhere: the endpoint picker has no endpoint (503)

    def _expire(self, now: float) -> None:
        """Requests that have waited past the route's timeout fail (the oldest first: the queue is FCFS)."""
        arrival = self.requests.arrival
        stale = int(np.searchsorted(arrival, now - self.timeout_s, side="left"))
        if stale > self.head:
            self.failed[self.head:stale] = True
            self.head = stale
        keep = [index for index in self.requeued if arrival[index] >= now - self.timeout_s]
        for index in self.requeued:
            if arrival[index] < now - self.timeout_s:
                self.failed[index] = True
        self.requeued = keep

    def _refuse(self, arrived: int) -> None:
        if arrived > self.head:
            self.failed[self.head:arrived] = True
            self.head = arrived
        for index in self.requeued:
            self.failed[index] = True
        self.requeued = []

    def _serve(self, index: int, pool: PoolState, ready: int, start: float, arrived: int) -> None:
        shape = pool.shape
        running_before = pool.running
        share = pool.running / ready
        kv = pool.kv / ready
        room = max(1.0, shape.token_budget - share)
        decode = shape.step(share, kv, 0.0)
        # The scheduler fills a step's budget with the prompts waiting: a chunk of up to `room` tokens lengthens
        # that step by its matmuls and attention; per prompt token, this much.
        chunk = min(room, max(self.mean_prompt, pool.backlog))
        per_token = max(0.0, shape.step(share, kv, chunk) - decode) / chunk
        # The tick's step: its backlog and the prompts it will admit (those waiting, up to the places it has) go
        # first; admission times are reckoned at this step, so it must count them.
        steps, _ = self._steps(pool.backlog, decode, per_token, room)
        expected = self._expected_prompts(pool, ready, arrived, steps)
        steps, _ = self._steps(pool.backlog + expected / ready, decode, per_token, room)
        admitted = self._fill(index, pool, ready, start, arrived, self.dt / steps, steps, room)
        tokens = self.requests.prompt[admitted] + self.generated[admitted]
        self.own_prefill[admitted] = tokens * per_token  # the first token also waits for its own chunk's work
        pool.backlog += float(tokens.sum()) / ready
        steps, processed = self._steps(pool.backlog, decode, per_token, room)
        pool.backlog -= processed
        # Sequences admitted during the tick run (and grow their KV) only from their admission step on.
        joined = float((pool.steps + steps - self.admit_step[admitted]).clip(min=0).sum())
        self._advance(pool, steps, running_before * steps + joined)
        if pool.kv > ready * shape.kv_tokens:
            self._preempt(index, pool)

    def _steps(self, backlog: float, decode: float, per_token: float, room: float) -> tuple[float, float]:
        """(steps in the tick, prompt tokens prefilled): the backlog goes first, at most `room` tokens a step."""
        processed = min(backlog, room * self.dt / (decode + room * per_token))
        return max(1e-9, (self.dt - processed * per_token) / decode), processed

    def _trace(self) -> Trace:
        grid = np.arange(self.ticks + 1) * self.dt
        first = np.full(len(self.pool), np.nan)
        done = np.full(len(self.pool), np.nan)
        for index in range(len(self.pools)):
            mine = self.pool == index
            steps = self.steps_at[:, index]
            reached = mine & (self.done_step <= steps[-1])
            first[reached] = np.interp(self.first_step[reached], steps, grid) + self.own_prefill[reached]
            done[reached] = np.interp(self.done_step[reached], steps, grid)
        for index in range(len(self.pools)):
            earlier = self.first_pool == index
            first[earlier] = np.interp(self.first_orig[earlier], self.steps_at[:, index], grid)
        unfinished = ~self.failed & np.isnan(done)
        return Trace(self.requests, self.dt, self.pool, self.admitted, first, done, self.failed | unfinished,
                     self.preemptions, grid[:-1], self.tick_waiting, self.tick_running, self.tick_ready,
                     self.tick_kv)


def simulate(requests: Requests, shapes: Sequence[ServerShape], capacity: Capacity, *, dt: float = 1.0,
             timeout_s: float = 300.0, horizon_s: float | None = None) -> Trace:
    """Run `requests` through the pools until `horizon_s` (default: the last arrival plus the timeout)."""
    last = float(requests.arrival[-1]) if len(requests) else 0.0
    return Engine(requests, shapes, capacity, dt, timeout_s, horizon_s or last + timeout_s).run()


# What callers name from here: the engine, its entry point and its inputs and outputs (engine_types).
__all__ = ["Capacity", "Engine", "FixedCapacity", "Requests", "ServerShape", "StepSeconds", "Trace", "simulate"]
