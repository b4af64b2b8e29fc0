"""ServingTrafficAddons: what a cluster needs once before any workload's route and autoscaler can exist, applied
from the pinned release manifests (accelfit/planner/data/serving_traffic.yaml `manifests`):

- the InferencePool CRD (GAIE release manifests.yaml) where the cluster does not install it: EKS, and GKE before
  1.34.0-gke.1626000 (accelfit.planner.serving.gke_crds: no channel accelfit uses offers such a version any more);
- EKS: the Gateway API standard CRDs and NGINX Gateway Fabric with the inference extension (its CRDs, then its
  controller); GKE runs its own Gateway controller once the cluster's Gateway API is on (GkeClusterArgs.gateway_api);
- KEDA (its release manifest), on both clouds. On GKE its operator reads Managed Prometheus as itself through
  Workload Identity Federation: `metrics_reader_member` is the IAM principal the GCP side grants
  roles/monitoring.viewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import pulumi
import pulumi_kubernetes as k8s

from accelfit.clouds import cloud_named
from accelfit.planner.serving.traffic import serving_traffic_facts
from components.common import child_name

KEDA_NAMESPACE = "keda"
KEDA_OPERATOR = "keda-operator"  # the release manifest's operator ServiceAccount


def metrics_reader_member(project: str, project_number: str) -> str:
    """The KEDA operator's Kubernetes service account as an IAM principal that a role on a resource can be granted
    to directly (Workload Identity Federation for GKE, no Google service account). The form GKE's "Scale to zero using
    KEDA" tutorial grants roles/monitoring.viewer to, for the same keda/keda-operator from KEDA's release manifest
    (cloud.google.com/kubernetes-engine/docs/tutorials/scale-to-zero-using-keda: --member=principal://
    iam.googleapis.com/projects/PROJECT_NUMBER/locations/global/workloadIdentityPools/PROJECT_ID.svc.id.goog/subject/
    ns/keda/sa/keda-operator), and GKE's Workload Identity page for granting roles to a KSA
    (cloud.google.com/kubernetes-engine/docs/how-to/workload-identity#configure-authz-principals). The
    `serviceAccount:PROJECT_ID.svc.id.goog[NS/KSA]` form is the member for roles/iam.workloadIdentityUser on a Google
    service account (the KSA impersonating it, as KEDA's own GCP docs set up with an annotated KSA), not a principal
    that Cloud Monitoring authorizes by itself. KEDA's gcp pod identity reads with the pod's default credentials
    (kedacore/keda v2.18.3 pkg/scalers/gcp/gcp_common.go: google.DefaultTokenSource), i.e. the KSA's federated token."""
    return (f"principal://iam.googleapis.com/projects/{project_number}/locations/global/workloadIdentityPools/"
            f"{project}.svc.id.goog/subject/ns/{KEDA_NAMESPACE}/sa/{KEDA_OPERATOR}")


def manifests_for(cloud: Literal["gcp", "aws"], inference_crds: bool = True) -> tuple[tuple[str, str], ...]:
    """(role, URL) in apply order: CRDs before the controllers that watch them. `inference_crds` False: the cluster
    installs the InferencePool CRD itself (GKE from 1.34.0-gke.1626000: accelfit.planner.serving.gke_crds)."""
    urls = serving_traffic_facts().manifests
    crds = (("inference-crds", urls["inference_crds"]),) if inference_crds else ()
    if cloud_named(cloud).serving_gateway == "nginx-gateway-fabric":  # the stack brings the Gateway API too
        return (("gateway-api-crds", urls["gateway_api_crds"]), *crds,
                ("ngf-crds", urls["ngf_crds"]), ("ngf", urls["ngf_inference"]), ("keda", urls["keda"]))
    return (*crds, ("keda", urls["keda"]))


@dataclass(frozen=True)
class ServingTrafficAddonsArgs:
    cloud: Literal["gcp", "aws"]
    provider: k8s.Provider
    dependencies: Sequence[pulumi.Resource] = field(default=())
    inference_crds: bool = field(default=True, metadata={
        "doc": "Apply the GAIE release's InferencePool CRD; False where the cluster manages it (GKE)."})


class ServingTrafficAddons(pulumi.ComponentResource):
    applied: list[k8s.yaml.v2.ConfigFile]

    def __init__(self, name: str, args: ServingTrafficAddonsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:ServingTrafficAddons", name, None, opts)
        self.applied = []
        previous: list[pulumi.Resource] = list(args.dependencies)
        for role, url in manifests_for(args.cloud, args.inference_crds):
            # yaml.v2.ConfigFile fetches the pinned URL at deploy time and applies its objects, each after the
            # manifests before it (CRDs first).
            applied = k8s.yaml.v2.ConfigFile(child_name(name, role), file=url, opts=pulumi.ResourceOptions(
                parent=self, provider=args.provider, depends_on=previous))
            self.applied.append(applied)
            previous = [applied]
        self.register_outputs({"manifests": [url for _, url in manifests_for(args.cloud, args.inference_crds)]})
