"""ServingRouting: one endpoint per workload across its serving pools, through the Gateway API Inference Extension
(GAIE): the endpoint picker (EPP), an InferencePool over every server pod of the workload, an HTTPRoute to it and
the Gateway that gets the load balancer. The route order and why it holds: accelfit.planner.serving.traffic.

Every object is what the GAIE inferencepool chart renders at the pinned release, with the chart's default values
(kubernetes-sigs/gateway-api-inference-extension v1.3.1 @fea5e3db, config/charts/inferencepool/templates:
epp-deployment.yaml, epp-service.yaml, epp-config.yaml, rbac.yaml, inferencepool.yaml, httproute.yaml, and on GKE
gke.yaml's HealthCheckPolicy and GCPBackendPolicy), named as
the chart names them for a release called after the workload (`<workload>` pool, `<workload>-epp` picker); the
Gateway is the one the GAIE guide deploys per implementation (config/manifests/gateway/<implementation>/gateway.yaml),
with the class and load-balancer annotations of accelfit.planner.serving.traffic; on EKS the route's timeout is an
NGINX Gateway Fabric ProxySettingsPolicy (NGF does not apply HTTPRoute timeouts). tests/components/kubernetes/
test_serving_routing.py compares them with those templates field by field, each deviation recorded with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelfit.clouds import cloud_named
from accelfit.engines import engine
from accelfit.planner.serving.traffic import ServingRoute, serving_traffic_facts
from accelfit.pricing.serving_objects import ROUTE_LABEL
from components.common import child_name

INFERENCE_GROUP = "inference.networking.k8s.io"
GATEWAY_GROUP = "gateway.networking.k8s.io"
# The model server pods (components/kubernetes/serving, the server's side of issue 26) carry the engine's name as
# app.kubernetes.io/name and the workload label, and serve the OpenAI API on the engine's port (accelfit.engines).
SERVER_NAME_KEY = "app.kubernetes.io/name"
WORKLOAD_LABEL = "accelfit.io/workload"
GKE_POLICY_GROUP = "networking.gke.io"
EXT_PROC_PORT = 9002  # values.yaml inferenceExtension.extProcPort
HEALTH_PORT = 9003
METRICS_PORT = 9090
GATEWAY_NAME = "inference-gateway"  # config/manifests/gateway/*/gateway.yaml metadata.name
# epp-config.yaml with the latency predictor off (the chart's default): the scorers and weights it configures.
PLUGINS_FILE = "default-plugins.yaml"
PLUGINS_CONFIG = """apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: queue-scorer
- type: kv-cache-utilization-scorer
- type: prefix-cache-scorer
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: queue-scorer
    weight: 2
  - pluginRef: kv-cache-utilization-scorer
    weight: 2
  - pluginRef: prefix-cache-scorer
    weight: 3
"""


def epp_image() -> str:
    """values.yaml inferenceExtension.image: hub/name:tag, the tag being the release."""
    return f"registry.k8s.io/gateway-api-inference-extension/epp:{serving_traffic_facts().endpoint_picker.release}"


def pool_name(route: ServingRoute) -> str:
    return route.workload


def epp_name(route: ServingRoute) -> str:
    """_helpers.tpl gateway-api-inference-extension.name: the release name, lowercased, at most 40, plus -epp."""
    return f"{route.workload.lower().strip()[:40]}-epp"


def server_selector(route: ServingRoute) -> dict[str, str]:
    """Every server pod of the workload, whichever pool it runs in: the picker chooses among them."""
    return {SERVER_NAME_KEY: route.server, WORKLOAD_LABEL: route.workload}


def epp_args(route: ServingRoute) -> list[str]:
    """epp-deployment.yaml's args with the chart defaults: v1 pool group, flags.v 1, tracing off, metrics auth on;
    then the engine's metric flags (none for vLLM, the picker's default), as the chart's inferenceExtension.flags
    would add them."""
    return ["--pool-name", pool_name(route), "--pool-namespace", route.namespace, "--pool-group", INFERENCE_GROUP,
            "--zap-encoder", "json", "--config-file", f"/config/{PLUGINS_FILE}", "--v", "1", "--tracing=false",
            *engine(route.server).epp_flags]


def epp_deployment_spec(route: ServingRoute) -> dict[str, Any]:
    name = epp_name(route)
    probe = {"grpc": {"port": HEALTH_PORT, "service": "inference-extension"}}  # one replica: the plain service
    return {
        "replicas": 1,
        # The chart: one active replica keeps the prefix-cache scorer's state; Recreate lets a new one take over.
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {"inferencepool": name}},
        "template": {
            "metadata": {"labels": {"inferencepool": name}},
            "spec": {
                "serviceAccountName": name,
                "terminationGracePeriodSeconds": 130,
                "containers": [{
                    "name": "epp", "image": epp_image(), "imagePullPolicy": "Always", "args": epp_args(route),
                    "ports": [{"name": "grpc", "containerPort": EXT_PROC_PORT},
                              {"name": "grpc-health", "containerPort": HEALTH_PORT},
                              {"name": "metrics", "containerPort": METRICS_PORT}],
                    "livenessProbe": {**probe, "initialDelaySeconds": 5, "periodSeconds": 10},
                    "readinessProbe": {**probe, "periodSeconds": 2},
                    "env": [{"name": "NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                    "volumeMounts": [{"name": "plugins-config-volume", "mountPath": "/config"}],
                }],
                "volumes": [{"name": "plugins-config-volume", "configMap": {"name": name}}],
            },
        },
    }


def epp_role_rules() -> list[dict[str, Any]]:
    """rbac.yaml's Role: what the picker reads (its objectives and rewrites, the pool, the pods it picks from)."""
    return [{"apiGroups": ["inference.networking.x-k8s.io"], "resources": ["inferenceobjectives",
                                                                          "inferencemodelrewrites"],
             "verbs": ["get", "watch", "list"]},
            {"apiGroups": [INFERENCE_GROUP], "resources": ["inferencepools"], "verbs": ["get", "watch", "list"]},
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "watch", "list"]}]


def inference_pool_spec(route: ServingRoute) -> dict[str, Any]:
    return {"targetPorts": [{"number": engine(route.server).port}],
            "selector": {"matchLabels": server_selector(route)},
            "endpointPickerRef": {"name": epp_name(route), "port": {"number": EXT_PROC_PORT}}}


def http_route_spec(route: ServingRoute) -> dict[str, Any]:
    """The chart's HTTPRoute. On EKS without `timeouts`: NGINX Gateway Fabric accepts the field but does not apply it
    (v2.6.7 internal/controller/state/graph/httproute.go checkForUnsupportedHTTPFields: rule.Timeouts is Forbidden,
    a warning, and nginx keeps its 60 s proxy_read_timeout); the route's ProxySettingsPolicy sets the timeout there."""
    rule: dict[str, Any] = {
        "backendRefs": [{"group": INFERENCE_GROUP, "kind": "InferencePool", "name": pool_name(route)}],
        "matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}
    if not nginx_gateway(route):
        rule["timeouts"] = {"request": serving_traffic_facts().gateway.request_timeout}
    return {"parentRefs": [{"group": GATEWAY_GROUP, "kind": "Gateway", "name": GATEWAY_NAME}], "rules": [rule]}


# EKS: NGINX Gateway Fabric's ProxySettingsPolicy (gateway.nginx.org/v1alpha1, in the deploy/crds.yaml the stack
# applies; timeouts since NGF 2.6.0, CHANGELOG "Extend ProxySettingsPolicy to support proxy timeouts", PR 5165)
# attached to the HTTPRoute: its timeout.read becomes proxy_read_timeout in every location of the route, the
# internal ones that proxy_pass to the picked vLLM endpoint included (internal/controller/nginx/config/servers.go
# GenerateForInternalLocation, policies/proxysettings/generator.go at v2.6.7 @5e34a17a).
NGF_POLICY_GROUP = "gateway.nginx.org"


def proxy_settings_policy_spec(route: ServingRoute) -> dict[str, Any]:
    return {"targetRefs": [{"group": GATEWAY_GROUP, "kind": "HTTPRoute", "name": pool_name(route)}],
            "timeout": {"read": serving_traffic_facts().gateway.request_timeout}}


# GKE: what the chart renders with provider.name gke (templates/gke.yaml at v1.3.1). Without a HealthCheckPolicy
# GKE's load balancer health-checks the pool's endpoints with its default request path "/" (the HealthCheckPolicy
# API: "If not specified or left empty, a default value of "/" is used", GoogleCloudPlatform/gke-gateway-api
# apis/networking/v1/healthcheck_types.go @fc40d606), which vLLM does not serve (404): every endpoint is unhealthy
# and the route answers 503. vLLM serves /health on its OpenAI port (vllm/entrypoints/openai/api_server.py at
# v0.11.0). One deviation: the chart sets `port` alone, which the HealthCheckPolicy CRD GKE serves refuses since
# gke-gateway-api 983ac3d6 ("port and portName must be unset for portSpecification being USE_SERVING_PORT (which is
# the default)"); `portSpecification: USE_FIXED_PORT` says what the chart means (the port given), as the chart's own
# gRPC health check does at v1.5.0.
HEALTH_CHECK_SECONDS = 2  # the chart's timeoutSec and checkIntervalSec: fast switch-over during an EPP rollout
BACKEND_TIMEOUT_SECONDS = 300  # the chart's GCPBackendPolicy timeoutSec, the same 300 s as its HTTPRoute


def health_check_policy_spec(route: ServingRoute) -> dict[str, Any]:
    server = engine(route.server)
    return {"targetRef": {"group": INFERENCE_GROUP, "kind": "InferencePool", "name": pool_name(route)},
            "default": {"timeoutSec": HEALTH_CHECK_SECONDS, "checkIntervalSec": HEALTH_CHECK_SECONDS,
                        "config": {"type": "HTTP", "httpHealthCheck": {
                            "requestPath": server.health_path, "portSpecification": "USE_FIXED_PORT",
                            "port": server.port}}}}


def backend_policy_spec(route: ServingRoute) -> dict[str, Any]:
    """The chart's GCPBackendPolicy less its `logging: {enabled: true}`: every request logged is Cloud Logging
    ingestion (cloud.google.com/stackdriver/pricing) that the plan does not price, so the load balancer keeps GKE's
    default (no request logs) and what the stack builds stays what the preview prices."""
    return {"targetRef": {"group": INFERENCE_GROUP, "kind": "InferencePool", "name": pool_name(route)},
            "default": {"timeoutSec": BACKEND_TIMEOUT_SECONDS}}


def nginx_gateway(route: ServingRoute) -> bool:
    """The stack installs NGINX Gateway Fabric in front of the InferencePool (EKS), rather than using the cluster's
    own Gateway implementation (GKE's gateway controller)."""
    return cloud_named(route.cloud).serving_gateway == "nginx-gateway-fabric"


def gke_gateway(route: ServingRoute) -> bool:
    return cloud_named(route.cloud).serving_gateway == "gke-gateway"


def gateway_spec(route: ServingRoute) -> dict[str, Any]:
    spec: dict[str, Any] = {"gatewayClassName": route.gateway_class,
                            "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}
    if nginx_gateway(route):
        facts = serving_traffic_facts().gateway
        spec["infrastructure"] = {"annotations": dict(facts.aws_public_annotations if route.public
                                                      else facts.aws_internal_annotations)}
    return spec


@dataclass(frozen=True)
class ServingRoutingArgs:
    route: ServingRoute
    provider: k8s.Provider
    labels: Mapping[str, str] = field(default_factory=dict)
    dependencies: Sequence[pulumi.Resource] = field(
        default=(), metadata={"doc": "What must exist first: the CRDs, the gateway controller, the namespace."})


class ServingRouting(pulumi.ComponentResource):
    gateway: k8s.apiextensions.CustomResource
    inference_pool: k8s.apiextensions.CustomResource
    http_route: k8s.apiextensions.CustomResource
    policies: list[k8s.apiextensions.CustomResource]

    def __init__(self, name: str, args: ServingRoutingArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:ServingRouting", name, None, opts)
        route = args.route
        ns = route.namespace
        epp = epp_name(route)
        on_cluster = pulumi.ResourceOptions(parent=self, provider=args.provider,
                                            depends_on=list(args.dependencies))

        def meta(object_name: str, extra: Mapping[str, str] | None = None) -> dict[str, Any]:
            return {"name": object_name, "namespace": ns, "labels": {**args.labels, **(extra or {})}}

        epp_labels = {"app.kubernetes.io/name": epp}
        account = k8s.core.v1.ServiceAccount(child_name(name, "epp-sa"), metadata=meta(epp, epp_labels),
                                             opts=on_cluster)
        role = k8s.rbac.v1.Role(child_name(name, "epp-role"), metadata=meta(epp, epp_labels), rules=epp_role_rules(),
                                opts=on_cluster)
        binding = k8s.rbac.v1.RoleBinding(
            child_name(name, "epp-role-binding"), metadata=meta(epp),
            subjects=[{"kind": "ServiceAccount", "name": epp, "namespace": ns}],
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": epp}, opts=on_cluster)
        config = k8s.core.v1.ConfigMap(child_name(name, "epp-config"), metadata=meta(epp),
                                       data={PLUGINS_FILE: PLUGINS_CONFIG}, opts=on_cluster)
        after_rbac = pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(
            depends_on=[account, role, binding, config]))
        deployment = k8s.apps.v1.Deployment(child_name(name, "epp"), metadata=meta(epp, epp_labels),
                                            spec=epp_deployment_spec(route), opts=after_rbac)
        service = k8s.core.v1.Service(
            child_name(name, "epp-service"), metadata=meta(epp, epp_labels),
            spec={"selector": {"inferencepool": epp}, "type": "ClusterIP",
                  "ports": [{"name": "grpc-ext-proc", "protocol": "TCP", "port": EXT_PROC_PORT},
                            {"name": "http-metrics", "protocol": "TCP", "port": METRICS_PORT}]},
            opts=on_cluster)
        self.inference_pool = k8s.apiextensions.CustomResource(
            child_name(name, "inference-pool"), api_version=f"{INFERENCE_GROUP}/v1", kind="InferencePool",
            metadata=meta(pool_name(route), {"app.kubernetes.io/name": epp}), spec=inference_pool_spec(route),
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[deployment, service])))
        # The route label lets the preview price the Gateway's load balancer (accelfit.pricing.serving_objects).
        self.gateway = k8s.apiextensions.CustomResource(
            child_name(name, "gateway"), api_version=f"{GATEWAY_GROUP}/v1", kind="Gateway",
            metadata=meta(GATEWAY_NAME, {ROUTE_LABEL: route.workload}), spec=gateway_spec(route), opts=on_cluster)
        self.policies = self._gke_policies(name, route, meta(pool_name(route), epp_labels), on_cluster) \
            if gke_gateway(route) else []
        self.http_route = k8s.apiextensions.CustomResource(
            child_name(name, "http-route"), api_version=f"{GATEWAY_GROUP}/v1", kind="HTTPRoute",
            metadata=meta(pool_name(route)), spec=http_route_spec(route),
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(
                depends_on=[self.gateway, self.inference_pool, *self.policies])))
        if nginx_gateway(route):
            self.policies.append(k8s.apiextensions.CustomResource(
                child_name(name, "proxy-settings"), api_version=f"{NGF_POLICY_GROUP}/v1alpha1",
                kind="ProxySettingsPolicy", metadata=meta(pool_name(route)), spec=proxy_settings_policy_spec(route),
                opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[self.http_route]))))
        self.register_outputs({"gateway_class": route.gateway_class, "public": route.public,
                               "route_order": [pool.pool for pool in route.pools]})

    def _gke_policies(self, name: str, route: ServingRoute, metadata: dict[str, Any],
                      on_cluster: pulumi.ResourceOptions) -> list[k8s.apiextensions.CustomResource]:
        """The pool's HealthCheckPolicy and GCPBackendPolicy, after the InferencePool they attach to."""
        after_pool = pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[self.inference_pool]))
        return [k8s.apiextensions.CustomResource(
                    child_name(name, "health-check-policy"), api_version=f"{GKE_POLICY_GROUP}/v1",
                    kind="HealthCheckPolicy", metadata=metadata, spec=health_check_policy_spec(route), opts=after_pool),
                k8s.apiextensions.CustomResource(
                    child_name(name, "backend-policy"), api_version=f"{GKE_POLICY_GROUP}/v1", kind="GCPBackendPolicy",
                    metadata=metadata, spec=backend_policy_spec(route), opts=after_pool)]
