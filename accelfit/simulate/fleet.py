"""A day (or a trace) through one workload's planned serving fleet: its pools in route order, each pool's server as
the planner modelled it, its autoscaler and nodes as the stack builds them, priced per node-hour."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from accelfit.catalog.models import Catalog
from accelfit.planner.costing.option_costs import SERVING_START_UTC
from accelfit.planner.model import NodePool, Plan, ServingPool
from accelfit.planner.serving.replica import Efficiency
from accelfit.planner.serving.traffic import serving_traffic_facts
from accelfit.planner.sizes import peak_factor
from accelfit.simulate.engine import Capacity, FixedCapacity, Requests, ServerShape, Trace, simulate
from accelfit.simulate.facts import simulate_facts
from accelfit.simulate.scaler import Autoscaler, ScaledPool
from accelfit.simulate.servers import pool_shape
from accelfit.simulate.traffic import DAY_SECONDS, Spike, day_of_requests, rate_profile
from accelfit.spec import Traffic, WorkloadSpec

TICK_SECONDS = 1.0


@dataclass(frozen=True)
class Fleet:
    """What a simulation runs: the pools in route order, their servers, autoscaling and node prices."""

    spec: WorkloadSpec
    plan: Plan
    pools: tuple[ServingPool, ...]
    shapes: tuple[ServerShape, ...]
    scaled: tuple[ScaledPool, ...] | None  # None: the stack builds no autoscaler (no model server)
    node_hourly_usd: tuple[float, ...]
    serving_start_s: float
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Run:
    fleet: Fleet
    requests: Requests
    refused: np.ndarray  # arrival times of requests the server refuses: longer than its --max-model-len
    trace: Trace
    nodes: np.ndarray  # ticks x pools
    asked: np.ndarray  # ticks x pools: servers the autoscaler asked for
    seconds: float  # wall-clock time the simulation took


def _seconds_of_day(text: str) -> float:
    hours, minutes = text.split(":")
    return int(hours) * 3600.0 + int(minutes) * 60.0


def _node_price(catalog: Catalog, plan: Plan, pool: ServingPool) -> tuple[float, str | None]:
    price = catalog.price(plan.cloud.value, pool.machine_type if pool.kind == "gpu" else pool.accelerator,
                          plan.region, pool.pricing)
    if price is None:
        return 0.0, f"pool {pool.node_pools[0]}: no {pool.pricing} price for {pool.machine_type} in {plan.region}; " \
                    "its nodes are counted at $0"
    per_node = price.hourly_usd * (pool.accelerators_per_node if price.unit == "chip-hour" else 1)
    return per_node, None


def build_fleet(spec: WorkloadSpec, plan: Plan, catalog: Catalog, efficiency: Efficiency | None = None) -> Fleet:
    serving = plan.serving
    pools = tuple(serving.pools) if serving else ()
    node_pools = {pool.name: pool for pool in plan.node_pools}
    first = node_pools.get(pools[0].node_pools[0]) if pools else None
    stated = spec.inference.serving_start_utc if spec.inference else None
    start = _seconds_of_day(first.serving_start_utc if first and first.serving_start_utc
                            else stated or SERVING_START_UTC)
    prices, notes = [], []
    for pool in pools:
        price, note = _node_price(catalog, plan, pool)
        prices.append(price)
        notes += [note] if note else []
    shapes = tuple(pool_shape(spec, pool, catalog, plan.cloud.value, efficiency) for pool in pools)
    scaled = _scaled(plan, pools, node_pools) if plan.route is not None else None
    if scaled is None:
        notes.append("the stack builds no model server or autoscaler (inference.server none): the planned "
                     "replicas of the first pool serve all day")
    return Fleet(spec, plan, pools, shapes, scaled, tuple(prices), start, tuple(notes))


def _scaled(plan: Plan, pools: tuple[ServingPool, ...], node_pools: dict[str, NodePool]) -> tuple[ScaledPool, ...]:
    facts = simulate_facts()
    node_start = facts.nodes.provisioning_seconds.get(plan.cloud.value, 0.0)
    out = []
    assert plan.route is not None  # build_fleet calls this only for a plan with a route
    for pool, scaling in zip(pools, plan.route.scaling, strict=False):
        node_pool = node_pools[pool.node_pools[0]]
        window = None
        if scaling.window is not None and node_pool.serving_start_utc:
            window = (_seconds_of_day(node_pool.serving_start_utc), node_pool.serving_hours_per_day or 24.0,
                      scaling.window[2])
        per_node = pool.accelerators_per_node // pool.chips_per_replica if pool.nodes_per_replica == 1 else 0
        out.append(ScaledPool(
            name=pool.node_pools[0], min_servers=scaling.min_replicas, max_servers=scaling.max_replicas,
            triggers=tuple((name, threshold) for name, _, threshold in scaling.triggers),
            start_servers=scaling.min_replicas if pool.fallback_rank == 0 else 0,
            servers_per_node=max(per_node, 0), nodes_per_server=pool.nodes_per_replica,
            min_nodes=node_pool.min_nodes, max_nodes=node_pool.max_nodes,
            server_start_s=(pool.weights_load_seconds or 0.0) + pool.startup_seconds, node_start_s=node_start,
            window=window))
    return tuple(out)


def _capacity(fleet: Fleet) -> Capacity:
    if fleet.scaled is None:
        return FixedCapacity([fleet.pools[0].replicas_at_rate] + [0] * (len(fleet.pools) - 1))
    traffic = serving_traffic_facts()
    threshold = traffic.endpoint_picker.queue_depth_threshold
    holds = [threshold * sum(pool.max_servers for pool in fleet.scaled[:rank]) for rank in range(len(fleet.scaled))]
    facts = simulate_facts()
    autoscaling = traffic.autoscaling
    return Autoscaler(fleet.scaled, facts.hpa, facts.nodes, autoscaling.polling_interval_seconds,
                      autoscaling.cooldown_period_seconds, autoscaling.scrape_interval_seconds, holds)


def spec_requests(fleet: Fleet, seed: int, spike: Spike | None) -> Requests:
    """A day of the spec's traffic through its serving hours (see traffic.py)."""
    inference = fleet.spec.inference
    assert inference is not None  # build_fleet plans serving fleets only
    rng = np.random.default_rng(seed)
    rate = rate_profile(inference.requests_per_second, peak_factor(inference), inference.traffic is Traffic.variable,
                        fleet.serving_start_s, inference.hours_per_day, spike, rng)
    from accelfit.planner.serving.lengths import request_lengths

    return day_of_requests(rate, request_lengths(inference, fleet.spec.model), rng)


def run_fleet(fleet: Fleet, requests: Requests, whole_day: bool = True) -> Run:
    """Serve `requests`; the run lasts the day (or, `whole_day` False, until the last arrival) plus the route's
    timeout, so every request that can still be served is."""
    began = time.perf_counter()
    longest = fleet.pools[0].max_model_len
    too_long = (requests.prompt + requests.answer) > longest
    served = Requests(requests.arrival[~too_long], requests.prompt[~too_long], requests.answer[~too_long])
    capacity = _capacity(fleet)
    timeout = float(serving_traffic_facts().gateway.request_timeout.rstrip("s"))
    last = float(requests.arrival[-1]) if len(requests) else 0.0
    horizon = (max(DAY_SECONDS, last) if whole_day else last) + timeout
    trace = simulate(served, fleet.shapes, capacity, dt=TICK_SECONDS, timeout_s=timeout, horizon_s=horizon)
    ticks = len(trace.ticks)
    if isinstance(capacity, Autoscaler):
        nodes = np.array(capacity.nodes_log[:ticks], dtype=np.float64)
        asked = np.array(capacity.asked_log[:ticks], dtype=np.float64)
    else:
        nodes = np.zeros((ticks, len(fleet.pools)))
        nodes[:, 0] = fleet.plan.node_pools[-1].max_nodes if fleet.plan.node_pools else 0
        asked = trace.ready.astype(np.float64)
    return Run(fleet, served, requests.arrival[too_long], trace, nodes, asked, time.perf_counter() - began)
