"""Closed-form queueing results the serving model uses and the simulator is checked against.

- Erlang C: the chance an arrival waits in an M/M/c queue (Poisson arrivals, c servers, exponential service),
  from Erlang B's recursion B(k) = a·B(k−1) / (k + a·B(k−1)), which stays stable for thousands of servers
  (Kleinrock, Queueing Systems vol. 1, section 3.5; any queueing text).
- The M/M/c waiting time: P(W > t) = C(c, a) · exp(−(c·μ − λ)·t), so its quantile has a closed form.
- M/D/1's mean wait (Pollaczek-Khinchine with a deterministic service time D): W = ρ·D / (2·(1 − ρ)).
- Allen-Cunneen: an M/G/c wait is about the M/M/c wait times (1 + cs²)/2, cs² the service time's squared
  coefficient of variation (0 for fixed lengths, 1 for exponential ones).
"""

from __future__ import annotations

import math


def erlang_c(servers: int, offered: float) -> float:
    """The probability that an arrival waits, M/M/c with `servers` servers and offered load a = λ/μ."""
    if offered <= 0.0:
        return 0.0
    if offered >= servers:
        return 1.0
    blocking = 1.0
    for k in range(1, servers + 1):
        blocking = offered * blocking / (k + offered * blocking)
    utilisation = offered / servers
    return blocking / (1.0 - utilisation * (1.0 - blocking))


def mmc_wait_quantile(servers: int, rate: float, service_seconds: float, probability: float) -> float:
    """The wait (s) that `probability` of arrivals do not exceed in M/M/c; inf when the queue is unstable."""
    offered = rate * service_seconds
    if offered >= servers:
        return math.inf
    waits = erlang_c(servers, offered)
    tail = 1.0 - probability
    if waits <= tail:
        return 0.0
    return math.log(waits / tail) * service_seconds / (servers - offered)


def mmc_wait_tail(servers: int, rate: float, service_seconds: float, seconds: float) -> float:
    """P(W > seconds) in M/M/c."""
    offered = rate * service_seconds
    return erlang_c(servers, offered) * math.exp(-(servers - offered) * seconds / service_seconds)


def md1_mean_wait(rate: float, service_seconds: float) -> float:
    """Mean wait in queue (s) of M/D/1; inf when the queue is unstable."""
    utilisation = rate * service_seconds
    if utilisation >= 1.0:
        return math.inf
    return utilisation * service_seconds / (2.0 * (1.0 - utilisation))


def poisson_quantile(mean: float, probability: float) -> int:
    """The smallest k with P(N ≤ k) ≥ probability for N ~ Poisson(mean); a normal approximation above 500."""
    if mean <= 0.0:
        return 0
    if mean > 500.0:
        z = _normal_quantile(probability)
        return max(0, math.ceil(mean + z * math.sqrt(mean) - 0.5))
    term = math.exp(-mean)
    total, k = term, 0
    while total < probability:
        k += 1
        term *= mean / k
        total += term
    return k


def _normal_quantile(probability: float) -> float:
    """Standard normal quantile by bisection on erf (exact enough for sizing)."""
    low, high = -10.0, 10.0
    for _ in range(80):
        middle = (low + high) / 2.0
        if 0.5 * (1.0 + math.erf(middle / math.sqrt(2.0))) < probability:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0
