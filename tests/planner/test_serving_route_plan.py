"""The plan's serving route (accelfit.planner.serving.route_plan): built only with the model server, internal unless
the spec asks for a public endpoint, in the plan's route order, and priced by the formulas the preview uses."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import plan_fleet
from accelfit.planner.planner import Environment
from accelfit.planner.serving.route_plan import builds_route, route_gb, route_lines, server_name
from accelfit.pricing.serving_route import gateway_part, metrics_part, route_gb_per_month, samples_per_month
from accelfit.spec import WorkloadSpec

SPEC = {"name": "chat", "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "8B", "precision": "bf16", "weights": "gs://acme-models/llama-3.1-8b"},
        "inference": {"requests_per_second": 20, "input_tokens": 1024, "output_tokens": 256,
                      "latency_p99_ms": 15000},
        "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["l4"]}}


def _plan(spec: dict):
    fleet, _ = plan_fleet([WorkloadSpec.model_validate(spec)], load_catalog(), Environment(name="dev"), None,
                          fleet_name=None)
    return fleet.workloads[0].plan


@pytest.fixture(scope="module")
def served():
    return _plan(SPEC)


def test_the_route_follows_the_plans_serving_pools_in_route_order(served):
    route = served.route
    assert builds_route(served) and route is not None
    assert [pool.pool for pool in route.pools] == [pool.node_pools[0] for pool in served.serving.pools]
    assert route.pools[0].server == server_name("chat", served.serving.pools[0]) == "chat-vllm-gpu"
    assert route.scaling[0].min_replicas == max(1, served.serving.pools[0].replicas_min)
    assert all(item.min_replicas == 0 for item in route.scaling[1:])
    assert route.gateway_class == "gke-l7-rilb" and not route.public
    assert any(reason.startswith("Route: one internal") for reason in served.reasons)


def test_a_public_endpoint_needs_the_spec_field():
    public = _plan({**SPEC, "inference": {**SPEC["inference"], "public_endpoint": True}}).route
    assert public.public and public.gateway_class == "gke-l7-regional-external-managed"


def test_public_endpoint_without_a_model_server_is_refused():
    spec = {**SPEC, "model": {k: v for k, v in SPEC["model"].items() if k != "weights"},
            "inference": {**SPEC["inference"], "public_endpoint": True}}
    with pytest.raises(ValueError, match="public_endpoint: only used when the stack builds the model server"):
        WorkloadSpec.model_validate(spec)


def test_without_weights_there_is_no_route_and_no_route_cost():
    plan = _plan({**SPEC, "model": {k: v for k, v in SPEC["model"].items() if k != "weights"}})
    assert plan.route is None and not builds_route(plan)
    assert not {"gateway", "metrics"} & {line.item for line in plan.estimate.breakdown}
    assert "route" not in plan.to_json_dict()


def test_the_gateway_and_metrics_lines_are_the_shared_formulas(served):
    spec = WorkloadSpec.model_validate(SPEC)
    lines = {line.item: line for line in served.estimate.breakdown}
    catalog = load_catalog()
    rate = {service: catalog.service_price("gcp", service, served.region).usd
            for service in ("serving-lb-hour", "serving-lb-data", "managed-prometheus-samples")}
    gb = route_gb_per_month(20, 1280, 4, 24)
    assert gb == pytest.approx(route_gb(spec)) == pytest.approx(20 * 1280 * 4 * 3600 * 24 * 730 / 24 / 1e9)
    assert lines["gateway"].monthly_usd == round(gateway_part(rate["serving-lb-hour"], gb,
                                                              rate["serving-lb-data"], None).monthly_usd, 2)
    planned = served.route.scaling[0]
    metrics = metrics_part(3, planned.min_replicas, planned.max_replicas, 15, rate["managed-prometheus-samples"],
                           None)
    assert (lines["metrics"].monthly_usd, lines["metrics"].full_scale_monthly_usd) == \
        (round(metrics.monthly_usd, 2), round(metrics.full_scale_monthly_usd, 2))
    assert samples_per_month(3, 1, 15) == 3 * 730 * 3600 / 15
    assert route_lines(served.route, spec, catalog, served.region) == (lines["gateway"], lines["metrics"])


def test_eks_has_no_per_sample_metrics_line():
    spec = {**SPEC, "model": {**SPEC["model"], "weights": "s3://acme-models/llama-3.1-8b"},
            "placement": {"clouds": ["aws"], "regions": ["us-east-1"], "accelerators": ["l4"]}}
    plan = _plan(spec)
    items = {line.item for line in plan.estimate.breakdown}
    assert "gateway" in items and "metrics" not in items
    assert plan.route.gateway_class == "nginx"
