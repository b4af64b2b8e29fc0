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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
class _Pool:
    shape: ServerShape
    horizon_steps: int
    running: float = 0.0
    kv: float = 0.0
    backlog: float = 0.0  # prompt tokens per server not yet prefilled
    steps: float = 0.0  # each server's completed steps (the servers step together)
    ending: np.ndarray = field(init=False)
    ending_kv: np.ndarray = field(init=False)
    recent: list = field(default_factory=list)  # index arrays admitted here, newest last (preemption order)

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
class _Match:
    taken: np.ndarray
    tokens: np.ndarray
    when: np.ndarray
    at_step: np.ndarray
    first: np.ndarray
    last: np.ndarray


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


class Engine:
    def __init__(self, requests: Requests, shapes: Sequence[ServerShape], capacity: Capacity, dt: float,
                 timeout_s: float, horizon_s: float):
        self.requests = requests
        self.capacity = capacity
        self.dt = dt
        self.timeout_s = timeout_s
        self.ticks = math.ceil(horizon_s / dt)
        count = len(requests)
        longest = int(requests.answer.max()) if count else 1
        self.pools = [_Pool(shape, horizon_steps=longest * 4 + 4096) for shape in shapes]
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

    def _serve(self, index: int, pool: _Pool, ready: int, start: float, arrived: int) -> None:
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

    def _expected_prompts(self, pool: _Pool, ready: int, arrived: int, steps: float) -> float:
        first, last = math.floor(pool.steps) + 1, math.floor(pool.steps + steps)
        ending = int(pool.window(first, last)[0].sum()) if last >= first else 0
        places = max(0, int(ready * pool.shape.slots - math.ceil(pool.running - 1e-9))) + ending
        requeued = self.requeued[:places]
        fresh = min(arrived, self.head + places - len(requeued))
        tokens = float(self.requests.prompt[requeued].sum() + self.generated[requeued].sum()) if requeued else 0.0
        return tokens + float(self.prompt_sums[max(fresh, self.head)] - self.prompt_sums[self.head])

    def _steps(self, backlog: float, decode: float, per_token: float, room: float) -> tuple[float, float]:
        """(steps in the tick, prompt tokens prefilled): the backlog goes first, at most `room` tokens a step."""
        processed = min(backlog, room * self.dt / (decode + room * per_token))
        return max(1e-9, (self.dt - processed * per_token) / decode), processed

    def _places(self, pool: _Pool, ready: int, start: float, step: float, steps: float) -> np.ndarray:
        """When each place in the batch is free during the tick: free ones now, then as sequences end."""
        free = max(0, int(ready * pool.shape.slots - math.ceil(pool.running - 1e-9)))
        first, last = math.floor(pool.steps) + 1, math.floor(pool.steps + steps)
        ends = pool.window(first, last)[0] if last >= first else pool.ending[:0]
        times = start + (np.arange(first, first + len(ends)) - pool.steps) * step
        return np.concatenate([np.full(free, start), np.repeat(times, ends)])

    def _fill(self, index: int, pool: _Pool, ready: int, start: float, arrived: int, step: float, steps: float,
              room: float) -> np.ndarray:
        """Admit FCFS into the places that free up during the tick. A request that also ends within the tick frees
        its place again: matches are kept up to the first such end, which then joins the places (so no later
        request takes a place an earlier one could have had)."""
        places = self._places(pool, ready, start, step, steps)
        last = math.floor(pool.steps + steps)
        admitted = []
        while len(places) and (self.requeued or self.head < arrived):
            match = self._match(pool, ready, start, arrived, places, step, room)
            if match is None:
                break
            ends = match.last
            quick = ends <= last
            keep = len(match.taken)
            if quick.any():
                earliest = start + (ends[quick].min() - pool.steps) * step
                keep = max(1, int(np.searchsorted(places[:keep], earliest, side="right")))
            taken = self._commit(index, pool, match, keep)
            admitted.append(taken)
            places = places[keep:]
            freed = ends[:keep][quick[:keep]]
            if len(freed):
                places = np.sort(np.concatenate([places, start + (freed - pool.steps) * step]))
        return np.concatenate(admitted) if admitted else np.zeros(0, dtype=np.int64)

    def _candidates(self, arrived: int, most: int) -> np.ndarray:
        requeued = np.asarray(self.requeued[:most], dtype=np.int64)
        fresh = np.arange(self.head, min(arrived, self.head + most - len(requeued)), dtype=np.int64)
        return np.concatenate([requeued, fresh])

    def _match(self, pool: _Pool, ready: int, start: float, arrived: int, places: np.ndarray, step: float,
               room: float) -> _Match | None:
        """The waiting requests in order, each to the next place, while their prompts' KV blocks are free."""
        candidates = self._candidates(arrived, len(places))
        requests = self.requests
        tokens = requests.prompt[candidates] + self.generated[candidates]
        fits = int(np.searchsorted(np.cumsum(tokens), ready * pool.shape.kv_tokens - pool.kv, side="right"))
        if fits == 0:
            return None
        taken, tokens = candidates[:fits], tokens[:fits]
        when = np.maximum(requests.arrival[taken], places[:fits])
        at_step = pool.steps + (when - start) / step
        # The prompt's chunks: the step's budget after the running decode, behind the prompts already waiting.
        ahead = pool.backlog + (np.cumsum(tokens) - tokens) / ready
        chunks = np.maximum(1, np.ceil((ahead + tokens - (at_step - pool.steps) * room) / room))
        first = np.ceil(at_step) + chunks
        last = (first + (requests.answer[taken] - self.generated[taken]) - 1).astype(np.int64)
        return _Match(taken, tokens, when, at_step, first, last)

    def _commit(self, index: int, pool: _Pool, match: _Match, keep: int) -> np.ndarray:
        taken, last = match.taken[:keep], match.last[:keep]
        self.pool[taken] = index
        self.admitted[taken] = np.where(np.isnan(self.admitted[taken]), match.when[:keep], self.admitted[taken])
        self.admit_step[taken] = match.at_step[:keep]
        self.first_step[taken] = match.first[:keep]
        self.done_step[taken] = last
        pool.grow(int(last.max()) + 1)
        np.add.at(pool.ending, last - pool.base, 1)
        # What the pool's KV count holds for it when it ends: its tokens at admission plus one per step since (the
        # count grows by the running sequences every step), so every request takes out exactly what it put in.
        self.kv_at_end[taken] = match.tokens[:keep] + (last - match.at_step[:keep])
        np.add.at(pool.ending_kv, last - pool.base, self.kv_at_end[taken])
        pool.running += len(taken)
        pool.kv += float(match.tokens[:keep].sum())
        pool.recent.append(taken)
        self._dequeue(taken)
        return taken

    def _dequeue(self, taken: np.ndarray) -> None:
        requeued = len(self.requeued)
        used = min(requeued, len(taken))
        self.requeued = self.requeued[used:]
        self.head += len(taken) - used

    def _advance(self, pool: _Pool, steps: float, sequence_steps: float) -> None:
        """Step the pool on: every running sequence adds a token of KV per step it runs (`sequence_steps` in all,
        less the steps after each ending one's last), and the sequences whose last step passes end."""
        first, last = math.floor(pool.steps) + 1, math.floor(pool.steps + steps)
        pool.kv += sequence_steps
        if last >= first:
            ends, ends_kv = pool.window(first, last)
            after = pool.steps + steps - np.arange(first, last + 1)
            pool.kv -= float(np.dot(ends, after))
            pool.running -= float(ends.sum())
            pool.kv -= float(ends_kv.sum())
        pool.running = max(0.0, pool.running)
        pool.kv = max(0.0, pool.kv)
        pool.steps += steps

    def _preempt(self, index: int, pool: _Pool) -> None:
        """Free KV blocks by preempting the newest running requests (vLLM's FCFS policy pops the last running)."""
        excess = pool.kv - self.capacity.ready(index) * pool.shape.kv_tokens
        while excess > 0 and pool.recent:
            batch = pool.recent.pop()
            for position in range(len(batch) - 1, -1, -1):
                if excess <= 0:
                    pool.recent.append(batch[:position + 1])
                    break
                request = int(batch[position])
                if self.pool[request] == index and self.done_step[request] > pool.steps:  # still running here
                    excess -= self._evict(index, pool, request)

    def _evict(self, index: int, pool: _Pool, request: int) -> float:
        held = max(0, math.floor(pool.steps - self.first_step[request]) + 1)
        if held > 0 and self.first_pool[request] < 0:  # its first token was out before the preemption
            self.first_pool[request] = index
            self.first_orig[request] = self.first_step[request]
        step = int(self.done_step[request]) - pool.base
        pool.ending[step] -= 1
        pool.ending_kv[step] -= self.kv_at_end[request]
        freed = float(self.kv_at_end[request] - (self.done_step[request] - pool.steps))
        self.generated[request] += held
        pool.running -= 1
        pool.kv -= freed
        self.preemptions[request] += 1
        self.pool[request] = -1
        self.requeued.insert(0, request)
        return freed

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
