"""Stepping a pool on and preempting in the simulator (accelfit.simulate.engine): sequences end at their calendar
step, every running sequence adds a token of KV per step, and when the KV cache overflows the newest running
requests are preempted (vLLM's FCFS policy) and go back to the head of the queue."""

from __future__ import annotations

import math

import numpy as np

from accelfit.simulate.engine_state import EngineState
from accelfit.simulate.pool_state import PoolState


class Preemption(EngineState):
    def _advance(self, pool: PoolState, steps: float, sequence_steps: float) -> None:
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

    def _preempt(self, index: int, pool: PoolState) -> None:
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

    def _evict(self, index: int, pool: PoolState, request: int) -> float:
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
