"""The request lengths a spec implies, for the p99 latency and the paged KV cache.

`input_tokens` and `output_tokens` are the typical (mean) lengths. When the spec also gives `model.context_tokens`,
lengths vary up to that maximum; the planner then takes each length as exponentially distributed with the stated
mean, truncated at the room the context leaves: the maximum-entropy distribution for a known mean and bound, and
the geometric law of an engine that stops at end-of-sequence with a constant chance per token. Without
`context_tokens` every request is taken at exactly the stated lengths (a benchmark-style fixed workload).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from accelfit.spec import InferenceSpec, ModelSpec

P99 = 0.99


@dataclass(frozen=True)
class Lengths:
    mean_input: float
    mean_output: float
    p99_input: float
    p99_output: float
    max_input: int
    max_output: int
    varying: bool

    @functools.cached_property  # read per batch tried; the moment below solves for λ by bisection
    def kv_tokens_in_flight(self) -> float:
        """Mean KV tokens held by a sequence in flight. Sequences are seen in flight in proportion to how long they
        run (length-biased): input + E[o²] / (2·E[o]); o·o averages 2·mean² for the exponential, mean² if fixed."""
        second_moment = self.output_second_moment
        return self.mean_input + second_moment / (2.0 * self.mean_output)

    @functools.cached_property
    def output_second_moment(self) -> float:
        if not self.varying:
            return self.mean_output ** 2
        rate = _rate_for_mean(self.mean_output, self.max_output)
        if rate <= 0:
            return self.max_output ** 2 / 3.0
        # E[X²] of an exponential truncated at c: 2/λ² − e^{−λc}(c² + 2c/λ + 2/λ²) / (1 − e^{−λc}).
        c = self.max_output
        tail = math.exp(-min(rate * c, 700.0))
        return (2 / rate**2 - tail * (c * c + 2 * c / rate + 2 / rate**2)) / (1 - tail)

    def output_quantile(self, probability: float) -> float:
        """The output length below which `probability` of requests end (the stated length when lengths are fixed)."""
        if not self.varying:
            return self.mean_output
        return _truncated_quantile(self.mean_output, self.max_output, probability)

    def longest_tokens(self, context_tokens: int | None) -> int:
        """The longest request's tokens: the model's context_tokens the lengths vary up to (lengths_for makes them
        vary only below one), else the stated input + output."""
        if not self.varying:
            return self.max_input + self.max_output
        if context_tokens is None:
            raise AssertionError("lengths vary only up to a model.context_tokens, and none is given")
        return context_tokens

    def describe(self) -> str:
        if not self.varying:
            return (f"every request {self.mean_input:,.0f} tokens in and {self.mean_output:,.0f} out (no "
                    "model.context_tokens, so lengths are taken as fixed)")
        return (f"lengths vary up to model.context_tokens (exponential with the stated means, truncated): p99 "
                f"{self.p99_input:,.0f} tokens in and {self.p99_output:,.0f} out (means {self.mean_input:,.0f} "
                f"and {self.mean_output:,.0f})")


def request_lengths(inference: InferenceSpec, model: ModelSpec) -> Lengths:
    return lengths_for(inference.input_tokens, inference.output_tokens, model.context_tokens)


def lengths_for(input_tokens: int, output_tokens: int, context_tokens: int | None) -> Lengths:
    """Fixed lengths, or lengths that vary up to `context_tokens` (prompt + answer) around the stated means."""
    mean_in, mean_out = float(input_tokens), float(output_tokens)
    if context_tokens is None or context_tokens <= input_tokens + output_tokens:
        return Lengths(mean_in, mean_out, mean_in, mean_out, input_tokens, output_tokens, varying=False)
    max_out = context_tokens - input_tokens
    max_in = context_tokens - output_tokens
    return Lengths(mean_in, mean_out, _truncated_quantile(mean_in, max_in, P99),
                   _truncated_quantile(mean_out, max_out, P99), max_in, max_out, varying=True)


def _rate_for_mean(mean: float, cap: float) -> float:
    """λ of an exponential truncated at `cap` whose mean is `mean`; 0 when no decreasing density fits (mean ≥ cap/2)."""
    if mean >= cap / 2.0:
        return 0.0

    def truncated_mean(rate: float) -> float:
        exponent = rate * cap
        return 1.0 / rate - (cap / math.expm1(exponent) if exponent < 700 else 0.0)

    low, high = 1e-12, 2.0 / mean  # the untruncated exponential with this mean has rate 1/mean < high
    for _ in range(200):
        middle = (low + high) / 2.0
        if truncated_mean(middle) > mean:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _truncated_quantile(mean: float, cap: float, probability: float) -> float:
    rate = _rate_for_mean(mean, cap)
    if rate <= 0:
        return probability * cap  # flat or rising density: the uniform's quantile is the gentler bound
    return min(cap, -math.log1p(-probability * -math.expm1(-rate * cap)) / rate)
