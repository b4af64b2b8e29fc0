"""A finite benchmark run: its fill and drain, which a steady-state rate does not have
(planner/serving/benchmark_run.py)."""

import math

import pytest

from accelfit.planner.serving.lengths import lengths_for
from accelfit.planner.serving.replica import Efficiency, ReplicaModel
from accelfit.planner.serving.benchmark_run import answer_lengths, run
from accelfit.spec import ModelSpec

LLAMA_8B = ModelSpec(parameters=8.03e9, precision="bf16", layers=32, hidden_size=4096, attention_heads=32, kv_heads=8)


def model_of(catalog, input_tokens, output_tokens, context_tokens=None):
    lengths = lengths_for(input_tokens, output_tokens, context_tokens)
    return ReplicaModel(catalog.accelerator("h200-141gb"), LLAMA_8B, lengths, Efficiency(0.75, 0.5))


def test_a_long_run_of_fixed_lengths_approaches_the_steady_state_rate(catalog):
    model = model_of(catalog, 1000, 1000)
    result = run(model, 1, requests=2560, in_flight_limit=128)
    steady = model.output_tokens_per_second(1, 128)
    assert result.output_tokens == 2560 * 1000
    assert result.output_tokens_per_second == pytest.approx(steady, rel=0.05)


def test_a_short_burst_of_varying_answers_lasts_until_its_longest_answer_ends(catalog):
    model = model_of(catalog, 213, 218, context_tokens=2048)
    lengths = answer_lengths(model, 200)
    assert sum(lengths) / 200 == pytest.approx(218, rel=0.02)
    longest = max(lengths)
    assert longest == pytest.approx(218 * math.log(400), rel=0.03)  # the top slice's middle quantile
    result = run(model, 1, requests=200, in_flight_limit=256)
    assert result.steps == longest
    # The drain (a nearly empty batch for the longest answers) leaves the run far below the steady-state rate.
    assert result.output_tokens_per_second < 0.6 * model.output_tokens_per_second(1, 200)
    # ...and each of those drain steps still reads all the weights: the run is at least `longest` such steps.
    assert result.seconds > longest * model.step_with(1, 1, 213, 0, 0).seconds


def test_the_in_flight_limit_queues_the_rest_and_the_order_is_reproducible(catalog):
    model = model_of(catalog, 213, 218, context_tokens=2048)
    assert answer_lengths(model, 200) == answer_lengths(model, 200)
    wide, narrow = run(model, 1, 1000, 256), run(model, 1, 1000, 16)
    assert narrow.output_tokens == wide.output_tokens
    assert narrow.seconds > 3 * wide.seconds


def test_a_run_needs_a_request_and_room_for_it(catalog):
    with pytest.raises(ValueError):
        run(model_of(catalog, 10, 10), 1, 0, 8)
