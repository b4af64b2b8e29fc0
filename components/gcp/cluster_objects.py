"""Objects a GKE cluster built from a plan needs inside it beyond the Kubernetes layer: the workload's Kubernetes
service accounts (Workload Identity) and, for GPUDirect machines, the NICs' Network objects and NCCL plugins.
Created once the layer (its provider and namespaces) exists."""

from __future__ import annotations

import pulumi

from accelfit.planner.model import Plan
from components.gcp import plan_args
from components.gcp.stack import GcpStack
from components.gcp.workload_identity import WorkloadServiceAccounts, WorkloadServiceAccountsArgs
from components.kubernetes.gpudirect import GpuDirectNetworking, GpuDirectNetworkingArgs, NicNetwork
from components.kubernetes.layer import KubernetesLayer


def gpudirect_nics(plan: Plan, stack: GcpStack) -> tuple[NicNetwork, ...]:
    """The extra NICs in NIC order with the Kubernetes Network names the layout gives them."""
    layout = plan_args.gpudirect_layout(plan)
    if layout is None:
        return ()
    gvnic_names, rdma_names = layout.k8s_names()
    modes = ["NetDevice"] * len(gvnic_names) + ["RDMA"] * len(rdma_names)
    return tuple(NicNetwork(name=name, vpc=vpc, subnet=subnet, device_mode=mode)
                 for name, mode, (vpc, subnet) in zip((*gvnic_names, *rdma_names), modes,
                                                      stack.network.additional_nics, strict=True))


def build_service_accounts(plan: Plan, stack: GcpStack, layer: KubernetesLayer, labels: dict[str, str],
                           opts: pulumi.ResourceOptions | None = None) -> WorkloadServiceAccounts | None:
    identity = stack.workload_identity
    if identity is None:
        return None
    return WorkloadServiceAccounts(f"{plan.workload}-ksa", WorkloadServiceAccountsArgs(
        provider=layer.provider, google_service_account=identity.email,
        name=identity.kubernetes_service_account, namespaces=identity.namespaces, labels=labels,
        dependencies=[layer.routing]), opts)  # the routing creates the team namespaces


def build_gpudirect(name: str, plan: Plan, stack: GcpStack, layer: KubernetesLayer, labels: dict[str, str],
                    pools: list[pulumi.Resource], opts: pulumi.ResourceOptions | None = None
                    ) -> GpuDirectNetworking | None:
    """The NICs' Network objects and NCCL plugins, once per cluster (named `name`), when `plan` has GPUDirect."""
    nics = gpudirect_nics(plan, stack)
    if not nics:
        return None
    return GpuDirectNetworking(f"{name}-gpudirect", GpuDirectNetworkingArgs(
        provider=layer.provider, flavour=plan_args.gpudirect_of(plan), nics=nics, labels=labels,
        dependencies=pools), opts)
