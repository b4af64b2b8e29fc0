"""KubernetesLayer: what every accelfit cluster (GKE, EKS, bare metal) gets inside it: a provider on the
cluster, the GPU software its platform lacks, Kueue routing with fallback, and GPU telemetry.

It takes plain, already-decided inputs (kubeconfig, flavors in order, per-pool node selectors, the platform's GPU
software profile); `components.kubernetes.build` derives them from a plan and the cluster that was created.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from components.common import child_name
from components.kubernetes.eks_addons import EksAddons, EksAddonsArgs
from components.kubernetes.gpu_operator import GpuOperator, GpuOperatorArgs
from components.kubernetes.capacity_fallback import COMPUTE_CLASS_API, COMPUTE_CLASS_KIND, compute_class_spec
from components.kubernetes.gpu_software import GpuSoftware
from components.kubernetes.jobset import JobSet, JobSetArgs
from components.kubernetes.kueue import KueueRouting, KueueRoutingArgs, validate_kueue_args
from components.kubernetes.queues import QueuePlan
from components.kubernetes.serving.layer_servers import build_model_servers
from components.kubernetes.serving.model_server import ModelServer
from components.kubernetes.serving.targets import ServingBuild
from accelfit.planner.serving.traffic import ServingRoute
from components.kubernetes.telemetry import GpuTelemetry, GpuTelemetryArgs


@dataclass(frozen=True)
class KubernetesLayerArgs:
    kubeconfig: pulumi.Input[str] = field(metadata={"doc": "Kubeconfig of the cluster (exec plugin or secret)."})
    queues: tuple[QueuePlan, ...] = field(metadata={"doc": "A ClusterQueue per workload on the cluster."})
    pool_selectors: Mapping[str, Mapping[str, pulumi.Input[str]]]
    gpu_software: GpuSoftware | None = field(
        default=None, metadata={"doc": "None for clusters without GPU pools (no operator, no DCGM)."})
    labels: dict[str, str] = field(default_factory=dict)
    cluster_dependencies: Sequence[pulumi.Resource] = field(
        default=(), metadata={"doc": "What must exist before anything is applied in the cluster."})
    eks_addons: EksAddonsArgs | None = field(
        default=None, metadata={"doc": "EKS only: Cluster Autoscaler, EFA device plugin, FSx volume."})
    jobset: bool = field(default=False, metadata={
        "doc": "Install the JobSet controller (clusters with TPU slice pools: multi-host and multislice jobs)."})
    serving: tuple[ServingBuild, ...] = field(default=(), metadata={
        "doc": "Model servers of the cluster's inference workloads (plans whose serving section asks for vLLM)."})
    routes: tuple[ServingRoute, ...] = field(default=(), metadata={
        "doc": "Serving routes to build (components/kubernetes/serving): route, autoscaler, their add-ons."})
    gcp_project: str | None = field(default=None, metadata={"doc": "GKE: whose Managed Prometheus KEDA reads."})
    server_dependencies: Mapping[str, Sequence[pulumi.Resource]] = field(default_factory=dict, metadata={
        "doc": "Per workload: what its model server waits for besides the layer (EKS: its Pod Identity association)."})
    inference_crds: bool = field(default=True, metadata={
        "doc": "Apply the GAIE InferencePool CRD (False where GKE manages it: accelfit.planner.serving.gke_crds)."})
    compute_classes: tuple[ComputeClassPlan, ...] = field(default=(), metadata={
        "doc": "GKE only: a ComputeClass per capacity group, its node pools in chain order (capacity_fallback)."})


@dataclass(frozen=True)
class ComputeClassPlan:
    name: str = field(metadata={"doc": "The class's name: the value of the pools' cloud.google.com/compute-class "
                                       "label and of the group flavor's node selector."})
    node_pools: tuple[pulumi.Input[str], ...] = field(metadata={"doc": "GKE node pool names, in chain order."})


class KubernetesLayer(pulumi.ComponentResource):
    provider: k8s.Provider
    gpu_operator: GpuOperator | None
    routing: KueueRouting
    telemetry: GpuTelemetry | None
    eks_addons: EksAddons | None
    jobset: JobSet | None
    model_servers: list[ModelServer]
    compute_classes: list[k8s.apiextensions.CustomResource]

    def __init__(self, name: str, args: KubernetesLayerArgs, opts: pulumi.ResourceOptions | None = None):
        validate_kueue_args(child_name(name, "kueue"), _kueue_args(args, provider=None))  # before any resource
        super().__init__("accelfit:kubernetes:KubernetesLayer", name, None, opts)
        # Server-side apply: objects other controllers also write (nodes, CRDs) are merged field by field.
        self.provider = k8s.Provider(child_name(name, "provider"), kubeconfig=args.kubeconfig,
                                     enable_server_side_apply=True,
                                     opts=pulumi.ResourceOptions(parent=self,
                                                                 depends_on=list(args.cluster_dependencies)))
        child = pulumi.ResourceOptions(parent=self)
        software = args.gpu_software
        self.gpu_operator = None
        if software is not None and software.operator:
            self.gpu_operator = GpuOperator(child_name(name, "gpu-operator"), GpuOperatorArgs(
                software=software, provider=self.provider, labels=args.labels), opts=child)
        # JobSet before Kueue, so the JobSet CRD is there when Kueue starts its JobSet integration.
        self.jobset = (JobSet(child_name(name, "jobset"), JobSetArgs(provider=self.provider, labels=args.labels),
                              opts=child) if args.jobset else None)
        # Cluster-scoped and read by GKE's autoscaler only: independent of Kueue and of the pools' creation order.
        self.compute_classes = [k8s.apiextensions.CustomResource(
            child_name(name, f"compute-class-{plan.name}"), api_version=COMPUTE_CLASS_API, kind=COMPUTE_CLASS_KIND,
            metadata={"name": plan.name, "labels": dict(args.labels)}, spec=compute_class_spec(plan.node_pools),
            opts=pulumi.ResourceOptions(parent=self, provider=self.provider)) for plan in args.compute_classes]
        self.routing = KueueRouting(child_name(name, "kueue"), _kueue_args(
            args, self.provider, (self.jobset.release,) if self.jobset else ()), opts=child)
        self.telemetry = None
        if software is not None:
            self.telemetry = GpuTelemetry(child_name(name, "telemetry"), GpuTelemetryArgs(
                software=software, provider=self.provider, labels=args.labels,
                exporter_dependencies=[self.gpu_operator.release] if self.gpu_operator else []), opts=child)
        self.eks_addons = None
        if args.eks_addons is not None:
            self.eks_addons = EksAddons(child_name(name, "eks-addons"), dataclasses.replace(
                args.eks_addons, provider=self.provider, labels=args.labels,
                after=tuple(self.routing.team_namespaces)), opts=child)
        self.model_servers = build_model_servers(name, args.serving, args.labels, args.pool_selectors, self.provider,
                                                 [self.routing], child, args.server_dependencies)
        # The route and autoscaler select and scale those servers: after them.
        self.serving = self._serving(name, args, child)
        self.register_outputs({"cluster_queues": [queue.name for queue in args.queues],
                               "model_servers": [build.workload for build in args.serving],
                               "gpu_operator": self.gpu_operator is not None,
                               "telemetry": software.monitoring if software else None,
                               "jobset": self.jobset is not None})


    def _serving(self, name: str, args: KubernetesLayerArgs, child: pulumi.ResourceOptions) -> list[pulumi.Resource]:
        """Each serving workload's route and autoscaler, after the add-ons they need (CRDs, the gateway controller
        on EKS, KEDA) and, on EKS, after the cluster's Prometheus (the telemetry's kube-prometheus-stack)."""
        if not args.routes:
            return []
        from components.kubernetes.serving.autoscaling import ServingAutoscaling, ServingAutoscalingArgs
        from components.kubernetes.serving.routing import ServingRouting, ServingRoutingArgs
        from components.kubernetes.serving.traffic_addons import ServingTrafficAddons, ServingTrafficAddonsArgs

        addons = ServingTrafficAddons(child_name(name, "serving-addons"), ServingTrafficAddonsArgs(
            cloud=args.routes[0].cloud, provider=self.provider, inference_crds=args.inference_crds), opts=child)
        after: list[pulumi.Resource] = [*addons.applied, *self.routing.team_namespaces, *self.model_servers]
        if self.telemetry is not None:
            after.append(self.telemetry)
        built: list[pulumi.Resource] = [addons]
        for route in args.routes:
            built.append(ServingRouting(child_name(name, f"{route.workload}-route"), ServingRoutingArgs(
                route=route, provider=self.provider, labels=args.labels, dependencies=after), opts=child))
            built.append(ServingAutoscaling(child_name(name, f"{route.workload}-autoscaling"), ServingAutoscalingArgs(
                route=route, provider=self.provider, project=args.gcp_project, labels=args.labels,
                dependencies=after), opts=child))
        return built


def _kueue_args(args: KubernetesLayerArgs, provider: k8s.Provider | None,
                release_dependencies: tuple[pulumi.Resource, ...] = ()) -> KueueRoutingArgs:
    return KueueRoutingArgs(queues=args.queues, pool_selectors=args.pool_selectors,
                            provider=provider,
                            labels=args.labels, release_dependencies=release_dependencies)

