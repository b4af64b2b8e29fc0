"""Serving rules (issue 26): the model-serving endpoint is private unless asked for, and serving images are pinned by
digest.

- private-serving-endpoint: a Gateway's load balancer is internal. GKE: an internal GatewayClass (gke-l7-rilb and
  its multi-cluster / cross-regional internal variants; https://cloud.google.com/kubernetes-engine/docs/concepts/
  gateway-api#gatewayclass); EKS: the Service the gateway controller provisions from spec.infrastructure.annotations
  is an internal NLB (service.beta.kubernetes.io/aws-load-balancer-internal "true" or aws-load-balancer-scheme
  internal). A public endpoint is built only when the spec sets inference.public_endpoint: true; prod runs this rule
  as advisory, so an intended public endpoint shows as a warning instead of blocking.
- serving-images-pinned-by-digest: every container of a model server (a Deployment or LeaderWorkerSet whose pods
  carry app.kubernetes.io/name: an engine name, accelfit.engines) names its image by digest (`@sha256:`), so a
  moved tag can never change what serves (https://kubernetes.io/docs/concepts/containers/images/#image-names).
"""

from __future__ import annotations

import re
from typing import Any

from pulumi_policy import Policy, EnforcementLevel, ResourceValidationPolicy

from .framework import Settings, resource_policy
from .view import ResourceView, get, items

GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
LEADER_WORKER_SET = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
GKE_INTERNAL_CLASSES = ("gke-l7-rilb", "gke-l7-rilb-mc", "gke-l7-cross-regional-internal-managed",
                        "gke-l7-cross-regional-internal-managed-mc")
AWS_INTERNAL = {"service.beta.kubernetes.io/aws-load-balancer-internal": "true",
                "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal"}
SERVER_LABEL_KEY = "app.kubernetes.io/name"


def server_names() -> frozenset[str]:
    """The label values model-server pods carry: every registered engine's name (accelfit.engines)."""
    from accelfit.engines import engines

    return frozenset(engines())
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}\Z")
FIX_PUBLIC = ("Fix: leave inference.public_endpoint unset for an internal load balancer (reachable from the VPC "
              "only); keep it only for an endpoint meant for the internet, and put authentication in front of it.")


# ---- private-serving-endpoint ---------------------------------------------------------------------------------

def check_private_endpoint(view: ResourceView, settings: Settings) -> list[str]:
    if view.type != GATEWAY:
        return []
    cls = str(get(view.props, "spec.gatewayClassName", ""))
    if cls.startswith("gke-"):
        if cls in GKE_INTERNAL_CLASSES:
            return []
        return [f"{view.label} is a public serving endpoint (gatewayClassName {cls}, an external load balancer); "
                f"allowed: an internal class ({', '.join(GKE_INTERNAL_CLASSES[:1])}). {FIX_PUBLIC}"]
    annotations = get(view.props, "spec.infrastructure.annotations") or {}
    if any(str(annotations.get(key, "")).lower() == value for key, value in AWS_INTERNAL.items()):
        return []
    shown = ", ".join(f"{key}={value}" for key, value in sorted(annotations.items())) or "none"
    return [f"{view.label} is a public serving endpoint (its load balancer Service gets annotations: {shown}); "
            "allowed: an internal load balancer (service.beta.kubernetes.io/aws-load-balancer-internal: \"true\"). "
            f"{FIX_PUBLIC}"]


def private_endpoint_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("private-serving-endpoint",
                           "The serving endpoint is an internal load balancer unless the spec asks for a public one.",
                           check_private_endpoint, None, enforcement_level)


# ---- serving-images-pinned-by-digest ------------------------------------------------------------------------

def _pod_spec(view: ResourceView) -> tuple[dict[str, Any], list[Any]] | None:
    """(pod labels, containers) of a model server's pod template(s); None for anything else."""
    if view.type == DEPLOYMENT:
        templates = [get(view.props, "spec.template")]
    elif view.type == LEADER_WORKER_SET:
        templates = [get(view.props, "spec.leaderWorkerTemplate.leaderTemplate"),
                     get(view.props, "spec.leaderWorkerTemplate.workerTemplate")]
    else:
        return None
    templates = [template for template in templates if template]
    labels = get(templates[0], "metadata.labels") or {} if templates else {}
    if labels.get(SERVER_LABEL_KEY) not in server_names():
        return None
    containers = [container for template in templates
                  for container in items(get(template, "spec.initContainers")) + items(get(template, "spec.containers"))]
    return labels, containers


def check_images_pinned(view: ResourceView, settings: Settings) -> list[str]:
    found = _pod_spec(view)
    if found is None:
        return []
    _, containers = found
    loose = [f"{get(container, 'name', '?')}={get(container, 'image', 'unset')}" for container in containers
             if not DIGEST.search(str(get(container, "image", "")))]
    if not loose:
        return []
    return [f"{view.label} serves from images not pinned by digest ({', '.join(loose)}); allowed: "
            "<repository>@sha256:<digest>. Fix: pin each image by its digest (e.g. vllm/vllm-openai@sha256:...), "
            "so the server cannot change under a moved tag."]


def images_pinned_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("serving-images-pinned-by-digest", "Model-server images are pinned by digest.",
                           check_images_pinned, None, enforcement_level)


def policies() -> list[Policy]:
    return [private_endpoint_policy(), images_pinned_policy()]
