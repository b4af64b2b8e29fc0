"""The autoscaler as built, through a burst above the planned peak: the queue forms, KEDA's HPA asks for servers at
its polling interval (read from the serving-traffic facts the ScaledObject is built from), the servers are ready only
after their node, weight load and engine start, the queue drains, and the pool returns to what the steady load
asks for after the HPA's stabilization window."""

from __future__ import annotations

import numpy as np
import pytest

from accelfit.planner import Environment, plan
from accelfit.planner.serving.lengths import request_lengths
from accelfit.planner.serving.traffic import serving_traffic_facts
from accelfit.simulate import fleet as fleet_module
from accelfit.simulate.engine import Requests
from accelfit.simulate.fleet import build_fleet, run_fleet
from accelfit.simulate.traffic import sample_lengths
from accelfit.spec import load_workload

SPIKE_AT, SPIKE_FOR = 600, 300


@pytest.fixture(scope="module")
def fleet(catalog):
    spec = load_workload("examples/vllm-serving-gcp.yaml").spec
    return build_fleet(spec, plan(spec, catalog, Environment()), catalog)


def _burst(fleet, factor=3.0, minutes=40):
    rng = np.random.default_rng(9)
    seconds = np.arange(minutes * 60)
    rate = np.where((seconds >= SPIKE_AT) & (seconds < SPIKE_AT + SPIKE_FOR), 20 * factor, 20.0)
    counts = rng.poisson(rate)
    arrival = np.sort(np.repeat(seconds.astype(float), counts) + rng.random(counts.sum()))
    prompt, answer = sample_lengths(request_lengths(fleet.spec.inference, fleet.spec.model), len(arrival), rng)
    return Requests(arrival, prompt, answer)


@pytest.fixture(scope="module")
def burst_run(fleet):
    return run_fleet(fleet, _burst(fleet), whole_day=False)


def test_the_burst_queues_the_autoscaler_asks_and_the_servers_follow_after_their_start(fleet, burst_run):
    trace, asked = burst_run.trace, burst_run.asked[:, 0]
    pool, scaled = fleet.pools[0], fleet.scaled[0]
    assert trace.waiting[:SPIKE_AT].max() < 5 and trace.waiting[SPIKE_AT:SPIKE_AT + SPIKE_FOR].max() > 100
    assert asked[0] == scaled.min_servers == scaled.start_servers
    # Before the spike the load trigger holds what requests_per_second keeps in flight: the minimum or a little more
    # (the minimum carries requests_per_second at the p99 bound, where more requests are in flight per server).
    before = int(asked[SPIKE_AT - 1])
    assert scaled.min_servers <= before < scaled.max_servers == pool.replicas_at_rate
    first_ask = SPIKE_AT + int(np.argmax(asked[SPIKE_AT:] > before))
    polling = serving_traffic_facts().autoscaling.polling_interval_seconds
    assert first_ask % polling == 0 and first_ask < SPIKE_AT + 2 * polling
    first_ready = first_ask + int(np.argmax(trace.ready[first_ask:, 0] > before))
    assert first_ready - first_ask >= scaled.server_start_s == pool.weights_load_seconds + pool.startup_seconds
    assert asked.max() == scaled.max_servers


def test_the_queue_drains_and_the_pool_returns_to_its_minimum(fleet, burst_run):
    trace, asked = burst_run.trace, burst_run.asked[:, 0]
    after = SPIKE_AT + SPIKE_FOR
    drained = after + int(np.argmax(trace.waiting[after:] == 0))
    assert drained < len(trace.waiting) - 600
    # back to what the steady load asked for before the spike, once the HPA's 300 s stabilization has passed
    assert asked[-1] <= asked[SPIKE_AT - 1] < fleet.scaled[0].max_servers
    assert burst_run.nodes[:, 0].max() > burst_run.nodes[0, 0]  # the burst added nodes


def test_the_polling_interval_is_the_one_the_scaledobject_is_built_with(fleet, monkeypatch):
    facts = serving_traffic_facts()
    slower = facts.model_copy(update={"autoscaling": facts.autoscaling.model_copy(
        update={"polling_interval_seconds": 120})})
    monkeypatch.setattr(fleet_module, "serving_traffic_facts", lambda: slower)
    run = run_fleet(fleet, _burst(fleet, minutes=25), whole_day=False)
    first_ask = int(np.argmax(run.asked[:, 0] > fleet.scaled[0].min_servers))
    assert first_ask % 120 == 0
