"""Admission in the simulator, as vLLM v1's scheduler admits (accelfit.simulate.engine): FCFS from one queue into the
places of the batch that free up during a tick, while the prompts' KV blocks are free; each admitted request's first
and last token steps follow from the chunks its prompt takes in the step's token budget."""

from __future__ import annotations

import math

import numpy as np

from accelfit.simulate.engine_state import EngineState
from accelfit.simulate.pool_state import Match, PoolState


class Admission(EngineState):
    def _expected_prompts(self, pool: PoolState, ready: int, arrived: int, steps: float) -> float:
        first, last = math.floor(pool.steps) + 1, math.floor(pool.steps + steps)
        ending = int(pool.window(first, last)[0].sum()) if last >= first else 0
        places = max(0, int(ready * pool.shape.slots - math.ceil(pool.running - 1e-9))) + ending
        requeued = self.requeued[:places]
        fresh = min(arrived, self.head + places - len(requeued))
        tokens = float(self.requests.prompt[requeued].sum() + self.generated[requeued].sum()) if requeued else 0.0
        return tokens + float(self.prompt_sums[max(fresh, self.head)] - self.prompt_sums[self.head])

    def _places(self, pool: PoolState, ready: int, start: float, step: float, steps: float) -> np.ndarray:
        """When each place in the batch is free during the tick: free ones now, then as sequences end."""
        free = max(0, int(ready * pool.shape.slots - math.ceil(pool.running - 1e-9)))
        first, last = math.floor(pool.steps) + 1, math.floor(pool.steps + steps)
        ends = pool.window(first, last)[0] if last >= first else pool.ending[:0]
        times = start + (np.arange(first, first + len(ends)) - pool.steps) * step
        return np.concatenate([np.full(free, start), np.repeat(times, ends)])

    def _fill(self, index: int, pool: PoolState, ready: int, start: float, arrived: int, step: float, steps: float,
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

    def _match(self, pool: PoolState, ready: int, start: float, arrived: int, places: np.ndarray, step: float,
               room: float) -> Match | None:
        """The waiting requests in order, each to the next place, while their prompts' KV blocks are free."""
        candidates = self._candidates(arrived, len(places))
        requests = self.requests
        generated = self.generated[candidates]
        tokens = requests.prompt[candidates] + generated
        cumulative = np.cumsum(tokens)
        fits = int(np.searchsorted(cumulative, ready * pool.shape.kv_tokens - pool.kv, side="right"))
        if fits == 0:
            return None
        taken, tokens = candidates[:fits], tokens[:fits]
        when = np.maximum(requests.arrival[taken], places[:fits])
        at_step = pool.steps + (when - start) / step
        # The prompt's chunks: the step's budget after the running decode, behind the prompts already waiting.
        ahead = pool.backlog + (cumulative[:fits] - tokens) / ready
        chunks = np.maximum(1, np.ceil((ahead + tokens - (at_step - pool.steps) * room) / room))
        first = np.ceil(at_step) + chunks
        last = (first + (requests.answer[taken] - generated[:fits]) - 1).astype(np.int64)
        return Match(taken, tokens, when, at_step, first, last)

    def _commit(self, index: int, pool: PoolState, match: Match, keep: int) -> np.ndarray:
        taken, last = match.taken[:keep], match.last[:keep]
        self.pool[taken] = index
        # The first admission stays (a preempted request keeps it): fmin keeps the earlier time, and the new one
        # where there was none (NaN).
        self.admitted[taken] = np.fmin(self.admitted[taken], match.when[:keep])
        at_step = match.at_step[:keep]
        self.admit_step[taken] = at_step
        self.first_step[taken] = match.first[:keep]
        self.done_step[taken] = last
        pool.grow(int(last.max()) + 1)
        slots = last - pool.base
        np.add.at(pool.ending, slots, 1)
        # What the pool's KV count holds for it when it ends: its tokens at admission plus one per step since (the
        # count grows by the running sequences every step), so every request takes out exactly what it put in.
        kv_at_end = match.tokens[:keep] + (last - at_step)
        self.kv_at_end[taken] = kv_at_end
        np.add.at(pool.ending_kv, slots, kv_at_end)
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
