"""Serving rules (issue 26): each with a passing and a failing case, called directly, and in the known-bad stack
the whole pack is driven over (tests/policies/bad_stack.py)."""

from __future__ import annotations

from policy_resources import config, edit, resource_args, urn, violations

from policies.accelfit_policies import serving
from policies.runner import run_policies

GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
DIGEST = "vllm/vllm-openai@sha256:" + "0" * 64


def gateway(cls: str = "gke-l7-rilb", annotations: dict | None = None) -> dict:
    spec = {"gatewayClassName": cls, "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}
    if annotations is not None:
        spec["infrastructure"] = {"annotations": annotations}
    name = "chat-serve-k8s-chat-serve-route-gateway"
    return {"type": GATEWAY, "name": name, "urn": urn(name, GATEWAY), "protect": False, "parent": None,
            "props": {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
                      "metadata": {"name": "inference-gateway", "namespace": "chat-serve"}, "spec": spec}}


def server(image: str = DIGEST, name_label: str = "vllm") -> dict:
    name = "chat-serve-server-gpu"
    template = {"metadata": {"labels": {"app.kubernetes.io/name": name_label, "accelfit.io/serving-pool": "gpu"}},
                "spec": {"containers": [{"name": "vllm", "image": image}]}}
    return {"type": DEPLOYMENT, "name": name, "urn": urn(name, DEPLOYMENT), "protect": False, "parent": None,
            "props": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "chat-serve-gpu"},
                      "spec": {"template": template}}}


def test_an_internal_gateway_passes_on_gke_and_eks():
    assert violations(serving.private_endpoint_policy(), resource_args(gateway())) == []
    internal = {"service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
                "service.beta.kubernetes.io/aws-load-balancer-internal": "true"}
    assert violations(serving.private_endpoint_policy(), resource_args(gateway("nginx", internal))) == []


def test_a_public_gateway_is_caught_on_gke_and_eks():
    [gke] = violations(serving.private_endpoint_policy(),
                       resource_args(gateway("gke-l7-regional-external-managed")))
    assert "gke-l7-regional-external-managed" in gke and "inference.public_endpoint" in gke
    [eks] = violations(serving.private_endpoint_policy(), resource_args(gateway(
        "nginx", {"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"})))
    assert "aws-load-balancer-internal" in eks and "chat-serve-k8s-chat-serve-route-gateway" in eks
    [bare] = violations(serving.private_endpoint_policy(), resource_args(gateway("nginx")))
    assert "annotations: none" in bare


def test_a_public_endpoint_is_advisory_in_prod_and_an_unpinned_server_image_is_mandatory():
    found = run_policies([gateway("gke-l7-regional-external-managed"), server("vllm/vllm-openai:v0.13.0")],
                         config("prod"))
    levels = {v.policy: v.level for v in found if v.policy in ("private-serving-endpoint",
                                                                "serving-images-pinned-by-digest")}
    assert levels == {"private-serving-endpoint": "advisory", "serving-images-pinned-by-digest": "mandatory"}


def test_server_images_pinned_by_digest_pass():
    assert violations(serving.images_pinned_policy(), resource_args(server())) == []


def test_a_server_image_by_tag_is_caught_and_other_deployments_are_not_judged():
    [message] = violations(serving.images_pinned_policy(), resource_args(server("vllm/vllm-openai:v0.13.0")))
    assert "vllm=vllm/vllm-openai:v0.13.0" in message and "@sha256:" in message
    assert violations(serving.images_pinned_policy(), resource_args(
        server("registry.k8s.io/gateway-api-inference-extension/epp:v1.3.1", name_label="chat-epp"))) == []
    sidecar = edit(server(), lambda p: p["spec"]["template"]["spec"]["containers"].append(
        {"name": "puller", "image": "busybox:latest"}))
    [sidecar_message] = violations(serving.images_pinned_policy(), resource_args(sidecar))
    assert "puller=busybox:latest" in sidecar_message
