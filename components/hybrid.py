"""A dedicated workload's cloud overflow (Plan.overflow): the overflow cluster (built as any cluster of its own is,
named `<workload>-overflow`, its accelerator pools from 0), the MultiKueue worker access on both workers (the owned
cluster and the overflow cluster), and the MultiKueue manager's objects on the team's management cluster
(accelfit:managerKubeconfig), dispatching the workload's jobs owned cluster first (accelfit.planner.fleet.hybrid says
why the manager is a cluster of its own). Everything is checked before the first resource is created."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pulumi

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, Problem, problem
from accelfit.planner.fleet.hybrid import MANAGER_FIX, MANAGER_KEY
from accelfit.planner.model import Plan
from accelfit.spec.inventory import Inventory
from components.common import Ownership
from components.fleet import SharedClusterBuild, own_cluster

# The cluster builder and its checks (components.build's), passed in: the assembly imports this module, not the
# other way round.
ClusterBuilder = Callable[..., Any]
ClusterCheck = Callable[[SharedClusterBuild, Catalog], list[Problem]]


def overflow_cluster(plan: Plan, ownership: Ownership) -> SharedClusterBuild:
    """The overflow cluster: a cluster of its own for the workload (its queue and namespaces keep the workload's
    name, as MultiKueue needs them mirrored), its resources named after the worker."""
    assert plan.overflow is not None
    return dataclasses.replace(own_cluster(plan.overflow.plan, ownership), name=plan.overflow.worker)


def overflow_problems(plan: Plan, ownership: Ownership, catalog: Catalog, cluster_check: ClusterCheck
                      ) -> list[Problem]:
    """What building the overflow would refuse: the overflow cluster's own checks, a cloud whose cluster endpoint
    this module cannot read, and the manager's kubeconfig missing."""
    assert plan.overflow is not None
    problems = list(cluster_check(overflow_cluster(plan, ownership), catalog))
    if plan.overflow.cloud not in ENDPOINTS:
        problems.append(problem("stack", "placement.overflow.cloud", "no overflow cluster endpoint reader for "
                                "this cloud yet", f"use one of {', '.join(sorted(ENDPOINTS))}", plan.overflow.cloud))
    if pulumi.Config().get_secret(MANAGER_KEY) is None:
        problems.append(problem("stack", f"accelfit:{MANAGER_KEY}", "the MultiKueue manager's kubeconfig is not set "
                                "(the cluster that dispatches the workload's jobs to its owned and overflow "
                                "clusters)", MANAGER_FIX))
    return problems


def build_overflow(plan: Plan, ownership: Ownership, catalog: Catalog, owned: Any, inventory: Inventory | None,
                   owned_server: str, build_cluster: ClusterBuilder, cluster_check: ClusterCheck) -> Any:
    """The overflow cluster, both workers' MultiKueue access and the manager's objects. `owned`: the owned
    cluster's Built (its Kubernetes layer); `owned_server`: its API server URL."""
    import pulumi_kubernetes as k8s

    from components.kubernetes.build import layer_labels, plan_layer
    from components.kubernetes.multikueue import (
        ManagerWorker, MultiKueueManager, MultiKueueManagerArgs, MultiKueueWorkerAccess, WorkerAccessArgs,
    )
    from components.kubernetes.multikueue_objects import WorkerQuota, worker_quotas
    from components.kubernetes.namespaces import team_namespaces

    overflow = plan.overflow
    assert overflow is not None
    found = overflow_problems(plan, ownership, catalog, cluster_check)
    if found:
        raise InputError(found)
    cloud_cluster = overflow_cluster(plan, ownership)
    cloud = build_cluster(cloud_cluster, catalog)
    labels = layer_labels(ownership)
    workers = []
    for name, role, layer, server, queue in (
            (overflow.owned_worker, "owned", owned.kubernetes, owned_server,
             plan_layer(own_cluster(plan, ownership), catalog, inventory).queues[0]),
            (overflow.worker, "overflow", cloud.kubernetes, ENDPOINTS[overflow.cloud](cloud.platform),
             plan_layer(cloud_cluster, catalog).queues[0])):
        access = MultiKueueWorkerAccess(f"{plan.workload}-multikueue-{role}", WorkerAccessArgs(
            cluster=name, server=server, provider=layer.provider, depends_on=(layer.routing.release,),
            labels=labels))
        workers.append(ManagerWorker(WorkerQuota(name, role, worker_quotas(queue.spec())), access.kubeconfig))
    manager = k8s.Provider(f"{plan.workload}-manager", kubeconfig=pulumi.Config().require_secret(MANAGER_KEY),
                           enable_server_side_apply=True)
    return MultiKueueManager(f"{plan.workload}-multikueue", MultiKueueManagerArgs(
        queue=plan.workload, namespaces=team_namespaces(plan), workers=tuple(workers), provider=manager,
        labels=labels))


def _gke_endpoint(stack: Any) -> pulumi.Output[str]:
    """The GKE control plane's IP endpoint (the cluster CA comes with the worker's token Secret)."""
    endpoint: pulumi.Output[str] = stack.cluster.cluster.endpoint.apply(lambda ip: f"https://{ip}")
    return endpoint


def _eks_endpoint(stack: Any) -> pulumi.Output[str]:
    """The EKS API server endpoint, already an https URL, as the stack's own kubeconfig uses it
    (components/kubernetes/access.py eks_kubeconfig; https://docs.aws.amazon.com/eks/latest/userguide/
    create-kubeconfig.html); the cluster CA comes with the worker's token Secret."""
    endpoint: pulumi.Output[str] = stack.cluster.endpoint
    return endpoint


# The overflow cluster's API server URL, by cloud: what the manager's kubeconfig for it names.
ENDPOINTS: dict[str, Callable[[Any], pulumi.Output[str]]] = {"gcp": _gke_endpoint, "aws": _eks_endpoint}
