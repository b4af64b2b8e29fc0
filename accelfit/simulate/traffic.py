"""A day of a spec's requests, or a recorded trace: arrival times and each request's prompt and answer lengths.

The spec's traffic: requests_per_second through the serving hours (inference.hours_per_day, from the plan's
serving start, UTC), Poisson; `variable` traffic spends a share of the time in bursts at requests_per_second ×
peak_factor and the rest lower, so each hour's mean stays requests_per_second (data/simulate.yaml says the burst
shape and why). Lengths follow the planner's own length model (fixed, or exponential with the stated means truncated
at model.context_tokens: accelfit.planner.serving.lengths). `--spike` multiplies the rate for a while, to see the queue,
the autoscaler's reaction and the recovery. Seeded: the same seed gives the same requests.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accelfit.errors import InputError, problem
from accelfit.planner.serving.lengths import Lengths, _rate_for_mean
from accelfit.simulate.engine import Requests
from accelfit.simulate.facts import simulate_facts

DAY_SECONDS = 86_400
SPIKE = re.compile(r"(?P<factor>\d+(\.\d+)?)x?(@(?P<hour>\d{1,2}):(?P<minute>\d{2}))?(/(?P<minutes>\d+(\.\d+)?)m?)?\Z")


@dataclass(frozen=True)
class Spike:
    factor: float
    start_s: float
    minutes: float

    def describe(self) -> str:
        hours, rest = divmod(int(self.start_s), 3600)
        return f"x{self.factor:g} from {hours:02d}:{rest // 60:02d} UTC for {self.minutes:g} min"


def parse_spike(text: str, serving_start_s: float, serving_hours: float) -> Spike:
    """FACTOR[x][@HH:MM][/MINUTES[m]]: e.g. 3x@12:00/10m; by default in the middle of the serving hours, 10 min."""
    found = SPIKE.match(text.strip())
    factor = float(found["factor"]) if found else 0.0
    if not found or factor <= 0 or (found["hour"] and not (int(found["hour"]) < 24 and int(found["minute"]) < 60)):
        raise InputError([problem(None, "--spike", f"cannot read {text!r}",
                                  "give FACTOR[x][@HH:MM][/MINUTES], e.g. 3x@12:00/10m (3 times the rate at 12:00 "
                                  "UTC for 10 minutes)", text)])
    start = (int(found["hour"]) * 3600 + int(found["minute"]) * 60 if found["hour"]
             else (serving_start_s + serving_hours * 1800) % DAY_SECONDS)
    return Spike(factor, float(start), float(found["minutes"] or 10))


def sample_lengths(lengths: Lengths, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(prompt, answer) tokens per request, as the planner's length model has them."""
    if not lengths.varying:
        return (np.full(count, max(1, round(lengths.mean_input)), dtype=np.int64),
                np.full(count, max(1, round(lengths.mean_output)), dtype=np.int64))
    prompt = _truncated(lengths.mean_input, lengths.max_input, count, rng)
    answer = _truncated(lengths.mean_output, lengths.max_output, count, rng)
    # An answer stops where the context ends (model.context_tokens = the server's --max-model-len).
    context = lengths.max_input + round(lengths.mean_output)
    return prompt, np.maximum(1, np.minimum(answer, context - prompt))


def _truncated(mean: float, cap: float, count: int, rng: np.random.Generator) -> np.ndarray:
    """Exponential with `mean` truncated at `cap` (inverse CDF), or uniform where no decreasing density fits."""
    rate = _rate_for_mean(mean, cap)
    uniform = rng.random(count)
    values = uniform * cap if rate <= 0 else -np.log1p(-uniform * -math.expm1(-rate * cap)) / rate
    return np.clip(np.ceil(values), 1, cap).astype(np.int64)


def rate_profile(requests_per_second: float, peak_factor: float, variable: bool, serving_start_s: float,
                 serving_hours: float, spike: Spike | None, rng: np.random.Generator) -> np.ndarray:
    """Requests a second for each second of the day."""
    seconds = np.arange(DAY_SECONDS)
    serving = ((seconds - serving_start_s) % DAY_SECONDS) < serving_hours * 3600
    rate = np.where(serving, requests_per_second, 0.0)
    if variable and peak_factor > 1.0:
        rate = rate * _bursts(peak_factor, rng)
    if spike is not None:
        inside = ((seconds - spike.start_s) % DAY_SECONDS) < spike.minutes * 60
        rate = np.where(inside, rate * spike.factor, rate)
    return rate


def _bursts(peak_factor: float, rng: np.random.Generator) -> np.ndarray:
    """A two-state Markov-modulated profile: bursts at peak_factor, the rest at the level that keeps the mean 1."""
    facts = simulate_facts().traffic
    share = min(facts.burst_share, 1.0 / peak_factor)
    base = (1.0 - share * peak_factor) / (1.0 - share)
    gap = facts.burst_seconds * (1.0 - share) / share
    levels = np.empty(DAY_SECONDS)
    at, bursting = 0, bool(rng.random() < share)
    while at < DAY_SECONDS:
        length = max(1, round(rng.exponential(facts.burst_seconds if bursting else gap)))
        levels[at:at + length] = peak_factor if bursting else base
        at += length
        bursting = not bursting
    return levels


def day_of_requests(rate: np.ndarray, lengths: Lengths, rng: np.random.Generator) -> Requests:
    """Poisson arrivals at `rate` (per second of the day) with lengths from the planner's model."""
    counts = rng.poisson(rate)
    arrival = np.repeat(np.arange(len(rate), dtype=np.float64), counts) + rng.random(int(counts.sum()))
    arrival.sort()
    prompt, answer = sample_lengths(lengths, len(arrival), rng)
    return Requests(arrival, prompt, answer)


FIELDS = ("arrival_s", "input_tokens", "output_tokens")


def read_trace(path: Path) -> Requests:
    """A CSV of arrival time (s), input tokens, output tokens per request; a header row naming them is optional.
    Anything else is refused with the file, line, field and the fix (exit 2), before anything is simulated."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError([problem(str(path), "--trace", f"cannot read the trace ({error})",
                                  "pass a UTF-8 CSV file of arrival_s,input_tokens,output_tokens")]) from None
    rows = list(csv.reader(text.splitlines()))
    start = 1 if rows and [cell.strip() for cell in rows[0]] == list(FIELDS) else 0
    values: list[tuple[float, int, int]] = []
    for number, row in enumerate(rows[start:], start=start + 1):
        if not row or all(not cell.strip() for cell in row):
            continue
        values.append(_trace_row(path, number, row))
    if not values:
        raise InputError([problem(str(path), "--trace", "the trace has no requests",
                                  "add one row per request: arrival_s,input_tokens,output_tokens")])
    values.sort(key=lambda value: value[0])
    arrival, prompt, answer = (np.array(column) for column in zip(*values, strict=True))
    return Requests(arrival.astype(np.float64), prompt.astype(np.int64), answer.astype(np.int64))


def _bad(path: Path, line: int, field: str, message: str, fix: str, value: str) -> InputError:
    return InputError([dataclasses.replace(problem(str(path), field, message, fix, value), line=line)])


def _trace_row(path: Path, number: int, row: list[str]) -> tuple[float, int, int]:
    if len(row) != 3:
        raise _bad(path, number, "row", f"{len(row)} fields; a row has 3",
                   "write arrival_s,input_tokens,output_tokens", ",".join(row))
    arrival_text, *tokens = (cell.strip() for cell in row)
    try:
        arrival = float(arrival_text)
    except ValueError:
        arrival = math.nan
    if not math.isfinite(arrival) or arrival < 0:
        raise _bad(path, number, "arrival_s", "not a time in seconds from 0 on",
                   "give the arrival in seconds since the trace's start, e.g. 12.5", arrival_text)
    counts = []
    for name, cell in zip(FIELDS[1:], tokens, strict=False):
        if not cell.isdigit() or int(cell) < 1:
            raise _bad(path, number, name, "not a whole number of tokens of at least 1",
                       "give a token count such as 512", cell)
        counts.append(int(cell))
    return arrival, counts[0], counts[1]
