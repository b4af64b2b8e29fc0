"""The model servers of one cluster's Kubernetes layer: the serving PriorityClass once, the LeaderWorkerSet
controller when a replica spans nodes, then one ModelServer per inference workload, each pool placed on its node
pools through the layer's pool selectors (the platform's own node-pool label)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi
import pulumi_kubernetes as k8s

from accelfit.errors import InputError, problem
from components.common import child_name
from components.kubernetes.serving import manifests
from components.kubernetes.serving.lws_controller import LeaderWorkerSetController, LeaderWorkerSetControllerArgs
from components.kubernetes.serving.manifests import PoolTarget, ServerSettings
from components.kubernetes.serving.model_server import ModelServer, ModelServerArgs
from components.kubernetes.serving.targets import ServingBuild


def hf_token(build: ServingBuild) -> pulumi.Output[str]:
    """The stack's secret config value model.weights_token names (encrypted: checked when the stack loads)."""
    key = build.hf_token_key or ""
    namespace, _, name = key.partition(":")
    token = pulumi.Config(namespace).get_secret(name)
    if token is None:
        raise InputError([problem("stack", f"config.{key}", f"not set, and workload {build.workload}'s server "
                                  f"downloads {build.serving.weights} with it (model.weights_token)",
                                  f"run `pulumi config set --secret {key} hf_...`")])
    return token


def targets_of(build: ServingBuild, selectors: Mapping[str, Mapping[str, pulumi.Input[str]]]
               ) -> tuple[PoolTarget, ...]:
    targets = []
    for placement in build.pools:
        labels = [next(iter(selectors[key].items())) for key in placement.selector_keys]
        targets.append(PoolTarget(pool=placement.pool, pool_label=labels[0][0],
                                  pool_names=[value for _, value in labels], taints=placement.taints,
                                  tpu_labels=dict(placement.tpu_labels)))
    return tuple(targets)


def build_model_servers(name: str, serving: Sequence[ServingBuild], labels: Mapping[str, str],
                        pool_selectors: Mapping[str, Mapping[str, pulumi.Input[str]]], provider: k8s.Provider,
                        after: Sequence[pulumi.Resource], child: pulumi.ResourceOptions,
                        own_after: Mapping[str, Sequence[pulumi.Resource]] | None = None) -> list[ModelServer]:
    """The layer's model servers (KubernetesLayerArgs.serving), placed through its pool selectors; each also after
    `own_after[workload]` (EKS: the workload's Pod Identity association)."""
    if not serving:
        return []
    labels = dict(labels)
    priority = manifests.priority_class(labels)
    depends: list[pulumi.Resource] = [*after, k8s.scheduling.v1.PriorityClass(
        child_name(name, "serving-priority"), metadata=priority["metadata"], value=priority["value"],
        global_default=priority["globalDefault"], preemption_policy=priority["preemptionPolicy"],
        description=priority["description"], opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(
            provider=provider)))]
    if any(build.multi_node for build in serving):
        controller = LeaderWorkerSetController(child_name(name, "lws"), LeaderWorkerSetControllerArgs(
            provider=provider, labels=labels), opts=child)
        depends.append(controller.release)
    servers = []
    for build in serving:
        settings = ServerSettings(workload=build.workload, namespace=build.namespace,
                                  service_account=build.service_account, cloud=build.cloud, region=build.region,
                                  serving=build.serving, labels=labels, hf_secret=build.hf_secret)
        servers.append(ModelServer(child_name(name, f"serve-{build.workload}"), ModelServerArgs(
            settings=settings, targets=targets_of(build, pool_selectors), provider=provider,
            hf_token=hf_token(build) if build.hf_token_key else None,
            create_service_account=build.create_service_account,
            dependencies=[*depends, *(own_after or {}).get(build.workload, ())]), opts=child))
    return servers
