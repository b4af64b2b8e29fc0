"""Compose the GCP components: the project's APIs, network, node service account, then either a GKE cluster with
its workloads' GPU/TPU pools or TPU VM slices, then each workload's storage and identity. Every GKE cluster is
built by one function, `build_cluster`, for both forms of a stack: the single form's workload in a cluster of its
own (named after it, as single stacks have always been built), or a fleet's shared cluster (fleet_stack.py adds
the checks across its workloads). The whole plan is validated first, so nothing is created when any part of it is
wrong; every component uses the provider of ProjectServices, so nothing is created before the APIs it calls are
on."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import organizations, projects

from accelfit.engines import builds_server
from accelfit.catalog.models import Catalog
from accelfit.planner.serving.route_plan import builds_route
from accelfit.errors import InputError, problem
from accelfit.stackrules.control_plane import control_plane_problems
from accelfit.planner.model import Plan
from components.common import Ownership
from components.fleet import SharedClusterBuild, own_cluster
from components.fleet_groups import SharedClusterGroup, WorkloadGroup
from components.gcp import plan_args
from components.kubernetes.serving.traffic_addons import metrics_reader_member
from components.gcp.plan_args import ControlPlaneAccess
from components.gcp.project_services import ProjectServices, ProjectServicesArgs
from accelfit.cloudrules.gcp.rules import gcp_rules
from components.gcp.bucket import DataBucket
from components.gcp.filestore import SharedFilestore
from components.gcp.gke_cluster import GkeCluster
from components.gcp.gpu_node_pool import GpuNodePool
from components.gcp.network import Network
from components.gcp.service_account import NodeServiceAccount, NodeServiceAccountArgs
from components.gcp.tpu_node_pool import TpuNodePool
from components.gcp.tpu_queued import TpuQueuedSlices
from components.gcp.tpu_vm import TpuVmSlice
from accelfit.cloudrules.gcp.validation import plan_problems
from components.gcp.workload_identity import WorkloadIdentity, WorkloadIdentityArgs
from components.kubernetes.namespaces import team_namespaces


@dataclass
class GcpStack:
    """Everything `build` created, for the program to export or to wire into Kubernetes components."""

    services: ProjectServices
    network: Network
    service_account: NodeServiceAccount
    bucket: DataBucket
    workload_identity: WorkloadIdentity | None = None
    cluster: GkeCluster | None = None
    gpu_pools: list[GpuNodePool] = field(default_factory=list)
    tpu_pools: list[TpuNodePool] = field(default_factory=list)
    tpu_vms: list[TpuVmSlice] = field(default_factory=list)
    tpu_queued: TpuQueuedSlices | None = None
    filestore: SharedFilestore | None = None
    gpu_vm: object | None = None  # components.gcp.gpu_vm.GceGpuVm (gce-gpu-vm plans)


# Read-only access to Cloud Monitoring, which serves Managed Prometheus queries
# (https://cloud.google.com/stackdriver/docs/managed-prometheus/query-api-ui: roles/monitoring.viewer).
METRICS_READER_ROLE = "roles/monitoring.viewer"


def resolve_project(project: str | None) -> str:
    project = project or pulumi.Config("gcp").get("project")
    if not project:
        raise InputError([problem("stack", "gcp:project", "the GCP project is not set",
                                  "add gcp:project to the stack file's config")])
    return project


def control_plane_access() -> ControlPlaneAccess:
    """Stack config `accelfit:controlPlane`: {authorizedCidrs: [CIDR, ...], dnsEndpoint: true|false}, checked by
    its one rule (accelfit.stackrules.control_plane)."""
    raw = pulumi.Config().get_object("controlPlane")
    problems = control_plane_problems(raw)
    if problems:
        raise InputError(problems)
    if raw is None:
        return ControlPlaneAccess()
    return ControlPlaneAccess(authorized_cidrs=tuple(raw.get("authorizedCidrs", [])),
                              dns_endpoint=raw.get("dnsEndpoint", False))


def project_features(plan: Plan) -> set[str]:
    """What the stack creates, in the terms of rules.project_services' `needed_for`."""
    features = {"network", "gke" if plan.orchestration == "kubernetes" else
                ("gpu-vm" if plan.gpu_vm is not None else "tpu-vm")}
    if plan.storage.shared_filesystem == "filestore":
        features.add("filestore")
    if builds_route(plan):
        features.add("serving-route")
    return features


def build_stack(plan: Plan, ownership: Ownership, *, catalog: Catalog | None = None,
                project: str | None = None) -> GcpStack:
    if catalog is None:
        from accelfit.catalog import load_catalog

        catalog = load_catalog()
    problems = plan_problems(plan, catalog)
    if problems:
        raise InputError(problems)
    project = resolve_project(project)
    if plan.orchestration == "kubernetes":
        return build_cluster(own_cluster(plan, ownership), catalog, project).workloads[plan.workload]
    labels = ownership.gcp_labels()
    shared = build_shared(plan.workload, plan, project_features(plan), project, labels, plan.environment)
    parts = WorkloadParts()
    if plan.gpu_vm is None:
        _build_tpu_vms(parts, plan, project, shared.network, shared.service_account, labels, shared.on_services)
    built = build_workload_storage(parts, plan, project, shared, labels, shared.on_services, namespaces=())
    if plan.gpu_vm is not None:
        built.gpu_vm = _build_gpu_vm(plan, project, shared, built.bucket, labels)
    return built


def _build_gpu_vm(plan: Plan, project: str, shared: SharedParts, bucket: DataBucket, labels: dict[str, str]):
    """The GPU VM, after the bucket whose name its job is given ($ACCELFIT_BUCKET_URL)."""
    from components.gcp.gpu_vm import GceGpuVm, GceGpuVmArgs
    from components.gpu_vm_script import GpuVmJob

    vm = plan.gpu_vm
    if vm is None:  # build_gcp_stack builds the VM only for a plan that has one
        raise AssertionError(f"{plan.workload}: a GPU VM built for a plan without one")
    return GceGpuVm(f"{plan.workload}-gpu", GceGpuVmArgs(
        project=project, zone=vm.zone, machine_type=vm.machine_type, image=vm.image,
        boot_disk_gb=vm.boot_disk_gb, boot_disk_type=vm.boot_disk_type, subnetwork=shared.network.subnet.id,
        service_account=shared.service_account.email, bucket_name=bucket.bucket_name,
        autostop_idle_minutes=vm.autostop_idle_minutes, autostop_action=vm.autostop_action, spot=vm.spot,
        job=GpuVmJob(vm.command, vm.code, vm.container_image), labels=labels), shared.on_services)


@dataclass
class GcpSharedCluster:
    """What one GKE cluster holds: the shared items, and a GcpStack view per workload (its own pools, bucket and
    identity with the cluster's network, account and cluster). `group` and `groups` are None/empty for the
    single form's own cluster, whose resources sit at the top of the stack."""

    name: str
    shared: SharedParts
    cluster: GkeCluster
    group: SharedClusterGroup | None
    workloads: dict[str, GcpStack] = field(default_factory=dict)
    groups: dict[str, WorkloadGroup] = field(default_factory=dict)


def build_cluster(build: SharedClusterBuild, catalog: Catalog, project: str) -> GcpSharedCluster:
    """One GKE cluster and its workloads' pools, storage and identities; checked by the caller. `build.own`: the
    single form's cluster of one workload: named and labelled after the workload, no group components, its pods in the
    team namespaces. Otherwise a fleet's shared cluster: the shared items under a SharedClusterGroup labelled
    `<cluster>-shared`, each workload's resources under its WorkloadGroup, each in its own namespace."""
    basis, own = build.basis, build.own
    access = control_plane_access()  # stack config, checked before anything is created
    group = None if own else SharedClusterGroup(build.name)
    labels = build.ownership.gcp_labels()
    features = set().union(*(project_features(plan) for plan in build.plans))
    shared = build_shared(build.name, basis, features, project, labels, build.environment, parent=group)
    cluster = GkeCluster(f"{build.name}-gke", plan_args.shared_cluster_args(
        build.plans, basis, project, shared.network.network.id, shared.network.subnet.id,
        shared.service_account.email, labels, access), shared.on_services)
    built = GcpSharedCluster(name=build.name, shared=shared, cluster=cluster, group=group)
    if any(builds_route(plan) for plan in build.plans):
        # The KEDA operator reads the serving metrics from Managed Prometheus as itself (Workload Identity
        # Federation for GKE: its Kubernetes service account as a principal, which names the project's number; the
        # pool exists once the cluster does).
        number = organizations.get_project_output(
            project_id=project, opts=pulumi.InvokeOutputOptions(provider=shared.services.provider)).number
        projects.IAMMember(f"{build.name}-route-metrics-reader", project=project, role=METRICS_READER_ROLE,
                           member=number.apply(lambda value: metrics_reader_member(project, value)),
                           opts=pulumi.ResourceOptions.merge(shared.on_services,
                                                             pulumi.ResourceOptions(depends_on=[cluster])))
    for workload in build.workloads:
        plan = workload.plan
        if own:
            opts, own_labels = shared.on_services, labels
        else:
            built.groups[plan.workload] = WorkloadGroup(plan.workload)
            opts = pulumi.ResourceOptions(parent=built.groups[plan.workload], providers=[shared.services.provider])
            own_labels = workload.ownership.gcp_labels()
        parts = WorkloadParts(cluster=cluster)
        build_pools(parts, plan, catalog, cluster, shared, own_labels, opts)
        # A fleet's workloads each run in their own namespace, named after it (its LocalQueue is there).
        built.workloads[plan.workload] = build_workload_storage(
            parts, plan, project, shared, own_labels, opts,
            namespaces=workload_namespaces(plan) if own else (plan.workload,))
    return built


@dataclass
class SharedParts:
    """What every workload of one GCP stack (or of one shared cluster) uses: APIs, network, node identity."""

    services: ProjectServices
    network: Network
    service_account: NodeServiceAccount
    on_services: pulumi.ResourceOptions


def build_shared(name: str, plan: Plan, features: set[str], project: str, labels: dict[str, str],
                 environment: str, parent: pulumi.Resource | None = None) -> SharedParts:
    """The project's APIs (whose provider every other resource uses), the network and the nodes' account, named
    `name`. `plan` gives the network (its ranges and any GPUDirect NICs)."""
    del labels  # networks, routers and service accounts take no labels
    services = ProjectServices(f"{name}-apis", ProjectServicesArgs(
        project=project, region=plan.region, services=gcp_rules().services_for(features)),
        pulumi.ResourceOptions(parent=parent) if parent is not None else None)
    on_services = pulumi.ResourceOptions(parent=parent, providers=[services.provider])
    network = Network(f"{name}-net", plan_args.network_args(plan, project, "serving-route" in features),
                      on_services)
    account = NodeServiceAccount(f"{name}-nodes", NodeServiceAccountArgs(
        project=project, display_name=f"accelfit {name} nodes ({environment})"), on_services)
    return SharedParts(services=services, network=network, service_account=account, on_services=on_services)


def build_pools(parts: WorkloadParts, plan: Plan, catalog: Catalog, cluster: GkeCluster, shared: SharedParts,
                labels: dict[str, str], opts: pulumi.ResourceOptions) -> None:
    """The plan's accelerator pools (planned and standby) in `cluster`, named `<workload>-<pool>`."""
    account, network = shared.service_account, shared.network
    for pool in plan.node_pools:
        if pool.role == "gpu":
            parts.gpu_pools.append(GpuNodePool(f"{plan.workload}-{pool.name}", plan_args.gpu_pool_args(
                plan, pool, catalog, cluster.cluster.id, account.email, network.additional_nics, labels), opts))
        elif pool.role == "tpu":
            parts.tpu_pools.append(TpuNodePool(f"{plan.workload}-{pool.name}", plan_args.tpu_pool_args(
                plan, pool, cluster.cluster.id, account.email, labels), opts))


def build_workload_storage(parts: WorkloadParts, plan: Plan, project: str, shared: SharedParts, labels: dict[str, str],
                           opts: pulumi.ResourceOptions, namespaces: tuple[str, ...]) -> GcpStack:
    """The workload's bucket (its nodes' account may read and write it), shared filesystem, and, on a cluster,
    the Workload Identity its pods (in `namespaces`) act as."""
    name = plan.workload
    account, network = shared.service_account, shared.network
    bucket = DataBucket(f"{name}-data", plan_args.bucket_args(plan, (account.member,), labels), opts)
    filestore = (SharedFilestore(f"{name}-shared", plan_args.filestore_args(plan, network.network.name, labels),
                                 opts)
                 if plan.storage.shared_filesystem == "filestore" else None)
    identity = None
    if parts.cluster is not None:
        # Pods (and the GCS FUSE CSI driver) act as their Kubernetes service account under GKE_METADATA.
        identity = WorkloadIdentity(f"{name}-workload", WorkloadIdentityArgs(
            project=project, bucket=bucket.bucket_name, namespaces=namespaces,
            kubernetes_service_account=plan.workload, weights_bucket=weights_bucket(plan, "gs"),
            display_name=f"accelfit {name} workload ({plan.environment})",
            identity_pool_ready=(parts.cluster.cluster,)), opts)
    return GcpStack(services=shared.services, network=network, service_account=account, bucket=bucket,
                    filestore=filestore, workload_identity=identity, cluster=parts.cluster,
                    gpu_pools=parts.gpu_pools, tpu_pools=parts.tpu_pools, tpu_vms=parts.tpu_vms,
                    tpu_queued=parts.tpu_queued, gpu_vm=parts.gpu_vm)


def weights_bucket(plan: Plan, scheme: str) -> str | None:
    """The bucket of the plan's model weights when the stack builds its server and they are in `scheme`."""
    serving = plan.serving
    if serving is None or not builds_server(serving.server) or not serving.weights or \
            not serving.weights.startswith(f"{scheme}://"):
        return None
    return serving.weights.removeprefix(f"{scheme}://").split("/", 1)[0]


def workload_namespaces(plan: Plan) -> tuple[str, ...]:
    """The namespaces the workload's pods run in: the Kubernetes layer's team namespaces."""
    return team_namespaces(plan)


@dataclass
class WorkloadParts:
    cluster: GkeCluster | None = None
    gpu_pools: list[GpuNodePool] = field(default_factory=list)
    tpu_pools: list[TpuNodePool] = field(default_factory=list)
    tpu_vms: list[TpuVmSlice] = field(default_factory=list)
    tpu_queued: TpuQueuedSlices | None = None
    gpu_vm: object | None = None


def _build_tpu_vms(parts: WorkloadParts, plan: Plan, project: str, network: Network, account: NodeServiceAccount,
                   labels: dict[str, str], opts: pulumi.ResourceOptions) -> None:
    name = plan.workload
    queued = [item for item in plan.tpu_vm_slices if item.queued]
    for item in plan.tpu_vm_slices:
        if not item.queued:
            parts.tpu_vms.append(TpuVmSlice(f"{name}-{item.name}", plan_args.tpu_vm_args(
                plan, item, network.network.id, network.subnet.id, account.email, labels), opts))
    if queued:
        parts.tpu_queued = TpuQueuedSlices(f"{name}-tpu", plan_args.queued_args(
            plan, project, queued, network.network.id, network.subnet.id), opts)
