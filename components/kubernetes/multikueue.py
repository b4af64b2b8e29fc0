"""MultiKueue for a hybrid workload: the manager cluster's Kueue (Incremental dispatcher, one worker at a time) with
the workload's dispatching ClusterQueue, its MultiKueue AdmissionCheck, MultiKueueConfig (workers in order: owned
servers first, the cloud overflow after), a MultiKueueCluster and kubeconfig Secret per worker, and the workload's
namespaces and LocalQueues mirrored from the workers; and, on each worker, the service account the manager reaches
it with. The objects' contents and their sources: components/kubernetes/multikueue_objects.py."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from accelfit.chartvalues.check import chart_defaults
from accelfit.errors import InputError
from components.common import child_name
from components.kubernetes.charts import ChartPin, pin
from components.kubernetes.helm import namespace, release
from components.kubernetes.multikueue_objects import (
    KUBECONFIG_KEY,
    WorkerQuota,
    check_name,
    config_name,
    flavor_name,
    kubeconfig_text,
    manager_cluster_queue_spec,
    manager_configuration,
    multikueue_check_spec,
    multikueue_cluster_spec,
    multikueue_config_spec,
    secret_name,
    worker_problems,
)
from components.kubernetes.queues import KUEUE_API, QUEUE_NAMESPACE_LABEL

WORKER_ACCESS = Path(__file__).parent / "data" / "multikueue_worker_access.yaml"


@functools.cache
def worker_access() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(WORKER_ACCESS.read_text())
    return document


@dataclass(frozen=True)
class ManagerWorker:
    quota: WorkerQuota
    kubeconfig: pulumi.Input[str] = field(metadata={"doc": "The worker's kubeconfig for the manager (secret)."})


@dataclass(frozen=True)
class MultiKueueManagerArgs:
    queue: str = field(metadata={"doc": "The workload's queue name: the LocalQueue and ClusterQueue on every cluster."})
    namespaces: tuple[str, ...] = field(metadata={"doc": "Where jobs are submitted: mirrored on every worker."})
    workers: tuple[ManagerWorker, ...] = field(metadata={"doc": "In dispatch order: the owned cluster first."})
    provider: k8s.Provider
    accelerator_resource: str = "nvidia.com/gpu"
    labels: dict[str, str] = field(default_factory=dict)
    chart: ChartPin = field(default_factory=lambda: pin("kueue"))


def manager_values(chart: ChartPin) -> dict[str, Any]:
    """The chart's values with the manager's Configuration (Helm replaces the configuration string whole)."""
    defaults = chart_defaults()[(chart.chart, chart.version)].values
    configuration = manager_configuration(yaml.safe_load(defaults["managerConfig"]["controllerManagerConfigYaml"]))
    return {"managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(configuration, sort_keys=False)}}


class MultiKueueManager(pulumi.ComponentResource):
    release: k8s.helm.v3.Release
    cluster_queue: k8s.apiextensions.CustomResource
    config: k8s.apiextensions.CustomResource

    def __init__(self, name: str, args: MultiKueueManagerArgs, opts: pulumi.ResourceOptions | None = None):
        found = worker_problems(f"MultiKueueManager {name}", [worker.quota for worker in args.workers],
                                args.accelerator_resource)
        if found:
            raise InputError(found)
        super().__init__("accelfit:kubernetes:MultiKueueManager", name, None, opts)
        on = pulumi.ResourceOptions(parent=self, provider=args.provider)
        system = namespace(child_name(name, "namespace"), args.chart.namespace, args.labels, on)
        self.release = release(child_name(name, "release"), "kueue", args.chart, manager_values(args.chart), self,
                               args.provider, depends_on=[system])
        after_kueue = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[self.release])
        clusters = [self._worker(name, args, worker, system, after_kueue) for worker in args.workers]
        quotas = [worker.quota for worker in args.workers]
        self.config = self._object(name, "config", "MultiKueueConfig", config_name(args.queue),
                                   multikueue_config_spec(quotas), args,
                                   pulumi.ResourceOptions.merge(after_kueue, pulumi.ResourceOptions(
                                       depends_on=[self.release, *clusters])))
        check = self._object(name, "check", "AdmissionCheck", check_name(args.queue), multikueue_check_spec(args.queue),
                             args, pulumi.ResourceOptions.merge(after_kueue, pulumi.ResourceOptions(
                                 depends_on=[self.release, self.config])))
        flavor = self._object(name, "flavor", "ResourceFlavor", flavor_name(args.queue), {}, args, after_kueue)
        self.cluster_queue = self._object(
            name, "cluster-queue", "ClusterQueue", args.queue,
            manager_cluster_queue_spec(args.queue, quotas, QUEUE_NAMESPACE_LABEL), args,
            pulumi.ResourceOptions.merge(after_kueue, pulumi.ResourceOptions(
                depends_on=[self.release, flavor, check])))
        for team in args.namespaces:
            made = namespace(child_name(name, f"ns-{team}"), team, {**args.labels, QUEUE_NAMESPACE_LABEL: args.queue},
                             on)
            k8s.apiextensions.CustomResource(
                child_name(name, f"queue-{team}"), api_version=KUEUE_API, kind="LocalQueue",
                metadata={"name": args.queue, "namespace": team, "labels": dict(args.labels)},
                spec={"clusterQueue": args.queue},
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider,
                                            depends_on=[made, self.cluster_queue]))
        self.register_outputs({"workers": [worker.quota.name for worker in args.workers]})

    def _object(self, name: str, role: str, kind: str, object_name: str, spec: dict[str, Any],
                args: MultiKueueManagerArgs, opts: pulumi.ResourceOptions) -> k8s.apiextensions.CustomResource:
        return k8s.apiextensions.CustomResource(
            child_name(name, role), api_version=KUEUE_API, kind=kind,
            metadata={"name": object_name, "labels": dict(args.labels)}, spec=spec, opts=opts)

    def _worker(self, name: str, args: MultiKueueManagerArgs, worker: ManagerWorker, system: pulumi.Resource,
                after_kueue: pulumi.ResourceOptions) -> k8s.apiextensions.CustomResource:
        """The worker's kubeconfig Secret in the Kueue namespace and the MultiKueueCluster naming it."""
        secret = k8s.core.v1.Secret(
            child_name(name, f"{worker.quota.name}-kubeconfig"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=secret_name(args.queue, worker.quota.name),
                                                namespace=args.chart.namespace, labels=dict(args.labels)),
            type="Opaque", string_data={KUBECONFIG_KEY: pulumi.Output.secret(worker.kubeconfig)},
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[system]))
        return self._object(name, f"cluster-{worker.quota.name}", "MultiKueueCluster", worker.quota.name,
                            multikueue_cluster_spec(args.queue, worker.quota), args,
                            pulumi.ResourceOptions.merge(after_kueue, pulumi.ResourceOptions(
                                depends_on=[self.release, secret])))


@dataclass(frozen=True)
class WorkerAccessArgs:
    cluster: str = field(metadata={"doc": "The worker's name in the manager (its MultiKueueCluster)."})
    server: pulumi.Input[str] = field(metadata={"doc": "The worker's API server URL."})
    provider: k8s.Provider
    depends_on: Sequence[pulumi.Resource] = ()
    labels: dict[str, str] = field(default_factory=dict)


class MultiKueueWorkerAccess(pulumi.ComponentResource):
    """On a worker: the service account the manager acts as, its ClusterRole (data/multikueue_worker_access.yaml),
    and a service-account token Secret; `kubeconfig` is the worker's kubeconfig for the manager (secret)."""

    kubeconfig: pulumi.Output[str]

    def __init__(self, name: str, args: WorkerAccessArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:MultiKueueWorkerAccess", name, None, opts)
        access = worker_access()
        account, space = access["service_account"], access["namespace"]
        on = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=list(args.depends_on))
        meta = {"labels": dict(args.labels)}
        service_account = k8s.core.v1.ServiceAccount(
            child_name(name, "account"), metadata={"name": account, "namespace": space, **meta}, opts=on)
        role = k8s.rbac.v1.ClusterRole(child_name(name, "role"), metadata={"name": f"{account}-role", **meta},
                                       rules=access["rules"], opts=on)
        k8s.rbac.v1.ClusterRoleBinding(
            child_name(name, "binding"), metadata={"name": f"{account}-crb", **meta},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"{account}-role"},
            subjects=[{"kind": "ServiceAccount", "name": account, "namespace": space}],
            opts=pulumi.ResourceOptions.merge(on, pulumi.ResourceOptions(depends_on=[role])))
        # The token controller fills a service-account-token Secret's data (token, ca.crt), and the provider waits
        # for it before the Secret's outputs resolve (pulumi/pulumi-kubernetes#2048, "Add awaiter for
        # service-account-token secret"); the account must exist first (pulumi/pulumi-kubernetes#4396). The
        # kubeconfig is built from them as create-multikueue-kubeconfig.sh builds it.
        token = k8s.core.v1.Secret(
            child_name(name, "token"), type="kubernetes.io/service-account-token",
            metadata={"name": account, "namespace": space, **meta,
                      "annotations": {"kubernetes.io/service-account.name": account}},
            opts=pulumi.ResourceOptions.merge(on, pulumi.ResourceOptions(depends_on=[service_account])))
        self.kubeconfig = pulumi.Output.secret(pulumi.Output.all(args.server, token.data).apply(
            lambda parts: kubeconfig_text(args.cluster, parts[0], (parts[1] or {}).get("ca.crt", ""),
                                          _decoded((parts[1] or {}).get("token", "")))))
        self.register_outputs({})


def _decoded(value: str) -> str:
    """A Secret's data is base64; the kubeconfig carries the token in plain text."""
    import base64

    return base64.b64decode(value).decode() if value else ""
