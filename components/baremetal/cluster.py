"""BaremetalCluster: owned GPU servers from an inventory turned into a GPU pool of an existing Kubernetes cluster:
hosts prepared over SSH (preflight, NVIDIA and Kubernetes apt repositories, kubeadm prerequisites, pinned driver with
its fabric software, container toolkit, join with a token accelfit keeps valid), then their nodes labelled and
tainted through the Kubernetes API. The plan and inventory are checked before anything is created."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan
from accelfit.planner.software import baremetal_gpu_driver
from accelfit.pricing.onprem import ownership_annotations
from accelfit.spec.inventory import Inventory
from components.baremetal.access import HostAccess
from accelfit.cloudrules.baremetal.checks import check_plan
from components.baremetal.host_preparation import HostPreparation, HostPreparationArgs
from components.baremetal.join_token import join_token_secret
from components.baremetal.membership import NodeMembership, NodeMembershipArgs
from components.baremetal.scripts import ClusterJoin
from components.common import child_name


@dataclass(frozen=True)
class BaremetalClusterArgs:
    plan: Plan
    inventory: Inventory
    access: HostAccess
    inventory_source: str = "inventory"


class BaremetalCluster(pulumi.ComponentResource):
    hosts: HostPreparation
    membership: NodeMembership
    provider: k8s.Provider
    kubeconfig: pulumi.Output[str]
    """The secret kubeconfig from config, for the Kubernetes layer's own provider."""

    def __init__(self, name: str, args: BaremetalClusterArgs, opts: pulumi.ResourceOptions | None = None):
        plan = args.plan
        inventory = check_plan(plan, args.inventory, args.inventory_source)
        [pool] = [pool for pool in plan.node_pools if pool.role == "gpu"]
        taints = tuple((taint.key, taint.value, taint.effect) for taint in pool.taints)
        chosen = set(plan.baremetal_hosts)
        servers = tuple(server for server in inventory.servers if server.name in chosen)
        gpu_taint = next((taint for taint in taints if taint[0] == "nvidia.com/gpu"),
                         ("nvidia.com/gpu", "present", "NoSchedule"))
        # The join registers the node with this one taint and nothing patches taints later (membership.py), so a
        # plan that asked for others would lose them silently: refuse it.
        if set(taints) - {gpu_taint}:
            raise InputError([problem(args.inventory_source, "node_pools.taints",
                                      "bare-metal nodes are registered with the GPU taint only",
                                      "leave the pool's taints to the planner (nvidia.com/gpu)",
                                      [list(taint) for taint in taints])])
        super().__init__("accelfit:baremetal:BaremetalCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        self.kubeconfig = args.access.kubeconfig
        self.provider = k8s.Provider(child_name(name, "provider"), kubeconfig=args.access.kubeconfig,
                                     enable_server_side_apply=True, opts=child)
        token = join_token_secret(child_name(name, "join-token"), args.access.join_token, self.provider, self)
        self.hosts = HostPreparation(child_name(name, "hosts"), HostPreparationArgs(
            servers=servers, driver_version=pool.driver_version or "",
            toolkit_version=baremetal_gpu_driver()["container_toolkit"],
            join=ClusterJoin(api_server=args.access.join_endpoint, ca_cert_hash=args.access.ca_cert_hash,
                             taint=gpu_taint, kubernetes_minor=args.access.kubernetes_minor),
            ssh_private_key=args.access.ssh_private_key, join_token=args.access.join_token,
            join_after=(token,)), opts=child)
        self.membership = NodeMembership(child_name(name, "nodes"), NodeMembershipArgs(
            servers=servers, site=inventory.site, pool=pool.name, pool_labels=dict(pool.labels),
            ownership=ownership_annotations(inventory.ownership.model_dump(exclude={"purchased"}),
                                            pool.measured_power_w, inventory.ownership.purchased),
            provider=self.provider, joined=self.hosts.joined), opts=child)
        self.register_outputs({"site": inventory.site, "hosts": [server.name for server in servers],
                               "driver_version": pool.driver_version})
