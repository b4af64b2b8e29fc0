"""LeaderWorkerSet: the kubernetes-sigs/lws controller from its pinned Helm chart, on clusters whose plan serves a
replica over several nodes (vLLM tensor parallel inside each node, pipeline parallel across them: one LWS group per
replica). Installed as the LWS docs do (kubernetes-sigs/lws site/content/en/docs/installation/_index.md @v0.7.0:
`helm install lws oci://registry.k8s.io/lws/charts/lws --version=0.7.0 --namespace lws-system`); the GKE multi-host
vLLM tutorial uses the same API (kubernetes-engine-samples ai-ml/llm-multihost-gpus/vllm-llama3-405b-A3.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from components.common import child_name
from components.kubernetes.charts import ChartPin, pin
from components.kubernetes.helm import namespace, release

# The chart file at the tag names image tag `main`; pin the controller to the release the chart is.
LWS_VALUES = {"image": {"manager": {"tag": "v0.7.0", "pullPolicy": "IfNotPresent"}}}


@dataclass(frozen=True)
class LeaderWorkerSetControllerArgs:
    provider: k8s.Provider
    labels: dict[str, str] = field(default_factory=dict)
    chart: ChartPin = field(default_factory=lambda: pin("lws"))


class LeaderWorkerSetController(pulumi.ComponentResource):
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: LeaderWorkerSetControllerArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:LeaderWorkerSetController", name, None, opts)
        ns = namespace(child_name(name, "namespace"), args.chart.namespace, args.labels,
                       pulumi.ResourceOptions(parent=self, provider=args.provider))
        self.release = release(child_name(name, "release"), "lws", args.chart, LWS_VALUES, self, args.provider,
                               depends_on=[ns])
        self.register_outputs({"chart_version": args.chart.version})
