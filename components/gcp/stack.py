"""Compose the GCP components for one Plan: network, node service account, then either a GKE cluster with its
GPU/TPU pools or TPU VM slices, then storage. The whole plan is validated first, so nothing is created when
any part of it is wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan
from components.common import Ownership
from components.gcp import plan_args
from components.gcp.bucket import DataBucket
from components.gcp.filestore import SharedFilestore
from components.gcp.gke_cluster import GkeCluster
from components.gcp.gpu_node_pool import GpuNodePool
from components.gcp.network import Network
from components.gcp.service_account import NodeServiceAccount, NodeServiceAccountArgs
from components.gcp.tpu_node_pool import TpuNodePool
from components.gcp.tpu_queued import TpuQueuedSlices
from components.gcp.tpu_vm import TpuVmSlice
from components.gcp.validation import plan_problems


@dataclass
class GcpStack:
    """Everything `build` created, for the program to export or to wire into Kubernetes components."""

    network: Network
    service_account: NodeServiceAccount
    bucket: DataBucket
    cluster: GkeCluster | None = None
    gpu_pools: list[GpuNodePool] = field(default_factory=list)
    tpu_pools: list[TpuNodePool] = field(default_factory=list)
    tpu_vms: list[TpuVmSlice] = field(default_factory=list)
    tpu_queued: TpuQueuedSlices | None = None
    filestore: SharedFilestore | None = None


def resolve_project(project: str | None) -> str:
    project = project or pulumi.Config("gcp").get("project")
    if not project:
        raise InputError([problem("stack", "gcp:project", "the GCP project is not set",
                                  "add gcp:project to the stack file's config")])
    return project


def build_stack(plan: Plan, ownership: Ownership, *, catalog: Catalog | None = None,
                project: str | None = None) -> GcpStack:
    if catalog is None:
        from accelfit.catalog import load_catalog

        catalog = load_catalog()
    problems = plan_problems(plan, catalog)
    if problems:
        raise InputError(problems)
    project = resolve_project(project)
    labels = ownership.gcp_labels()
    name = plan.workload

    network = Network(f"{name}-net", plan_args.network_args(plan, project))
    account = NodeServiceAccount(f"{name}-nodes", NodeServiceAccountArgs(
        project=project, display_name=f"accelfit {name} nodes ({plan.environment})"))
    parts = _Parts()
    if plan.orchestration == "kubernetes":
        _build_cluster(parts, plan, project, network, account, labels)
    else:
        _build_tpu_vms(parts, plan, project, network, account, labels)

    bucket = DataBucket(f"{name}-data", plan_args.bucket_args(plan, (account.member,), labels))
    shared = (SharedFilestore(f"{name}-shared", plan_args.filestore_args(plan, network.network.name, labels))
              if plan.storage.shared_filesystem == "filestore" else None)
    return GcpStack(network=network, service_account=account, bucket=bucket, filestore=shared,
                    cluster=parts.cluster, gpu_pools=parts.gpu_pools, tpu_pools=parts.tpu_pools,
                    tpu_vms=parts.tpu_vms, tpu_queued=parts.tpu_queued)


@dataclass
class _Parts:
    cluster: GkeCluster | None = None
    gpu_pools: list[GpuNodePool] = field(default_factory=list)
    tpu_pools: list[TpuNodePool] = field(default_factory=list)
    tpu_vms: list[TpuVmSlice] = field(default_factory=list)
    tpu_queued: TpuQueuedSlices | None = None


def _build_cluster(parts: _Parts, plan: Plan, project: str, network: Network, account: NodeServiceAccount,
                   labels: dict[str, str]) -> None:
    name = plan.workload
    cluster = GkeCluster(f"{name}-gke", plan_args.cluster_args(
        plan, project, network.network.id, network.subnet.id, account.email, labels))
    parts.cluster = cluster
    extra = [(net.name, subnet.name) for net, subnet in zip(network.extra_networks, network.extra_subnets)]
    for pool in plan.node_pools:
        if pool.role == "gpu":
            parts.gpu_pools.append(GpuNodePool(f"{name}-{pool.name}", plan_args.gpu_pool_args(
                plan, pool, cluster.cluster.id, account.email, extra, labels)))
        elif pool.role == "tpu":
            parts.tpu_pools.append(TpuNodePool(f"{name}-{pool.name}", plan_args.tpu_pool_args(
                plan, pool, cluster.cluster.id, account.email, labels)))


def _build_tpu_vms(parts: _Parts, plan: Plan, project: str, network: Network, account: NodeServiceAccount,
                   labels: dict[str, str]) -> None:
    name = plan.workload
    queued = [item for item in plan.tpu_vm_slices if item.queued]
    for item in plan.tpu_vm_slices:
        if not item.queued:
            parts.tpu_vms.append(TpuVmSlice(f"{name}-{item.name}", plan_args.tpu_vm_args(
                plan, item, network.network.id, network.subnet.id, account.email, labels)))
    if queued:
        parts.tpu_queued = TpuQueuedSlices(f"{name}-tpu", plan_args.queued_args(
            plan, project, queued, network.network.id, network.subnet.id))
