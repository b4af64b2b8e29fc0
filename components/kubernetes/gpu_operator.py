"""GpuOperator: the NVIDIA GPU Operator through Helm, pinned, with the per-platform values of gpu_software."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelfit.errors import InputError, problem
from components.common import child_name
from components.kubernetes.charts import ChartPin, pin
from components.kubernetes.gpu_software import GpuSoftware, operator_values
from components.kubernetes.helm import PRIVILEGED, namespace, release


@dataclass(frozen=True)
class GpuOperatorArgs:
    software: GpuSoftware
    provider: k8s.Provider
    labels: dict[str, str] = field(default_factory=dict)
    chart: ChartPin = field(default_factory=lambda: pin("gpu_operator"))


class GpuOperator(pulumi.ComponentResource):
    release: k8s.helm.v3.Release
    namespace_name: str

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None):
        if not args.software.operator:
            raise InputError([problem(f"GpuOperator {name}", "software.operator", "this platform's GPU software "
                                      "profile runs no operator", "build GpuOperator only where it is needed")])
        super().__init__("accelfit:kubernetes:GpuOperator", name, None, opts)
        ns = namespace(child_name(name, "namespace"), args.chart.namespace, {**args.labels, **PRIVILEGED},
                       pulumi.ResourceOptions(parent=self, provider=args.provider))
        self.release = release(child_name(name, "release"), "gpu-operator", args.chart,
                               operator_values(args.software), self, args.provider, depends_on=[ns])
        self.namespace_name = args.chart.namespace
        self.register_outputs({"release_status": self.release.status})
