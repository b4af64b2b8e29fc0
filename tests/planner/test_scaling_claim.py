"""The planned pool's scaling sentence says what KEDA's AverageValue targets do (the HPA asks for
ceil(metric / threshold) servers in all, whatever runs now: kedacore/keda-docs content/docs/2.18/reference/
scaledobject-spec.md @a55c5d34, triggers.metricType), and those targets make the planned load scale as the plan
says. The queue trigger alone (one server per 5 waiting) asked for fewer servers than the minimum at any load the
servers keep up with, so the pool never grew with its load; the load trigger (requests in flight against what one
server holds at the planned peak) asks for the planned replicas at the planned peak."""

from __future__ import annotations

import math

import pytest

from accelfit.planner import Environment, plan
from accelfit.planner.serving.route_plan import route_pools
from accelfit.planner.serving.traffic import RoutePool, pool_scaling
from accelfit.spec import load_workload


def _desired(scaling, values: dict[str, float]) -> int:
    wanted = [math.ceil(values[name] / threshold) for name, _, threshold in scaling.triggers]
    return min(scaling.max_replicas, max(scaling.min_replicas, *wanted))


@pytest.fixture(scope="module")
def planned(catalog):
    spec = load_workload("examples/vllm-serving-gcp.yaml").spec
    result = plan(spec, catalog, Environment())
    return spec, result, result.serving.pools[0]


def test_the_planned_peak_asks_for_the_planned_replicas(planned):
    """At the planned peak each of the planned replicas holds in_flight_per_replica requests: the HPA asks for them
    all. The old queue-only rule asked for ceil(waiting / 5), which stays under the minimum while the queue is
    short, so the pool sat at its minimum through the planned peak."""
    _, result, pool = planned
    [scaling] = [item for item in result.route.scaling if item.rank == 0]
    assert [name for name, _, _ in scaling.triggers] == ["load", "queue"]
    assert pool.replicas_min < pool.replicas_at_rate == pool.replicas_max
    in_flight = pool.in_flight_per_replica * pool.replicas_at_rate
    assert _desired(scaling, {"load": in_flight, "queue": 0.0}) == pool.replicas_at_rate
    # the old rule at the same load: the queue is short at the planned peak (its p99 TTFT within target)
    assert max(scaling.min_replicas, math.ceil(5 / 5)) == pool.replicas_min < pool.replicas_at_rate


def test_the_sentence_states_both_rules_and_the_built_thresholds(planned):
    _, result, pool = planned
    [scaling] = [item for item in result.route.scaling if item.rank == 0]
    thresholds = {name: threshold for name, _, threshold in scaling.triggers}
    assert thresholds["load"] == pool.in_flight_per_replica > 0 and thresholds["queue"] == 5
    assert f"one server per {pool.in_flight_per_replica:g} requests in flight" in scaling.why
    assert "one server per 5 requests waiting" in scaling.why
    query = {name: query for name, query, _ in scaling.triggers}["load"]
    assert "vllm:num_requests_running" in query and "vllm:num_requests_waiting" in query
    assert route_pools(result)[0].in_flight_per_server == pool.in_flight_per_replica


def test_a_pool_without_a_modelled_load_keeps_the_queue_rule():
    pool = RoutePool.model_validate({"pool": "gpu", "server": "chat-vllm-gpu", "server_kind": "Deployment",
                                     "accelerator": "l4", "replicas_min": 9, "replicas_max": 12})
    [planned] = pool_scaling("chat", [pool])
    assert [name for name, _, _ in planned.triggers] == ["queue"]


@pytest.mark.parametrize("example", ["examples/vllm-serving-gcp.yaml", "examples/vllm-serving-aws.yaml"])
def test_the_minimum_nodes_hold_the_minimum_servers(catalog, example):
    """The nodes' minimum is the peak's nodes over the peak factor rounded up: rounded down, the AWS example's 3
    nodes of 2 servers held 6 of its minimum 7 (the seventh kept a fourth node up all day, against the plan's
    3..4)."""
    spec = load_workload(example).spec
    result = plan(spec, catalog, Environment())
    pool = result.serving.pools[0]
    nodes = {item.name: item for item in result.node_pools}
    minimum = sum(nodes[name].min_nodes for name in pool.node_pools)
    per_node = pool.accelerators_per_node // pool.chips_per_replica
    assert minimum * per_node >= pool.replicas_min
