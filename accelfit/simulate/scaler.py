"""The autoscaler as the stack builds it, over time: KEDA's ScaledObject per serving pool driving an HPA, the pods'
weight load and engine start, and the nodes the cluster autoscaler adds and removes under them.

Read from what the components build from: the plan's route (each pool's ScaledObject bounds, triggers and their
thresholds, its cron window: accelfit.planner.serving.traffic.pool_scaling) and the serving-traffic facts (KEDA's
pollingInterval and cooldownPeriod, the Prometheus scrape interval). The HPA's defaults behind KEDA and the node
timings are data/simulate.yaml. Per pool, every polling interval:
  - each trigger's value as Prometheus last scraped it: `queue` the requests waiting on the pool's servers,
    `load` those plus the requests running on them, `overflow` those waiting on the earlier pools beyond what
    their full size holds, `unavailable` the earlier pools' servers asked for and not ready; the HPA wants
    ceil(value / threshold) for each, whatever runs now (KEDA's default metricType AverageValue)
    and takes the largest, within min..max, unchanged within its tolerance, up by at most max(4 pods, 100%) per
    period, down only to the highest recommendation of its stabilization window; a pool whose minimum is 0 goes
    to 0 only after KEDA's cooldown since a trigger was last active; the cron trigger holds the window's servers;
  - a new server starts on a node with room at once (weights load + engine start, the plan's figures), else the
    cluster autoscaler adds a node (provisioning time per cloud) first; a node left empty is removed after the
    autoscaler's unneeded time, down to the pool's minimum nodes.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from accelfit.simulate.facts import HpaFacts, NodeFacts


@dataclass(frozen=True)
class ScaledPool:
    """One serving pool as its autoscaler and node pool see it."""

    name: str
    min_servers: int
    max_servers: int
    triggers: tuple[tuple[str, float], ...]  # (trigger name, threshold per server)
    start_servers: int  # servers up and ready when the day starts
    servers_per_node: int  # 0 when a server spans several nodes
    nodes_per_server: int
    min_nodes: int
    max_nodes: int
    server_start_s: float  # weights load + engine start
    node_start_s: float  # node provisioning
    window: tuple[float, float, int] | None = None  # (start s of day, hours, servers) of the cron trigger

    def nodes_for(self, servers: int) -> int:
        if self.servers_per_node:
            return math.ceil(servers / self.servers_per_node)
        return servers * self.nodes_per_server

    def servers_on(self, nodes: int) -> int:
        return nodes * self.servers_per_node if self.servers_per_node else nodes // self.nodes_per_server

    def in_window(self, now: float) -> bool:
        if self.window is None:
            return False
        start, hours, _ = self.window
        return (now % 86_400 - start) % 86_400 < hours * 3600


@dataclass
class _State:
    pool: ScaledPool
    replicas: int  # what the HPA asks for
    pods: list[float] = field(default_factory=list)  # ready time of each started pod (inf: pending, no node)
    nodes: list[float] = field(default_factory=list)  # ready time of each node
    empty_since: float | None = None
    recommendations: deque[tuple[float, int]] = field(default_factory=deque)  # (time, replicas) within the stabilization window
    last_active: float = -math.inf


class Autoscaler:
    def __init__(self, pools: Sequence[ScaledPool], hpa: HpaFacts, nodes: NodeFacts, polling_s: float,
                 cooldown_s: float, scrape_s: float, queue_holds: Sequence[float]):
        self.states = [self._initial(pool) for pool in pools]
        self.hpa, self.node_facts = hpa, nodes
        self.polling_s, self.cooldown_s, self.scrape_s = polling_s, cooldown_s, scrape_s
        self.queue_holds = queue_holds  # per pool: requests its earlier pools hold at full size before overflow
        self.now = 0.0
        self.next_poll = 0.0
        self.next_scrape = 0.0
        self.scraped_waiting = 0
        self.scraped_running: tuple[float, ...] = (0.0,) * len(self.states)
        self.nodes_log: list[tuple[int, ...]] = []
        self.asked_log: list[tuple[int, ...]] = []
        self.ready_now: list[int] = [0] * len(self.states)
        self.next_change = 0.0  # nothing moves before this: a poll, a pod or a node becoming ready

    @staticmethod
    def _initial(pool: ScaledPool) -> _State:
        servers = 0 if pool.window is not None else pool.start_servers
        nodes = max(pool.min_nodes, pool.nodes_for(servers))
        return _State(pool, servers, [0.0] * servers, [0.0] * nodes)

    def ready(self, pool: int) -> int:
        return self.ready_now[pool]

    def tick(self, now: float, waiting: int, running: Sequence[float]) -> None:
        self.now = now
        if now >= self.next_scrape:
            self.scraped_waiting = waiting
            self.scraped_running = tuple(running)
            self.next_scrape += self.scrape_s
        if now >= self.next_poll:
            for rank, state in enumerate(self.states):
                self._poll(rank, state)
            self.next_poll += self.polling_s
            self.next_change = now
        if now >= self.next_change:
            for state in self.states:
                self._place(state)
            self.ready_now = [sum(1 for ready_at in state.pods if ready_at <= now) for state in self.states]
            self.next_change = min([self.next_poll, *self._pending(now)])
        self.nodes_log.append(tuple(len(state.nodes) for state in self.states))
        self.asked_log.append(tuple(state.replicas for state in self.states))

    def _pending(self, now: float) -> list[float]:
        """When a pod or node next becomes ready, or an empty node may be removed."""
        out = []
        for state in self.states:
            out += [ready_at for ready_at in state.pods + state.nodes if now < ready_at < math.inf]
            if state.empty_since is not None:
                out.append(state.empty_since + self.node_facts.scale_down_unneeded_seconds)
            if any(ready_at == math.inf for ready_at in state.pods):
                out.append(now + 1.0)  # pending pods wait for a node: look again next tick
        return out

    def _values(self, rank: int) -> dict[str, float]:
        waiting = float(self.scraped_waiting)
        earlier = self.states[:rank]
        missing = sum(max(0, state.replicas - self.ready(index)) for index, state in enumerate(earlier))
        return {"queue": waiting if rank == 0 else 0.0,
                "load": waiting + self.scraped_running[rank] if rank == 0 else 0.0,
                "overflow": max(0.0, waiting - self.queue_holds[rank]),
                "unavailable": float(missing)}

    def _poll(self, rank: int, state: _State) -> None:
        pool = state.pool
        values = self._values(rank)
        wanted = [math.ceil(values.get(name, 0.0) / threshold) for name, threshold in pool.triggers]
        if any(values.get(name, 0.0) > 0 for name, _ in pool.triggers):
            state.last_active = self.now
        floor = pool.min_servers
        if pool.window is not None:
            floor = pool.window[2] if pool.in_window(self.now) else 0
        desired = max([floor, *wanted])
        current = state.replicas
        if current and wanted and abs(max(wanted) / current - 1.0) <= self.hpa.tolerance and max(wanted) > floor:
            desired = current  # within the HPA's tolerance: no change
        if desired == 0 and current > 0 and self.now - state.last_active < self.cooldown_s:
            desired = max(1, floor)  # KEDA keeps the last server until its cooldown has passed
        state.replicas = self._bounded(state, min(max(desired, floor), pool.max_servers))

    def _bounded(self, state: _State, desired: int) -> int:
        """The HPA's rate limits: up by max(4 pods, 100%) per period, down to the highest recent recommendation."""
        hpa = self.hpa
        state.recommendations.append((self.now, desired))
        while state.recommendations and state.recommendations[0][0] < self.now - hpa.scale_down_stabilization_seconds:
            state.recommendations.popleft()
        current = state.replicas
        if desired > current:
            return min(desired, current + max(hpa.scale_up_pods, math.ceil(current * hpa.scale_up_percent / 100)))
        return min(current, max(value for _, value in state.recommendations))

    def _place(self, state: _State) -> None:
        pool = state.pool
        # Fewer servers asked for: pending pods go first, then the newest (Kubernetes removes unready pods first).
        state.pods.sort()
        del state.pods[state.replicas:]
        state.pods.extend([math.inf] * (state.replicas - len(state.pods)))
        ready_nodes = sum(1 for ready_at in state.nodes if ready_at <= self.now)
        room = pool.servers_on(ready_nodes) - sum(1 for ready_at in state.pods if ready_at < math.inf)
        for index, ready_at in enumerate(state.pods):
            if ready_at == math.inf and room > 0:
                state.pods[index] = self.now + pool.server_start_s
                room -= 1
        needed = min(pool.max_nodes, max(pool.min_nodes, pool.nodes_for(state.replicas)))
        if len(state.nodes) < needed:
            state.nodes.extend([self.now + pool.node_start_s] * (needed - len(state.nodes)))
            state.empty_since = None
        elif len(state.nodes) > needed:
            state.empty_since = self.now if state.empty_since is None else state.empty_since
            if self.now - state.empty_since >= self.node_facts.scale_down_unneeded_seconds:
                state.nodes.sort()
                del state.nodes[needed:]
                state.empty_since = None
        else:
            state.empty_since = None
