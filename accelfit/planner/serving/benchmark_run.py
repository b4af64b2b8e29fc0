"""How long a finite benchmark run takes on one replica: its fill, its steady part and its drain.

Published engine benchmarks are finite runs: vLLM's `benchmark_throughput` (and its CI throughput tests) hands every
request to the engine at once; `vllm bench serve` and `sglang.bench_serving` at request rate inf do the same through
the server, and with `--max-concurrency C` keep at most C requests in flight. Each reports requests ÷ the run's
duration. That duration holds what a steady-state rate does not: the fill (every prompt prefilled before the batch is
full) and the drain (as answers end the batch empties, and the run lasts until the longest answer ends). With a few
hundred requests whose answers vary in length, the drain is most of the run.

The run is stepped through with the replica model's own step (ReplicaModel.step_with): each step admits waiting
requests while fewer than `in_flight_limit` are in flight and prefills their prompts within the step (chunked
prefill, as the steady-state model assumes), decodes one token for every admitted sequence, and retires the answers
that reach their length. Answer lengths are the planner's own length model (lengths.py): fixed, or, when they vary,
the `requests` equal-probability slices of that distribution (each at its slice's middle quantile), handed to the
engine in a shuffled order with a fixed seed, as the benchmarks shuffle their dataset with a fixed seed.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass

from accelfit.planner.serving.replica import ReplicaModel

# Benchmarks shuffle their dataset with a fixed seed; any fixed order of the slices serves, this one is reproducible.
SUBMISSION_ORDER_SEED = 0


@dataclass(frozen=True)
class RunResult:
    seconds: float
    requests: int
    output_tokens: int
    steps: int

    @property
    def output_tokens_per_second(self) -> float:
        return self.output_tokens / self.seconds


def answer_lengths(model: ReplicaModel, requests: int) -> list[int]:
    """Each request's answer length, in submission order."""
    lengths = model.lengths
    if not lengths.varying:
        return [max(1, round(lengths.mean_output))] * requests
    slices = [max(1, round(lengths.output_quantile((index + 0.5) / requests))) for index in range(requests)]
    random.Random(SUBMISSION_ORDER_SEED).shuffle(slices)
    return slices


def run(model: ReplicaModel, group: int, requests: int, in_flight_limit: int) -> RunResult:
    """Serve `requests` requests, all waiting at the start, with at most `in_flight_limit` in flight."""
    if requests < 1 or in_flight_limit < 1:
        raise ValueError("a run needs at least one request and room for one in flight")
    prompt = model.lengths.mean_input
    waiting = answer_lengths(model, requests)
    output_tokens = sum(waiting)
    waiting.reverse()  # pop() takes the next request in submission order
    in_flight: list[tuple[int, int]] = []  # (step that produces its last token, step it was admitted)
    decoding = 0  # sequences admitted in an earlier step and still running
    admitted_steps = 0  # Σ their admission steps: their KV tokens total decoding·(prompt + step) − this sum
    seconds = 0.0
    step = 0
    while waiting or in_flight:
        admitted = 0
        while waiting and len(in_flight) < in_flight_limit:
            # Its prefill produces the first token in this step; every further token takes one decode step.
            heapq.heappush(in_flight, (step + waiting.pop() - 1, step))
            admitted += 1
        kv_tokens = decoding * (prompt + step) - admitted_steps
        seconds += model.step_with(group, decoding, kv_tokens, admitted * prompt, prompt / 2.0).seconds
        ended_at_admission = 0
        while in_flight and in_flight[0][0] == step:
            _, admitted_at = heapq.heappop(in_flight)
            if admitted_at < step:
                decoding -= 1
                admitted_steps -= admitted_at
            else:
                ended_at_admission += 1
        decoding += admitted - ended_at_admission
        admitted_steps += step * (admitted - ended_at_admission)
        step += 1
    return RunResult(seconds, requests, output_tokens, step)
