"""HostPreparation: each server prepared over SSH with the pulumi-command provider, in order: preflight, apt
repositories, kubeadm prerequisites, NVIDIA driver, container toolkit (one remote command, five scripts), then the
cluster join (its own command, the only one that receives a secret: the join token, on standard input).

Scripts are idempotent, so a changed script (a pinned version moved) runs again: with no `update` command set,
pulumi-command runs `create` again when the inputs change ("If an `update` command isn't provided, then `create`
will also be run when the resource's inputs are modified": pulumi_command 1.2.1, remote/command.py, as_of
2026-11-23). Setting `update` to the same text would only store every script twice per server (in the state,
the preview and memory: about 36 kB per server, benchmarks/bench_baremetal.py). Nothing runs on delete: removing
a server from the plan must not wipe its driver or evict it from the cluster. One component for all servers, two commands each,
to keep a 1,000-server preview fast (benchmarks/).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_command import remote

from accelfit.spec.inventory import Server
from components.baremetal.scripts import ClusterJoin, host_scripts, remote_command
from components.common import child_name

# containerd comes with the kubernetes step, before the toolkit configures it for the NVIDIA runtime.
PREPARE_STEPS = ("preflight", "repositories", "kubernetes", "driver", "toolkit")


@dataclass(frozen=True)
class HostPreparationArgs:
    servers: tuple[Server, ...]
    driver_version: str
    toolkit_version: str
    join: ClusterJoin
    ssh_private_key: pulumi.Input[str]
    join_token: pulumi.Input[str]
    join_after: tuple[pulumi.Resource, ...] = field(
        default=(), metadata={"doc": "What makes the token valid in the cluster (the bootstrap-token Secret)."})


def prepare_command(scripts: dict[str, str]) -> str:
    """The preparation scripts, each as root, stopping at the first that fails."""
    return " && ".join(remote_command(scripts[step], step) for step in PREPARE_STEPS)


class HostPreparation(pulumi.ComponentResource):
    joined: dict[str, remote.Command]
    """Server name -> its join command (cluster membership waits on it)."""

    def __init__(self, name: str, args: HostPreparationArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:baremetal:HostPreparation", name, None, opts)
        self.joined = {}
        for server in args.servers:
            scripts = host_scripts(server, args.driver_version, args.toolkit_version, args.join)
            connection = remote.ConnectionArgs(host=server.address, user=server.ssh_user,
                                               private_key=args.ssh_private_key)
            prepare = prepare_command(scripts)
            prepared = remote.Command(child_name(name, f"{server.name}-prepare"), connection=connection,
                                      create=prepare, opts=pulumi.ResourceOptions(parent=self))
            join = remote_command(scripts["join"], "join")
            self.joined[server.name] = remote.Command(
                child_name(name, f"{server.name}-join"), connection=connection, create=join,
                stdin=args.join_token,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[prepared, *args.join_after]))
        self.register_outputs({"hosts": [server.name for server in args.servers]})
