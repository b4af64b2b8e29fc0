"""The serving route and autoscaler under mocks: the objects conform to the upstream GAIE chart field by field,
validate against their pinned CRDs, and send traffic to the planned pool first and to a fallback pool only when the
pools before it are saturated or unavailable (shown by evaluating the rendered KEDA triggers)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pulumi_kubernetes as k8s
import pytest
import yaml

from accelfit.planner.serving.traffic import RoutePool, serving_route
from accelfit.preview.recorder import record
from components.kubernetes.serving.autoscaling import ServingAutoscaling, ServingAutoscalingArgs
from components.kubernetes.serving.routing import ServingRouting, ServingRoutingArgs
from components.kubernetes.serving.traffic_addons import ServingTrafficAddons, ServingTrafficAddonsArgs

ROOT = Path(__file__).parents[3]
sys.path.insert(0, str(ROOT / "tests" / "checks"))
from k8s_schemas import document_report  # noqa: E402

CHART = yaml.safe_load((Path(__file__).parent / "data" / "gaie_inferencepool_chart_v1.3.1.yaml").read_text())
POOLS = [RoutePool(pool="gpu", accelerator="l4", replicas_min=2, replicas_max=4, server="chat-gpu"),
         RoutePool(pool="gpu-fallback-1", accelerator="a100-80gb", replicas_min=0, replicas_max=3,
                   server="chat-gpu-fallback-1")]


def _render(cloud: str, public: bool = False) -> Any:
    route = serving_route("chat", "chat", cloud, POOLS, public=public)

    def program() -> None:
        provider = k8s.Provider("k8s", kubeconfig="{}")
        addons = ServingTrafficAddons("chat-addons", ServingTrafficAddonsArgs(cloud=cloud, provider=provider))
        ServingRouting("chat-route", ServingRoutingArgs(route=route, provider=provider,
                                                        dependencies=addons.applied))
        ServingAutoscaling("chat-scaling", ServingAutoscalingArgs(
            route=route, provider=provider, project="proj-1" if cloud == "gcp" else None,
            dependencies=addons.applied))

    return record(program)


@pytest.fixture(scope="module")
def gke():
    return _render("gcp")


@pytest.fixture(scope="module")
def eks():
    return _render("aws")


def _object(recording: Any, kind: str, name: str) -> dict[str, Any]:
    found = [r.inputs for r in recording.resources
             if r.inputs.get("kind") == kind and (r.inputs.get("metadata") or {}).get("name") == name]
    assert len(found) == 1, (kind, name, len(found))
    return found[0]


def _contains(actual: Any, expected: Any, where: str = "") -> list[str]:
    """Every field upstream sets, with upstream's value (accelfit may add labels, nothing else)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: {actual!r} is not a map"]
        return [problem for key, value in expected.items()
                for problem in _contains(actual.get(key), value, f"{where}.{key}")]
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: {actual!r} != {expected!r}"]
        return [problem for index, (a, e) in enumerate(zip(actual, expected, strict=False))
                for problem in _contains(a, e, f"{where}[{index}]")]
    return [] if actual == expected else [f"{where}: {actual!r} != upstream {expected!r}"]


@pytest.mark.parametrize("cloud", ["gcp", "aws"])
def test_route_objects_match_the_upstream_chart_field_by_field(cloud, gke, eks):
    """The chart's objects (with provider.name gke on GKE: its HealthCheckPolicy and GCPBackendPolicy too), less the
    recorded deviations (CHART["deviations"]: a field set to null there is one accelfit leaves out)."""
    recording = gke if cloud == "gcp" else eks
    expected_objects = {**CHART["objects"], **(CHART["gke_objects"] if cloud == "gcp" else {})}
    problems = []
    for key, expected in expected_objects.items():
        kind, name = key.split("/")
        actual = _object(recording, kind, name)
        assert actual["metadata"]["namespace"] == "chat"
        if kind == "ConfigMap":  # the plugins file is YAML text: compare what it says
            actual = {"data": {file: yaml.safe_load(text) for file, text in actual["data"].items()}}
        for path, value in CHART["deviations"][cloud].get(key, {}).items():
            expected = _with(expected, path, value)
            assert _at(actual, path) == value, (key, path)
        problems += _contains(actual, expected, key)
    assert problems == []
    if cloud == "aws":  # no GKE policy objects off GKE
        assert not {"HealthCheckPolicy", "GCPBackendPolicy"} & {r.inputs.get("kind") for r in recording.resources}


def _at(document: Any, path: str) -> Any:
    node = document
    for part in path.replace("]", "").split("."):
        name, _, index = part.partition("[")
        node = (node or {}).get(name)
        if index and node is not None:
            node = node[int(index)]
    return node


def _with(document: Any, path: str, value: Any) -> Any:
    """A copy of `document` with `path` set to `value` (None: removed)."""
    import copy

    out = copy.deepcopy(document)
    parts = path.replace("]", "").split(".")
    node = out
    for part in parts[:-1]:
        name, _, index = part.partition("[")
        node = node.setdefault(name, {})
        if index:
            node = node[int(index)]
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
    return out


def test_gateway_is_the_upstream_gateway_with_the_internal_class_and_annotations(gke, eks):
    gke_gateway = _object(gke, "Gateway", "inference-gateway")
    upstream = CHART["gateways"]["gke"]["spec"]
    assert gke_gateway["spec"]["listeners"] == upstream["listeners"]
    assert gke_gateway["spec"]["gatewayClassName"] == "gke-l7-rilb"  # internal; upstream shows the external class
    eks_gateway = _object(eks, "Gateway", "inference-gateway")
    assert _contains(eks_gateway["spec"], CHART["gateways"]["nginxgatewayfabric"]["spec"]) == []
    assert eks_gateway["spec"]["infrastructure"]["annotations"] == {
        "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
        "service.beta.kubernetes.io/aws-load-balancer-internal": "true"}
    # The Gateway CRD's rule cel-python cannot evaluate (it lacks split()): each key's prefix under 253 characters.
    assert all(len(key.split("/")[0]) < 253 for key in eks_gateway["spec"]["infrastructure"]["annotations"])


def test_a_public_endpoint_is_asked_for_explicitly_and_gets_the_external_load_balancer():
    gke_public = _object(_render("gcp", public=True), "Gateway", "inference-gateway")
    assert gke_public["spec"]["gatewayClassName"] == "gke-l7-regional-external-managed"
    eks_public = _object(_render("aws", public=True), "Gateway", "inference-gateway")
    assert "service.beta.kubernetes.io/aws-load-balancer-internal" not in eks_public["spec"]["infrastructure"][
        "annotations"]


@pytest.mark.parametrize("cloud", ["gcp", "aws"])
def test_every_object_validates_against_its_schema_or_pinned_crd(cloud, gke, eks):
    recording = gke if cloud == "gcp" else eks
    rows = [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in recording.resources]
    report = document_report(rows, ["1.33", "1.35"])
    assert report.problems == [], "\n".join(report.problems)
    kinds = {r.inputs.get("kind") for r in recording.resources}
    assert {"InferencePool", "HTTPRoute", "Gateway", "ScaledObject"} <= kinds
    assert report.validated >= 11


# --- the route order, shown from the rendered objects ---

def _pods(pool: str) -> dict[str, str]:
    """The labels the server pods of a pool carry (the server side of issue 26)."""
    return {"app.kubernetes.io/name": "vllm", "accelfit.io/workload": "chat", "accelfit.io/serving-pool": pool}


def _evaluate(query: str, waiting: dict[str, float], unavailable: dict[str, float]) -> float:
    """The rendered PromQL, evaluated over given per-pool series: sums of the selected pools' series, arithmetic,
    clamp_min. Enough for the queries the scaler renders, and strict: anything else fails."""
    def pools_of(selector: str, label: str) -> list[str]:
        return re.search(label + r'=~"([^"]+)"', selector).group(1).split("|")

    def summed(match: re.Match) -> str:
        metric, selector = match.group(1), match.group(2)
        if metric == "vllm:num_requests_waiting":
            return repr(sum(waiting[p] for p in pools_of(selector, "accelfit_io_serving_pool")))
        if metric == "vllm:num_requests_running":
            return repr(sum(waiting.get(f"{p}:running", 0.0) for p in pools_of(selector, "accelfit_io_serving_pool")))
        servers = pools_of(selector, "deployment")
        if metric == "kube_deployment_spec_replicas":
            return repr(float(sum(unavailable[s][0] for s in servers)))
        return repr(float(sum(unavailable[s][1] for s in servers)))

    expression = re.sub(r"sum\(([a-z_:]+)\{([^}]*)\}\)", summed, query)
    assert re.fullmatch(r"[0-9.+\-*/ (),a-z_]*", expression), expression
    return float(eval(expression, {"__builtins__": {}}, {"clamp_min": max}))  # noqa: S307 - digits and clamp_min


def _replicas(scaled: dict[str, Any], waiting: dict[str, float], servers: dict[str, tuple[int, int]]) -> int:
    """KEDA: 0 while every trigger reads 0 and the minimum is 0; else the largest ceil(value / threshold) within
    the bounds (keda.sh/docs/2.18/concepts/scaling-deployments)."""
    spec = scaled["spec"]
    values = [(_evaluate(t["metadata"]["query"], waiting, servers), float(t["metadata"]["threshold"]))
              for t in spec["triggers"]]
    if all(value <= 0 for value, _ in values) and spec["minReplicaCount"] == 0:
        return 0
    desired = max(-(-value // threshold) for value, threshold in values)
    return int(min(max(desired, max(spec["minReplicaCount"], 1)), spec["maxReplicaCount"]))


def test_one_inference_pool_selects_the_servers_of_every_pool_in_route_order(gke):
    selector = _object(gke, "InferencePool", "chat")["spec"]["selector"]["matchLabels"]
    for pool in ("gpu", "gpu-fallback-1"):
        assert selector.items() <= _pods(pool).items()


def test_the_fallback_pool_runs_only_when_the_planned_pool_is_saturated_at_full_size_or_unavailable(gke, eks):
    for recording in (gke, eks):
        planned = _object(recording, "ScaledObject", "chat-gpu")
        fallback = _object(recording, "ScaledObject", "chat-gpu-fallback-1")
        healthy = {"chat-gpu": (4, 4)}
        assert (planned["spec"]["minReplicaCount"], planned["spec"]["maxReplicaCount"]) == (2, 4)
        assert fallback["spec"]["minReplicaCount"] == 0
        # A busy but not saturated planned pool grows; the fallback stays at zero servers, so the picker has no
        # fallback endpoint to send to.
        assert _replicas(planned, {"gpu": 12, "gpu-fallback-1": 0}, healthy) == 3
        assert _replicas(fallback, {"gpu": 12, "gpu-fallback-1": 0}, healthy) == 0
        # At its 4 servers the planned pool holds 4 x 5 waiting requests before the picker sees every server
        # saturated; beyond that the fallback gets one server per 5 requests of overflow.
        assert _replicas(fallback, {"gpu": 20, "gpu-fallback-1": 0}, healthy) == 0
        assert _replicas(fallback, {"gpu": 31, "gpu-fallback-1": 0}, healthy) == 3
        # Unavailable: 3 of the planned pool's 4 servers cannot start (no capacity): the fallback replaces them.
        assert _replicas(fallback, {"gpu": 0, "gpu-fallback-1": 0}, {"chat-gpu": (4, 1)}) == 3
        assert _replicas(planned, {"gpu": 0, "gpu-fallback-1": 0}, healthy) == 2  # never below its minimum


def test_gke_scales_on_managed_prometheus_with_the_keda_operator_identity(gke):
    scaled = _object(gke, "ScaledObject", "chat-gpu")
    trigger = scaled["spec"]["triggers"][0]
    assert trigger["metadata"]["serverAddress"] == \
        "https://monitoring.googleapis.com/v1/projects/proj-1/location/global/prometheus"
    assert trigger["authenticationRef"] == {"name": "managed-prometheus"}
    assert _object(gke, "TriggerAuthentication", "managed-prometheus")["spec"] == {"podIdentity": {"provider": "gcp"}}
    monitoring = _object(gke, "PodMonitoring", "chat-vllm")["spec"]
    assert monitoring["targetLabels"]["fromPod"] == [{"from": "accelfit.io/serving-pool",
                                                      "to": "accelfit_io_serving_pool"}]
    assert monitoring["endpoints"][0]["metricRelabeling"][0]["regex"] == \
        "vllm:num_requests_waiting|vllm:num_requests_running|vllm:kv_cache_usage_perc"


def test_eks_scales_on_the_in_cluster_prometheus_and_installs_the_gateway_controller(eks):
    scaled = _object(eks, "ScaledObject", "chat-gpu")
    assert scaled["spec"]["triggers"][0]["metadata"]["serverAddress"] == \
        "http://kube-prometheus-stack-prometheus.monitoring.svc:9090"
    assert "authenticationRef" not in scaled["spec"]["triggers"][0]
    files = [r.inputs["file"] for r in eks.of_type("kubernetes:yaml/v2:ConfigFile")]
    assert files[0].endswith("gateway-api/releases/download/v1.4.1/standard-install.yaml")
    assert any("nginx-gateway-fabric/v2.6.7/deploy/inference/deploy.yaml" in f for f in files)
    assert _object(eks, "ServiceMonitor", "chat-vllm")["spec"]["podTargetLabels"] == ["accelfit.io/serving-pool"]


def test_gcp_autoscaling_without_a_project_is_refused():
    route = serving_route("chat", "chat", "gcp", POOLS)

    def program() -> None:
        ServingAutoscaling("s", ServingAutoscalingArgs(route=route, provider=k8s.Provider("k8s", kubeconfig="{}")))

    with pytest.raises(Exception, match="project is required"):
        record(program)


def test_the_ordering_rules_name_the_manifests_the_route_applies():
    from accelfit.ordering.check import ordering_rules
    from accelfit.planner.serving.traffic import serving_traffic_facts

    rule = next(rule for rule in ordering_rules() if rule.id == "crds-before-custom-resources")
    urls = serving_traffic_facts().manifests
    assert rule.params["groups"]["keda.sh"]["manifest"] == urls["keda"]
    assert rule.params["groups"]["inference.networking.k8s.io"]["manifest"] == urls["inference_crds"]
    assert rule.params["groups"]["gateway.networking.k8s.io"]["manifest"] == urls["gateway_api_crds"]


def test_a_pool_serving_part_of_the_day_scales_to_zero_outside_its_window():
    pools = [POOLS[0].model_copy(update={"serving_window": ("14:00", 10.5)}), POOLS[1]]
    route = serving_route("chat", "chat", "aws", pools)
    planned = route.scaling[0]
    assert planned.min_replicas == 0 and planned.window == ("0 14 * * *", "30 0 * * *", 2)
    assert "from 14:00 UTC for 10.5 h a day" in planned.why

    def program() -> None:
        ServingAutoscaling("s", ServingAutoscalingArgs(route=route, provider=k8s.Provider("k8s", kubeconfig="{}")))

    recording = record(program)
    spec = _object(recording, "ScaledObject", "chat-gpu")["spec"]
    assert spec["minReplicaCount"] == 0
    assert spec["triggers"][-1] == {"type": "cron", "name": "serving-hours", "metadata": {
        "timezone": "Etc/UTC", "start": "0 14 * * *", "end": "30 0 * * *", "desiredReplicas": "2"}}
    rows = [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in recording.resources]
    assert document_report(rows, ["1.33"]).problems == []
    # An all-day pool never goes below one server (no queue would wake it).
    assert serving_route("chat", "chat", "aws", POOLS).scaling[0].min_replicas == 2


def test_the_planned_pool_scales_with_the_requests_in_flight_to_its_planned_replicas_at_the_peak():
    """The load trigger as rendered: KEDA's default AverageValue asks for ceil((running + waiting) / in flight per
    server at the planned peak). At the planned peak (10 servers x 16 in flight) the pool runs its 10; at its
    minimum's load it stays at the minimum; the queue trigger alone (the old rule) asked for ceil(waiting / 5)."""
    pool = RoutePool(pool="gpu", accelerator="l4", replicas_min=7, replicas_max=10, server="chat-gpu",
                     in_flight_per_server=16.0)
    route = serving_route("chat", "chat", "aws", [pool])

    def program() -> None:
        provider = k8s.Provider("k8s", kubeconfig="{}")
        ServingAutoscaling("chat-scaling", ServingAutoscalingArgs(route=route, provider=provider))

    scaled = _object(record(program), "ScaledObject", "chat-gpu")
    assert [t["name"] for t in scaled["spec"]["triggers"]] == ["load", "queue"]
    assert scaled["spec"]["triggers"][0]["metadata"]["threshold"] == "16"
    assert "metricType" not in scaled["spec"]["triggers"][0]  # KEDA's default: AverageValue
    none = {}
    assert _replicas(scaled, {"gpu": 4, "gpu:running": 156}, none) == 10  # 160 in flight at the planned peak
    assert _replicas(scaled, {"gpu": 0, "gpu:running": 110}, none) == 7
    assert _replicas(scaled, {"gpu": 60, "gpu:running": 100}, none) == 10  # never above its maximum
