"""The plan's serving route (issue 26): when the stack builds the model server, the plan carries the route and
autoscaling it builds (accelfit.planner.serving.traffic) and prices its load balancer and metrics in the estimate,
with the same functions the preview prices the built objects with (accelfit.pricing.serving_route): plan = preview.
"""

from __future__ import annotations

from accelfit.clouds import cloud_named
from accelfit.catalog.models import Catalog
from accelfit.engines import builds_server
from accelfit.planner.model import CostLine, NodePool, Plan, ServingPool
from accelfit.planner.serving.traffic import RoutePool, ServingRoute, serving_route, serving_traffic_facts
from accelfit.pricing.serving_route import gateway_part, metrics_part, route_gb_per_month
from accelfit.spec import WorkloadSpec
from accelfit.values import DNS_LABEL_MAX, fitted_name, leader_worker_set_name_limit

ROUTE_ITEMS = ("gateway", "metrics")


def builds_route(plan: Plan) -> bool:
    """The stack builds the model server, so also its route and autoscaling: an engine on a GKE or EKS cluster."""
    serving = plan.serving
    return (serving is not None and builds_server(serving.server) and bool(serving.pools)
            and plan.orchestration == "kubernetes" and not cloud_named(plan.cloud).owned)


def server_name(workload: str, pool: ServingPool, server: str = "vllm") -> str:
    """The model server object of one serving pool (what the autoscaler scales; components/kubernetes/serving/
    manifests.object_name): `<workload>-<engine>-<node pool>`, fitted to its kind's limit. A Deployment and its Service
    take a DNS label (63); a LeaderWorkerSet's worker pods carry `<lws>-<group>-<revision hash>` as a label value, so
    its name is shorter (accelfit.values.leader_worker_set_name_limit: 50 for up to 10 groups, 49 for up to 100).
    The limit follows the pool's replicas_max, so a name that worked is never changed: it is cut only where its
    worker pods could not be created (a running server is renamed only when the maximum grows past that point)."""
    suffix = f"-{server}-{pool.node_pools[0]}"
    limit = DNS_LABEL_MAX
    if pool.nodes_per_replica > 1:
        limit = leader_worker_set_name_limit(pool.replicas_max)
    return fitted_name(f"{workload}{suffix}", limit, keep_suffix=suffix)


def route_pools(plan: Plan, standby: tuple[NodePool, ...] = ()) -> tuple[RoutePool, ...]:
    assert plan.serving is not None
    nodes = {pool.name: pool for pool in (*plan.node_pools, *standby)}

    def window(name: str) -> tuple[str, float] | None:
        pool = nodes.get(name)
        if pool is None or pool.serving_start_utc is None or pool.serving_hours_per_day is None:
            return None
        return pool.serving_start_utc, pool.serving_hours_per_day

    engine_name = plan.serving.server
    return tuple(RoutePool(pool=pool.node_pools[0], accelerator=pool.accelerator, replicas_min=pool.replicas_min,
                           replicas_max=pool.replicas_max, in_flight_per_server=pool.in_flight_per_replica,
                           server=server_name(plan.workload, pool, engine_name),
                           server_kind="LeaderWorkerSet" if pool.nodes_per_replica > 1 else "Deployment",
                           serving_window=window(pool.node_pools[0]))
                 for pool in sorted(plan.serving.pools, key=lambda item: item.rank))


def plan_route(plan: Plan, spec: WorkloadSpec, standby: tuple[NodePool, ...] = ()) -> ServingRoute | None:
    """The route in the workload's own namespace (where its server runs unless accelfit:teamNamespaces names
    another: route_in_namespace)."""
    if not builds_route(plan) or spec.inference is None:
        return None
    route = serving_route(plan.workload, plan.workload, plan.cloud.value, route_pools(plan, standby),
                          public=bool(spec.inference.public_endpoint), server=plan.serving.server)  # type: ignore[union-attr]
    nodes = {pool.name: pool for pool in (*plan.node_pools, *standby)}
    bounds = ", ".join(f"{name} {nodes[name].min_nodes}..{nodes[name].max_nodes}"
                       for item in sorted(plan.serving.pools, key=lambda pool: pool.rank)  # type: ignore[union-attr]
                       for name in item.node_pools if name in nodes)
    follow = (f"Nodes follow the servers through the cluster autoscaler (nodes per pool: {bounds}): a server that "
              "cannot be placed adds a node, an empty node is removed.")
    return route.model_copy(update={"statements": (*route.statements, follow)})


def route_in_namespace(plan: Plan, namespace: str) -> ServingRoute:
    """The plan's route with its objects and metric queries in `namespace`."""
    assert plan.route is not None
    if plan.route.namespace == namespace:
        return plan.route
    return serving_route(plan.workload, namespace, plan.route.cloud, plan.route.pools, public=plan.route.public,
                         server=plan.route.server)


def route_gb(spec: WorkloadSpec) -> float:
    inference = spec.inference
    assert inference is not None
    return route_gb_per_month(inference.requests_per_second, inference.input_tokens + inference.output_tokens,
                              serving_traffic_facts().bytes_per_token, inference.hours_per_day)


def route_lines(route: ServingRoute, spec: WorkloadSpec, catalog: Catalog, region: str) -> tuple[CostLine, ...]:
    facts = serving_traffic_facts()

    def rate(service: str) -> float:
        found = catalog.service_price(route.cloud, service, region)
        return found.usd if found else 0.0

    parts = [gateway_part(rate("serving-lb-hour"), route_gb(spec), rate("serving-lb-data"), None)]
    # Managed Prometheus charges per sample; EKS scrapes into its own Prometheus
    if cloud_named(route.cloud).metrics_billed_per_sample:
        planned = route.scaling[0]
        parts.append(metrics_part(facts.series_per_pod, planned.min_replicas, planned.max_replicas,
                                  facts.autoscaling.scrape_interval_seconds, rate("managed-prometheus-samples"),
                                  None))
    return tuple(CostLine(item=part.item, monthly_usd=round(part.monthly_usd, 2),
                          full_scale_monthly_usd=round(part.full_scale_monthly_usd, 2),
                          total_usd=round(part.monthly_usd, 2), note=part.note) for part in parts)


def with_route(plan: Plan, spec: WorkloadSpec, catalog: Catalog, standby: tuple[NodePool, ...] = ()) -> Plan:
    """`plan` with its route and the route's priced lines (replacing any it had: the route follows the pools).
    `standby`: the fallback chain's standby node pools, which a fleet adds to the plan's pools afterwards."""
    route = plan_route(plan, spec, standby)
    estimate = plan.estimate
    kept = tuple(line for line in estimate.breakdown if line.item not in ROUTE_ITEMS)
    lines = route_lines(route, spec, catalog, plan.region) if route is not None else ()
    if route is None and kept == estimate.breakdown:
        return plan if plan.route is None else plan.model_copy(update={"route": None})
    old = [line for line in estimate.breakdown if line.item in ROUTE_ITEMS]
    monthly = round(estimate.monthly_usd - sum(line.monthly_usd for line in old)
                    + sum(line.monthly_usd for line in lines), 2)
    full = round(estimate.full_scale_monthly_usd - sum(line.full_scale_monthly_usd for line in old)
                 + sum(line.full_scale_monthly_usd for line in lines), 2)
    updated = estimate.model_copy(update={
        "breakdown": kept + lines, "monthly_usd": monthly, "full_scale_monthly_usd": full,
        "total_usd": monthly if estimate.run_total_usd is None else estimate.total_usd})
    reasons = tuple(reason for reason in plan.reasons if not reason.startswith("Route: "))
    return plan.model_copy(update={"route": route, "estimate": updated,
                                   "reasons": reasons + ((route.statements[0],) if route else ())})
