"""The closed-form queueing results the serving model uses, against values worked by hand."""

import math

import pytest

from accelfit.planner.serving.queueing import (
    erlang_c, md1_mean_wait, mmc_wait_quantile, mmc_wait_tail, poisson_quantile,
)


def test_erlang_c_matches_the_hand_worked_two_server_case():
    # c = 2, a = 1: Erlang B = a²/2 / (1 + a + a²/2) = 0.2, C = B / (1 − ρ(1 − B)) = 0.2 / 0.6
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)
    assert erlang_c(1, 0.5) == pytest.approx(0.5)  # M/M/1: an arrival waits with probability ρ
    assert erlang_c(4, 0.0) == 0.0 and erlang_c(4, 4.0) == 1.0


def test_erlang_c_stays_finite_for_a_thousand_servers():
    value = erlang_c(1024, 1000.0)
    assert 0.0 < value < 1.0


def test_the_mmc_wait_quantile_inverts_its_tail():
    wait = mmc_wait_quantile(8, rate=6.0, service_seconds=1.0, probability=0.99)
    assert mmc_wait_tail(8, 6.0, 1.0, wait) == pytest.approx(0.01, rel=1e-9)
    assert mmc_wait_quantile(8, rate=1.0, service_seconds=1.0, probability=0.99) == 0.0  # hardly anyone waits
    assert math.isinf(mmc_wait_quantile(2, rate=3.0, service_seconds=1.0, probability=0.99))


def test_md1_mean_wait_is_half_the_mm1_wait():
    # M/M/1 waits ρ/(μ − λ); a fixed service time halves it (Pollaczek-Khinchine)
    assert md1_mean_wait(0.5, 1.0) == pytest.approx(0.5 * (0.5 / 0.5))
    assert math.isinf(md1_mean_wait(2.0, 1.0))


def test_poisson_quantile():
    assert poisson_quantile(2.0, 0.99) == 6  # P(N ≤ 5) = 0.983, P(N ≤ 6) = 0.9955
    assert poisson_quantile(0.0, 0.99) == 0
    assert 1000 + 2.2 * math.sqrt(1000) < poisson_quantile(1000.0, 0.99) < 1000 + 2.5 * math.sqrt(1000)
