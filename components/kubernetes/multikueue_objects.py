"""MultiKueue, as plain data: the manager cluster's objects that dispatch a workload's jobs to its worker clusters, owned
servers first and a cloud cluster as the overflow. Pure: no Pulumi import.

Sources, kubernetes-sigs/kueue v0.19.2 (@8eab68778fc1b52affe165fdf5af29d1e9b4f3cb, the version
components/kubernetes/data/charts.yaml pins):
- site/content/en/docs/concepts/multikueue.md: a manager cluster and worker clusters; the manager's ClusterQueue
  carries an AdmissionCheck whose controllerName is kueue.x-k8s.io/multikueue; its quota "should equal the total
  quota available in all worker clusters"; the manager cannot be one of its own workers ("Limitations"), so the
  manager is a cluster of its own; the Incremental dispatcher nominates clusters in the order of
  MultiKueueConfig.spec.clusters (feature gate MultiKueueIncrementalDispatcherRespectConfigOrder, Beta and on by
  default in 0.19), stepSize 1 tries one cluster at a time, and a round that admits nothing within 5 minutes adds the
  next cluster ("prioritizing clusters for cost-optimized spillover": on-premises first, then the cloud).
- site/content/en/docs/tasks/manage/setup_multikueue.md and site/static/examples/multikueue/multikueue-setup.yaml:
  the worker's kubeconfig is a Secret in the Kueue controller's namespace (kueue-system) under the key `kubeconfig`,
  named by MultiKueueCluster spec.clusterSource.kubeConfig {locationType: Secret, location: <secret>}; the
  AdmissionCheck's parameters name the MultiKueueConfig; each worker mirrors the manager's namespaces and
  LocalQueues.
- apis/config/v1beta2/configuration_types.go: Configuration.multiKueue.dispatcherName
  (kueue.x-k8s.io/multikueue-dispatcher-incremental) and incrementalDispatcherConfig.stepSize (feature gate
  MultiKueueIncrementalDispatcherConfig, Beta and on by default in 0.19: pkg/features/kube_features.go).
- The CRDs: tests/checks/data/crds/kueue.x-k8s.io_multikueueclusters_v1beta2.yaml and
  kueue.x-k8s.io_multikueueconfigs_v1beta2.yaml (spec.clusters: 1 to 20 names, unique).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accelfit.errors import Problem, problem
from accelfit.planner.fleet.overflow import DISPATCH_STEP_SIZE

MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
INCREMENTAL_DISPATCHER = "kueue.x-k8s.io/multikueue-dispatcher-incremental"
# DISPATCH_STEP_SIZE (one worker at a time, the owned cluster alone first) is the number the plan prints
# (accelfit.planner.fleet.overflow, with the dispatcher's round).
KUBECONFIG_KEY = "kubeconfig"  # the Secret key MultiKueue reads (multikueue-setup.yaml)
MAX_WORKERS = 20  # MultiKueueConfig spec.clusters maxItems (the pinned CRD)
ROLES = ("owned", "overflow")
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # fullmatch: a trailing newline is no DNS label
_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


@dataclass(frozen=True)
class WorkerQuota:
    """One worker cluster as the manager sees it: its MultiKueueCluster name, whether its capacity is owned or the
    cloud overflow, and the nominal quota its own ClusterQueue for the workload holds (resource -> quantity, summed
    over its flavors), which the manager's quota adds up."""

    name: str
    role: str
    quotas: Mapping[str, str]


def worker_quotas(cluster_queue_spec: Mapping[str, Any]) -> dict[str, str]:
    """A worker ClusterQueue's nominal quota per resource, summed over its flavors (as rendered, so the manager's
    quota follows what the worker really admits)."""
    totals: dict[str, float] = {}
    for group in cluster_queue_spec["resourceGroups"]:
        for flavor in group["flavors"]:
            for resource in flavor["resources"]:
                totals[resource["name"]] = totals.get(resource["name"], 0.0) + _amount(resource["nominalQuota"])
    return {name: _quantity(name, amount) for name, amount in totals.items()}


def manager_quotas(workers: Sequence[WorkerQuota]) -> dict[str, str]:
    """The manager's quota: the total over the workers (concepts/multikueue.md: lower leaves workers idle, higher
    dispatches jobs no worker admits)."""
    totals: dict[str, float] = {}
    for worker in workers:
        for name, value in worker.quotas.items():
            totals[name] = totals.get(name, 0.0) + _amount(value)
    return {name: _quantity(name, amount) for name, amount in totals.items()}


def _amount(value: str | int) -> float:
    text = str(value)
    for suffix, factor in _UNITS.items():
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


def _quantity(resource: str, amount: float) -> str:
    """Memory-like resources back in Gi (whole), counts as integers."""
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return f"{int(amount // 2**30)}Gi" if amount % 2**30 == 0 else f"{int(amount // 2**20)}Mi"
    return str(int(amount)) if amount == int(amount) else str(amount)


def secret_name(queue: str, worker: str) -> str:
    return f"{queue}-{worker}-kubeconfig"


def config_name(queue: str) -> str:
    return f"{queue}-workers"


def check_name(queue: str) -> str:
    return f"{queue}-multikueue"


def flavor_name(queue: str) -> str:
    return f"{queue}-dispatch"


def multikueue_cluster_spec(queue: str, worker: WorkerQuota) -> dict[str, Any]:
    return {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": secret_name(queue, worker.name)}}}


def multikueue_config_spec(workers: Sequence[WorkerQuota]) -> dict[str, Any]:
    """The workers in dispatch order: the Incremental dispatcher nominates them in this order."""
    return {"clusters": [worker.name for worker in workers]}


def multikueue_check_spec(queue: str) -> dict[str, Any]:
    return {"controllerName": MULTIKUEUE_CONTROLLER,
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": config_name(queue)}}


def manager_cluster_queue_spec(queue: str, workers: Sequence[WorkerQuota], namespace_label: str) -> dict[str, Any]:
    """The manager's ClusterQueue: one flavor with no node labels (no job runs on the manager), quota the workers'
    total, every job through the MultiKueue check. Its namespaces are those labelled for it, as on the workers."""
    quotas = manager_quotas(workers)
    return {
        "namespaceSelector": {"matchLabels": {namespace_label: queue}},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": list(quotas),
                            "flavors": [{"name": flavor_name(queue),
                                         "resources": [{"name": name, "nominalQuota": value}
                                                       for name, value in quotas.items()]}]}],
        "admissionChecksStrategy": {"admissionChecks": [{"name": check_name(queue)}]},
    }


def manager_configuration(chart_configuration: Mapping[str, Any]) -> dict[str, Any]:
    """The Kueue Configuration of the manager: the chart's own, with the Incremental dispatcher one worker at a
    time, so MultiKueueConfig's order is the order jobs try clusters in."""
    return {**chart_configuration,
            "multiKueue": {"dispatcherName": INCREMENTAL_DISPATCHER,
                           "incrementalDispatcherConfig": {"stepSize": DISPATCH_STEP_SIZE}}}


def kubeconfig_text(cluster: str, server: str, ca_data: str, token: str) -> str:
    """A worker's kubeconfig for the manager: the cluster's endpoint and CA, the MultiKueue service account's token
    (site/static/examples/multikueue/create-multikueue-kubeconfig.sh writes the same fields; an exec plugin, as
    GKE's and EKS's own kubeconfigs use, is not available inside the Kueue controller)."""
    user = f"{cluster}-multikueue"
    return (f"apiVersion: v1\nkind: Config\nclusters:\n- name: {cluster}\n  cluster:\n"
            f"    certificate-authority-data: {ca_data}\n    server: {server}\n"
            f"contexts:\n- name: {cluster}\n  context:\n    cluster: {cluster}\n    user: {user}\n"
            f"current-context: {cluster}\nusers:\n- name: {user}\n  user:\n    token: {token}\n")


def worker_problems(where: str, workers: Sequence[WorkerQuota], resource: str) -> list[Problem]:
    """What the manager cannot dispatch with: no worker, a cloud before the owned cluster, names Kueue refuses, a
    worker offering none of the accelerator the jobs ask for."""
    problems: list[Problem] = []
    if not workers:
        return [problem(where, "workers", "no worker cluster to dispatch to", "list the owned cluster, then the cloud")]
    if len(workers) > MAX_WORKERS:
        problems.append(problem(where, "workers", f"{len(workers)} worker clusters; MultiKueueConfig takes at most "
                                f"{MAX_WORKERS}", f"list at most {MAX_WORKERS}"))
    if workers[0].role != "owned":
        problems.append(problem(where, "workers[0].role", "the first worker is not the owned cluster, so jobs would "
                                "start in the cloud while owned servers sit idle", "list the owned cluster first",
                                workers[0].role))
    names = [worker.name for worker in workers]
    if len(set(names)) != len(names):
        problems.append(problem(where, "workers", "two workers share a name (MultiKueueConfig: must be unique)",
                                "name each worker cluster once", names))
    for index, worker in enumerate(workers):
        if worker.role not in ROLES:
            problems.append(problem(where, f"workers[{index}].role", "unknown role", "owned or overflow", worker.role))
        if not _DNS_LABEL.fullmatch(worker.name) or len(worker.name) > 63:
            problems.append(problem(where, f"workers[{index}].name", "not a DNS label (a MultiKueueCluster name)",
                                    "lower-case letters, digits and '-', at most 63", worker.name))
        if _amount(worker.quotas.get(resource, 0)) <= 0:
            problems.append(problem(where, f"workers[{index}].quotas", f"no {resource} quota, so the worker never "
                                    "admits a job", "give the worker's ClusterQueue quota", worker.name))
    return problems
