"""ModelServer: a workload's vLLM server on each of its serving pools (the plan's serving section, in route order):
a Deployment (or a LeaderWorkerSet for replicas spanning nodes), a ClusterIP Service and a PodDisruptionBudget per
pool, and the Hugging Face token Secret for hf:// weights. The manifests are built in `manifests` (pure); this only
creates them on the cluster's provider."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelfit.errors import InputError, problem
from components.common import child_name
from components.kubernetes.serving import manifests
from components.kubernetes.serving.manifests import PoolTarget, ServerSettings

SERVER_IGNORED = ["spec.replicas"]
"""Fields the autoscaler owns after creation (see ModelServer)."""


@dataclass(frozen=True)
class ModelServerArgs:
    settings: ServerSettings
    targets: tuple[PoolTarget, ...] = field(metadata={"doc": "One per serving pool, in route order."})
    provider: k8s.Provider | None = None
    hf_token: pulumi.Input[str] | None = field(default=None, metadata={
        "doc": "hf:// weights: the token (a Pulumi secret read from the stack's config key)."})
    create_service_account: bool = field(default=False, metadata={
        "doc": "EKS: create the service account the workload's Pod Identity association names."})
    dependencies: Sequence[pulumi.Resource] = field(default=(), metadata={
        "doc": "What must exist first: the namespace, the LWS controller, the service account."})


def validate_model_server_args(name: str, args: ModelServerArgs) -> None:
    where = f"ModelServer {name}"
    problems = []
    if not args.targets:
        problems.append(problem(where, "targets", "no serving pool", "the plan's serving section lists its pools"))
    if (args.settings.hf_secret is None) != (args.hf_token is None):
        problems.append(problem(where, "hf_token", "hf:// weights need the token and its Secret's name together",
                                "pass both, or neither"))
    names = [manifests.object_name(args.settings, target.pool) for target in args.targets]
    for index, object_name in enumerate(names):
        if len(object_name) > 63:
            problems.append(problem(where, f"targets[{index}]", "the object name is longer than a DNS label "
                                    "(63 characters)", "shorten the workload's name", object_name))
    if len(set(names)) != len(names):
        problems.append(problem(where, "targets", "two serving pools share a node pool", "list each once", names))
    if problems:
        raise InputError(problems)


class ModelServer(pulumi.ComponentResource):
    servers: list[pulumi.Resource]
    services: list[k8s.core.v1.Service]

    def __init__(self, name: str, args: ModelServerArgs, opts: pulumi.ResourceOptions | None = None):
        validate_model_server_args(name, args)
        super().__init__("accelfit:kubernetes:ModelServer", name, None, opts)
        settings = args.settings
        depends = list(args.dependencies)
        if args.create_service_account:
            depends.append(k8s.core.v1.ServiceAccount(
                child_name(name, "service-account"), metadata={"name": settings.service_account,
                                                               "namespace": settings.namespace,
                                                               "labels": dict(settings.labels)},
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=list(depends))))
        if args.hf_token is not None:
            secret = k8s.core.v1.Secret(
                child_name(name, "hf-token"), metadata={"name": settings.hf_secret, "namespace": settings.namespace,
                                                        "labels": dict(settings.labels)},
                type="Opaque", string_data={manifests.HF_TOKEN_KEY: args.hf_token},
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=list(depends)))
            depends.append(secret)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=depends)
        # KEDA's HPA owns the replica count once the server exists (a ScaledObject per serving pool): the plan's
        # replicas set the first count only. Re-applying spec.replicas on every `pulumi up` would reset the
        # autoscaler, or fail with a server-side-apply conflict on the scale subresource. Kubernetes' HPA docs
        # ("Migrating Deployments and StatefulSets to horizontal autoscaling") say not to re-apply it; Pulumi's
        # answer under server-side apply is ignoreChanges (pulumi/pulumi-kubernetes issues 2258, 2491).
        server_opts = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(ignore_changes=SERVER_IGNORED))
        self.servers, self.services = [], []
        for target in args.targets:
            pool = target.pool
            role = pool.node_pools[0]
            if pool.nodes_per_replica > 1:
                body = manifests.leader_worker_set(settings, target)
                server: pulumi.Resource = k8s.apiextensions.CustomResource(
                    child_name(name, f"lws-{role}"), api_version=body["apiVersion"], kind=body["kind"],
                    metadata=body["metadata"], spec=body["spec"], opts=server_opts)
            else:
                body = manifests.deployment(settings, target)
                server = k8s.apps.v1.Deployment(child_name(name, f"deployment-{role}"), metadata=body["metadata"],
                                                spec=body["spec"], opts=server_opts)
            self.servers.append(server)
            svc = manifests.service(settings, pool)
            self.services.append(k8s.core.v1.Service(child_name(name, f"service-{role}"), metadata=svc["metadata"],
                                                     spec=svc["spec"], opts=child))
            pdb = manifests.disruption_budget(settings, pool)
            k8s.policy.v1.PodDisruptionBudget(child_name(name, f"pdb-{role}"), metadata=pdb["metadata"],
                                              spec=pdb["spec"], opts=child)
        self.register_outputs({"services": [manifests.object_name(settings, target.pool) for target in args.targets],
                               "server": settings.serving.server})
