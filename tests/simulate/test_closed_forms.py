"""The simulator against closed-form queueing results where they hold: a server whose step time does not depend on
its batch is a plain multi-server queue, so with one place and a fixed answer length it is M/D/1 (Pollaczek-Khinchine
mean wait) and with c places and geometric answers (a discrete exponential) it is M/M/c (Erlang C waiting time)."""

from __future__ import annotations

import numpy as np
import pytest

from accelfit.planner.serving.queueing import erlang_c, md1_mean_wait, mmc_wait_quantile, mmc_wait_tail
from accelfit.simulate.engine import FixedCapacity, Requests, ServerShape, simulate


def _constant(seconds: float):
    return lambda sequences, kv_tokens, prompt_tokens: seconds


def _waits(arrival, answer, slots, step, dt=1.0):
    requests = Requests(arrival, np.ones(len(arrival), dtype=np.int64), answer)
    trace = simulate(requests, [ServerShape(_constant(step), slots, 10**6, 1e12)], FixedCapacity([1]), dt=dt,
                     timeout_s=1e9, horizon_s=float(arrival[-1]) + 600)
    assert not trace.failed.any()
    return trace.admitted - arrival


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_one_place_and_fixed_answers_is_md1(load):
    rng = np.random.default_rng(11)
    step, tokens = 0.01, 100  # a 1 s service
    arrival = np.cumsum(rng.exponential(1 / load, 30_000))
    waits = _waits(arrival, np.full(len(arrival), tokens, dtype=np.int64), 1, step)
    assert waits.mean() == pytest.approx(md1_mean_wait(load, tokens * step), rel=0.12)


@pytest.mark.parametrize("dt", [0.25, 1.0, 2.0])
def test_places_and_geometric_answers_is_mmc(dt):
    """The waiting-time distribution, not only its mean: the chance to wait, a tail point and the 99th percentile;
    the same at every tick length (places that free up within a tick are taken first come, first served)."""
    rng = np.random.default_rng(5)
    places, rate, mean_tokens, step = 8, 6.0, 200, 0.005  # service 1 s, offered load 6 on 8 places
    arrival = np.cumsum(rng.exponential(1 / rate, 60_000))
    waits = _waits(arrival, rng.geometric(1 / mean_tokens, len(arrival)).astype(np.int64), places, step, dt)
    service = mean_tokens * step
    assert np.mean(waits > 1e-9) == pytest.approx(erlang_c(places, rate * service), abs=0.03)
    assert np.mean(waits > 0.5) == pytest.approx(mmc_wait_tail(places, rate, service, 0.5), abs=0.03)
    assert np.percentile(waits, 99) == pytest.approx(mmc_wait_quantile(places, rate, service, 0.99), rel=0.10)
