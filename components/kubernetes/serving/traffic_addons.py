"""ServingTrafficAddons: what a cluster needs once before any workload's route and autoscaler can exist, applied
from the pinned release manifests (accelfit/planner/data/serving_traffic.yaml `manifests`):

- the InferencePool CRD (GAIE release manifests.yaml), on both clouds;
- EKS: the Gateway API standard CRDs and NGINX Gateway Fabric with the inference extension (its CRDs, then its
  controller); GKE runs its own Gateway controller once the cluster's Gateway API is on (GkeClusterArgs.gateway_api);
- KEDA (its release manifest), on both clouds. On GKE its operator reads Managed Prometheus as itself through
  Workload Identity: `metrics_reader_member` is the IAM member the GCP side grants roles/monitoring.viewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import pulumi
import pulumi_kubernetes as k8s

from accelfit.planner.serving_traffic import serving_traffic_facts
from components.common import child_name

KEDA_NAMESPACE = "keda"
KEDA_OPERATOR = "keda-operator"  # the release manifest's operator ServiceAccount


def metrics_reader_member(project: str) -> str:
    """The KEDA operator's Kubernetes service account as an IAM member (Workload Identity Federation for GKE)."""
    return f"serviceAccount:{project}.svc.id.goog[{KEDA_NAMESPACE}/{KEDA_OPERATOR}]"


def manifests_for(cloud: Literal["gcp", "aws"]) -> tuple[tuple[str, str], ...]:
    """(role, URL) in apply order: CRDs before the controllers that watch them."""
    urls = serving_traffic_facts().manifests
    if cloud == "aws":
        return (("gateway-api-crds", urls["gateway_api_crds"]), ("inference-crds", urls["inference_crds"]),
                ("ngf-crds", urls["ngf_crds"]), ("ngf", urls["ngf_inference"]), ("keda", urls["keda"]))
    return (("inference-crds", urls["inference_crds"]), ("keda", urls["keda"]))


@dataclass(frozen=True)
class ServingTrafficAddonsArgs:
    cloud: Literal["gcp", "aws"]
    provider: k8s.Provider
    dependencies: Sequence[pulumi.Resource] = field(default=())


class ServingTrafficAddons(pulumi.ComponentResource):
    applied: list[k8s.yaml.v2.ConfigFile]

    def __init__(self, name: str, args: ServingTrafficAddonsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:ServingTrafficAddons", name, None, opts)
        self.applied = []
        previous: list[pulumi.Resource] = list(args.dependencies)
        for role, url in manifests_for(args.cloud):
            # yaml.v2.ConfigFile fetches the pinned URL at deploy time and applies its objects, each after the
            # manifests before it (CRDs first).
            applied = k8s.yaml.v2.ConfigFile(child_name(name, role), file=url, opts=pulumi.ResourceOptions(
                parent=self, provider=args.provider, depends_on=previous))
            self.applied.append(applied)
            previous = [applied]
        self.register_outputs({"manifests": [url for _, url in manifests_for(args.cloud)]})
