"""A day of the spec's traffic and a recorded trace: seeded, shaped as the spec says, and bad trace rows refused with
the file, line, field and fix."""

from __future__ import annotations

import numpy as np
import pytest

from accelfit.errors import InputError
from accelfit.planner.serving.lengths import lengths_for
from accelfit.simulate.traffic import DAY_SECONDS, day_of_requests, parse_spike, rate_profile, read_trace


def _day(seed, variable=True, hours=24.0, spike=None, rps=20.0):
    rng = np.random.default_rng(seed)
    rate = rate_profile(rps, 1.3, variable, 8 * 3600.0, hours, spike, rng)
    return rate, day_of_requests(rate, lengths_for(1024, 256, 8192), rng)


def test_the_same_seed_gives_the_same_day_and_another_seed_another():
    _, first = _day(1)
    _, again = _day(1)
    _, other = _day(2)
    assert np.array_equal(first.arrival, again.arrival) and np.array_equal(first.answer, again.answer)
    assert not np.array_equal(first.arrival[:100], other.arrival[:100])


def test_variable_traffic_bursts_to_the_peak_factor_and_keeps_the_mean():
    rate, requests = _day(3)
    assert rate.max() == pytest.approx(20 * 1.3)
    assert rate.mean() == pytest.approx(20, rel=0.05)
    assert len(requests) / DAY_SECONDS == pytest.approx(20, rel=0.05)
    steady, _ = _day(3, variable=False)
    assert steady.min() == steady.max() == 20


def test_lengths_follow_the_planners_length_model():
    _, requests = _day(4)
    assert requests.prompt.mean() == pytest.approx(1024, rel=0.05)
    assert requests.answer.mean() == pytest.approx(256, rel=0.05)
    assert (requests.prompt + requests.answer).max() <= 8192


def test_part_day_serving_has_no_requests_outside_its_hours():
    rate, requests = _day(5, variable=False, hours=8)
    hours = (requests.arrival // 3600).astype(int)
    assert set(hours) == set(range(8, 16))
    assert rate[: 8 * 3600].max() == 0


def test_a_spike_multiplies_the_rate_for_its_minutes():
    spike = parse_spike("3x@12:00/10m", 8 * 3600.0, 24)
    rate, _ = _day(6, variable=False, spike=spike)
    assert rate[12 * 3600: 12 * 3600 + 600].min() == 60 and rate[12 * 3600 + 600] == 20
    default = parse_spike("2", 8 * 3600.0, 8)
    assert (default.factor, default.start_s, default.minutes) == (2.0, 12 * 3600.0, 10.0)
    with pytest.raises(InputError, match="--spike"):
        parse_spike("fast", 0.0, 24)


def test_a_trace_is_read_with_or_without_its_header(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n2.5,100,20\n0.5,50,10\n\n")
    requests = read_trace(trace)
    assert requests.arrival.tolist() == [0.5, 2.5] and requests.prompt.tolist() == [50, 100]
    trace.write_text("0,10,5\n")
    assert len(read_trace(trace)) == 1


@pytest.mark.parametrize("rows, line, field", [
    ("0,10,5\n1,ten,5\n", 2, "input_tokens"),
    ("0,10,5\n-1,10,5\n", 2, "arrival_s"),
    ("arrival_s,input_tokens,output_tokens\n0,10,0\n", 2, "output_tokens"),
    ("0,10\n", 1, "row"),
])
def test_a_bad_trace_row_names_the_file_line_field_and_fix(tmp_path, rows, line, field):
    trace = tmp_path / "trace.csv"
    trace.write_text(rows)
    with pytest.raises(InputError) as failure:
        read_trace(trace)
    problem = failure.value.problems[0]
    assert (problem.file, problem.line, problem.field) == (str(trace), line, field)
    assert problem.fix
