"""NodeMembership: each joined server's node labelled (GPU model and count, rack, site, pool) through the
Kubernetes API, with server-side apply patches that own only these labels.

The patch sets no taints. `spec.taints` is an atomic list: right after the join the node-lifecycle controller has
added `node.kubernetes.io/not-ready` to it, so a patch that also owns the list conflicts (409) and its labels,
which the Kueue flavor selects, are never set. The GPU taint is registered by the join itself (kubeadm
JoinConfiguration `nodeRegistration.taints`, templates/join.sh.tmpl; "the taints the Node API object should be
registered with": https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta4/#kubeadm-k8s-io-v1beta4-NodeRegistrationOptions),
so no pod lands on the node untainted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelfit.spec.inventory import Server
from components.common import child_name


@dataclass(frozen=True)
class NodeMembershipArgs:
    servers: tuple[Server, ...]
    site: str
    pool: str
    pool_labels: Mapping[str, str] = field(metadata={"doc": "The plan's labels for the pool's nodes."})
    provider: k8s.Provider
    joined: Mapping[str, pulumi.Resource] = field(
        default_factory=dict, metadata={"doc": "Server name -> what makes its node exist (the join command)."})
    ownership: Mapping[str, str] = field(
        default_factory=dict, metadata={"doc": "The inventory's ownership figures as node annotations: the preview "
                                               "prices each owned node with them (accelfit.pricing.onprem)."})


def node_labels(server: Server, site: str, pool: str, pool_labels: Mapping[str, str]) -> dict[str, str]:
    """The inventory's extra labels first, so accelfit's own labels (what Kueue and the policies read) win."""
    labels = {**server.labels, **pool_labels,
              "accelfit.io/pool": pool, "accelfit.io/site": site,
              "accelfit.io/gpu-model": server.gpu_model, "accelfit.io/gpu-count": str(server.gpu_count),
              # The host's shape, for schedulers and for the balance policy (per-GPU CPU, memory, NVMe, network
              # against accelfit/planner/data/balance.yaml), which sees resources, not the inventory.
              "accelfit.io/cpu-cores": str(server.cpu_cores), "accelfit.io/memory-gib": f"{server.memory_gib:g}",
              "accelfit.io/nvme-tb": f"{server.nvme_tb:g}", "accelfit.io/network-gbps": f"{server.network_gbps:g}",
              # Well-known topology labels: topology spread constraints and Kueue's topology-aware scheduling
              # read these to keep a job's pods within a rack.
              "topology.kubernetes.io/region": site}
    if server.rack:
        labels["accelfit.io/rack"] = server.rack
        labels["topology.kubernetes.io/zone"] = server.rack
    return labels


class NodeMembership(pulumi.ComponentResource):
    def __init__(self, name: str, args: NodeMembershipArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:baremetal:NodeMembership", name, None, opts)
        for server in args.servers:
            joined = args.joined.get(server.name)
            k8s.core.v1.NodePatch(
                child_name(name, server.name),
                metadata=k8s.meta.v1.ObjectMetaPatchArgs(
                    name=server.name, labels=node_labels(server, args.site, args.pool, args.pool_labels),
                    annotations=dict(args.ownership) or None),
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider,
                                            depends_on=[joined] if joined is not None else []))
        self.register_outputs({"nodes": [server.name for server in args.servers]})
