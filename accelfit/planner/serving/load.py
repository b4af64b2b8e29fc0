"""One serving replica under load: continuous batching as vLLM's scheduler runs it, Poisson arrivals, and the p99
time to first token, time per output token and end-to-end latency that follow, queueing included.

The scheduler (vLLM v1 Scheduler.schedule, vllm-project/vllm vllm/v1/core/sched/scheduler.py @00024d31; limits in
data/serving.yaml): every step first gives each running sequence its next token, then fills what is left of the
step's token budget (max_num_batched_tokens) with waiting prompts, chunk by chunk, while fewer than max_num_seqs
run. A replica therefore holds at most `slots` sequences (max_num_seqs, bounded by the KV cache and the targets);
an arrival that finds them all busy waits in the queue.

In steady state at a mean of n sequences in flight, a decode step takes d(n), and each new prompt adds E(n): the
scheduler gives it the whole budget the running sequences leave, so it runs in ceil(input / room) steps, each the
decode step plus its chunk's matmuls and attention. A sequence holds its place for `output` steps, and the mean
step is s(n) = d(n) + n·E(n)/output, so the replica serves λ(n) = n / (output · s(n)) requests a second (Little's
law), which grows with n. The p99s at n:
  - wait: the slots form an M/G/c queue; a request waits only when every place is taken, so the places are held
    as long as a full batch holds them, output · s(slots): the Erlang C waiting time's 99th percentile at that
    holding time, times (1 + cs²)/2 for the answer lengths' spread (Allen-Cunneen);
  - TTFT: the wait, the rest of the step the request arrives in (one step at p99), and its p99-length prompt's
    own chunk steps (in the budget the running sequences' decode tokens and the other prompts leave);
  - TPOT: a decode step at n plus the prefill of the prompts that arrive while the answer runs (Poisson, its
    99th percentile) spread over its tokens;
  - end to end: TTFT plus the rest of a p99-length answer at that answer's 99th-percentile time per token.
The simulator (accelfit.simulate) steps the same scheduler through time; tests hold this form to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelfit.planner.serving.queueing import erlang_c, poisson_quantile
from accelfit.planner.serving.replica import ReplicaModel
from accelfit.spec import InferenceSpec

P99 = 0.99
BISECTIONS = 30
# A light load: this share of the slots in flight on average (the lowest load a capacity search starts from).
LIGHT = 1e-3


@dataclass(frozen=True)
class Budgets:
    """The p99 each target allows once its headroom is taken off (inference.headroom_pct applies to all three)."""

    e2e_ms: float
    ttft_ms: float | None = None
    tpot_ms: float | None = None


def budgets_for(inference: InferenceSpec) -> Budgets:
    keep = 1.0 - inference.headroom_pct / 100.0
    return Budgets(inference.latency_p99_ms * keep,
                   inference.ttft_p99_ms * keep if inference.ttft_p99_ms is not None else None,
                   inference.tpot_p99_ms * keep if inference.tpot_p99_ms is not None else None)


# Each target: its spec field, the LoadPoint attribute holding the modelled p99, the Budgets attribute.
TARGETS = (("inference.ttft_p99_ms", "ttft_p99_ms", "ttft_ms"), ("inference.tpot_p99_ms", "tpot_p99_ms", "tpot_ms"),
           ("inference.latency_p99_ms", "e2e_p99_ms", "e2e_ms"))


@dataclass(frozen=True)
class Miss:
    field: str
    modelled_ms: float
    budget_ms: float


@dataclass(frozen=True)
class LoadPoint:
    rate: float  # requests a second into the replica
    in_flight: float  # mean sequences in flight
    slots: int
    step_seconds: float
    wait_p99_seconds: float
    ttft_p99_ms: float
    tpot_p99_ms: float
    e2e_p99_ms: float

    def misses(self, budgets: Budgets) -> list[Miss]:
        out = []
        for field, attribute, budget_name in TARGETS:
            budget = getattr(budgets, budget_name)
            value = getattr(self, attribute)
            if budget is not None and not value <= budget:
                out.append(Miss(field, value, budget))
        return out


@dataclass(frozen=True)
class ReplicaLoad:
    """One replica of `group` chips with `slots` places in its batch and a step budget of `token_budget` tokens."""

    model: ReplicaModel
    group: int
    slots: int
    token_budget: int

    def decode(self, in_flight: float) -> float:
        """A step that only decodes: one token for each of `in_flight` sequences holding their mean KV cache."""
        lengths = self.model.lengths
        return self.model.step_with(self.group, in_flight, in_flight * lengths.kv_tokens_in_flight, 0.0,
                                    lengths.mean_input / 2.0).seconds

    def prompt_extra(self, in_flight: float, tokens: float) -> float:
        """What a prompt of `tokens` adds to the steps it is prefilled in: the scheduler gives it the whole budget
        the running sequences leave (max_num_batched_tokens less their decode tokens), so it takes
        ceil(tokens / room) steps, each the decode step plus its chunk's matmuls and attention."""
        room = self.token_budget - in_flight
        if room < 1.0:
            return math.inf
        chunks = math.ceil(tokens / room)
        lengths = self.model.lengths
        chunk = self.model.step_with(self.group, in_flight, in_flight * lengths.kv_tokens_in_flight, tokens / chunks,
                                     tokens / 2.0).seconds
        return chunks * (chunk - self.decode(in_flight))

    def step(self, in_flight: float) -> float:
        """The mean step at `in_flight` sequences: the decode step plus the prefill each sequence brought with it,
        spread over the answer's steps."""
        lengths = self.model.lengths
        requests = in_flight / self.model.sequences_per_request
        return self.decode(in_flight) + requests * self.prompt_extra(in_flight, lengths.mean_input) / lengths.mean_output

    def rate_at(self, in_flight: float) -> float:
        lengths = self.model.lengths
        return in_flight / self.model.sequences_per_request / (lengths.mean_output * self.step(in_flight))

    def at_batch(self, in_flight: float, queue: bool = True) -> LoadPoint:
        """The p99s at a mean of `in_flight` sequences (queue=False: without the wait for a place in the batch)."""
        lengths = self.model.lengths
        step = self.step(in_flight)
        decode = self.decode(in_flight)
        rate = self.rate_at(in_flight)
        wait = self.wait_p99(in_flight, rate) if queue else 0.0
        ttft = wait + step + self.prompt_seconds(in_flight, rate, step)
        # The answer's steps carry the prefill of the prompts that arrive while it runs (their 99th percentile).
        extra = self.prompt_extra(in_flight, lengths.mean_input)

        def tpot_of(tokens: float) -> float:
            return decode + extra * poisson_quantile(rate * tokens * step, P99) / tokens

        tpot = tpot_of(lengths.mean_output)
        e2e = ttft + max(0.0, lengths.p99_output - 1.0) * tpot_of(lengths.p99_output)
        return LoadPoint(rate, in_flight, self.slots, step, wait, ttft * 1000.0, tpot * 1000.0, e2e * 1000.0)

    def prompt_seconds(self, in_flight: float, rate: float, step: float) -> float:
        """A p99-length prompt's own chunk steps, in the budget the running sequences and the other new prompts
        leave."""
        lengths = self.model.lengths
        room = self.token_budget - in_flight
        others = rate * step * lengths.mean_input / room if room > 0 else math.inf
        if others >= 1.0:
            return math.inf
        chunks = max(1, math.ceil(lengths.p99_input / (room * (1.0 - others))))
        return chunks * self.decode(in_flight) + self.prompt_extra(in_flight, lengths.p99_input)

    def wait_p99(self, in_flight: float, rate: float) -> float:
        """Erlang C over the slots, with the full batch's holding time, scaled for the answer lengths' spread."""
        lengths = self.model.lengths
        # When a request waits, every place is taken: the batch runs full, each place held output · s(slots).
        holding = lengths.mean_output * self.step(self.slots)
        offered = rate * holding
        if in_flight >= self.slots or offered >= self.slots:
            return math.inf
        waits = erlang_c(self.slots, offered)
        drain = self.slots / holding - rate
        if waits <= 1.0 - P99:
            return 0.0
        if drain <= 0.0:
            return math.inf
        spread = lengths.output_second_moment / lengths.mean_output ** 2 - 1.0
        return (1.0 + spread) / 2.0 * math.log(waits / (1.0 - P99)) / drain

    def at_rate(self, rate: float) -> LoadPoint | None:
        """The load point at `rate` requests a second; None when the replica cannot carry it."""
        if rate <= 0.0:
            return self.at_batch(0.0)
        if self.rate_at(self.slots) <= rate:
            return None
        low, high = 0.0, float(self.slots)
        for _ in range(BISECTIONS):
            middle = (low + high) / 2.0
            if self.rate_at(middle) < rate:
                low = middle
            else:
                high = middle
        return self.at_batch(high)

    def capacity(self, budgets: Budgets) -> LoadPoint | None:
        """The busiest load point with every p99 within its budget; None when even a light load misses one."""
        low, high = LIGHT * self.slots, float(self.slots)
        if self.at_batch(low).misses(budgets):
            return None
        for _ in range(BISECTIONS):
            middle = (low + high) / 2.0
            if self.at_batch(middle).misses(budgets):
                high = middle
            else:
                low = middle
        return self.at_batch(low)


def largest_slots(model: ReplicaModel, group: int, most: int, token_budget: int, budgets: Budgets) -> int | None:
    """The largest batch (--max-num-seqs) up to `most` whose service-only p99s (no queue) meet the budgets: a burst
    then waits in the queue, which the autoscaler sees, rather than slowing every answer past its target."""
    most = min(most, token_budget - 1)
    if most < 1:
        return None

    def fits(slots: int) -> bool:
        return not ReplicaLoad(model, group, slots, token_budget).at_batch(slots, queue=False).misses(budgets)

    if not fits(1):
        return None
    low, high = 1, most
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def light_load_misses(model: ReplicaModel, group: int, token_budget: int, budgets: Budgets) -> list[Miss]:
    """What one request at a time misses: the figures a plan can never beat on this group."""
    return ReplicaLoad(model, group, 1, token_budget).at_batch(1.0, queue=False).misses(budgets)
