"""JobSet: the kubernetes-sigs/jobset controller from its pinned Helm chart, on clusters with TPU slice pools.

A multi-host TPU job (and every multislice job) runs as one JobSet: a Job per slice, a headless Service for the
hosts to find each other, and the all-or-nothing restart that a slice needs; Kueue admits a JobSet as one
workload. GKE's multislice guide lists JobSet as a prerequisite, and xpk installs it on every cluster it creates
(AI-Hypercomputer/xpk src/xpk/core/cluster.py, JOBSET_VERSION v0.10.1, @367c838253bea41e7d7716145ad6513f44c1a21e;
https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-multislice). The chart is the one the JobSet project
publishes at oci://registry.k8s.io/jobset/charts/jobset (kubernetes-sigs/jobset charts/jobset/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from components.common import child_name
from components.kubernetes.charts import ChartPin, pin
from components.kubernetes.helm import namespace, release


@dataclass(frozen=True)
class JobSetArgs:
    provider: k8s.Provider
    labels: dict[str, str] = field(default_factory=dict)
    chart: ChartPin = field(default_factory=lambda: pin("jobset"))


class JobSet(pulumi.ComponentResource):
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: JobSetArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:JobSet", name, None, opts)
        ns = namespace(child_name(name, "namespace"), args.chart.namespace, args.labels,
                       pulumi.ResourceOptions(parent=self, provider=args.provider))
        self.release = release(child_name(name, "release"), "jobset", args.chart, {}, self, args.provider,
                               depends_on=[ns])
        self.register_outputs({"chart_version": args.chart.version})
