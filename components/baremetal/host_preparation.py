"""HostPreparation: each server prepared and joined over SSH with the pulumi-command provider, in one remote command
per server: preflight, apt repositories, kubeadm prerequisites, NVIDIA driver, container toolkit, then the cluster
join. The join is the only step that reads standard input, where the join token (a secret) arrives; the five
preparation steps run with standard input closed, so none of them can read the token.

One command per server, not one to prepare and one to join (issue 39): every resource costs the Pulumi SDK about
the same (registration, state, preview), so two resources per server instead of three cuts a 10,000-server
preview by a third (benchmarks/bench_baremetal.py). A remote command holds one SSH connection, so a class of
identical servers cannot share one: each server is still prepared, joined and reported on its own.

One command text per class of identical servers (issue 39): the scripts depend on a server only through its class
(scripts.HostClass), and the node's name reaches the command as the first line of standard input, before the join
token; the command reads it and hands it to each script as its first argument. So `create` is the same string for
every server of a class: one copy in memory (and in the preview's recording) instead of one per server, which took
a 10,000-server preview from 2.6 GB to under 2 GB (benchmarks/bench_baremetal.py). The name goes in with the
token, so the state shows it as a secret; it is the command's resource name too (`<server>-prepare`).

Scripts are idempotent, so a changed script (a pinned version moved) runs again: with no `update` command set,
pulumi-command runs `create` again when the inputs change ("If an `update` command isn't provided, then `create`
will also be run when the resource's inputs are modified": pulumi_command 1.2.1, remote/command.py, as_of
2026-11-23). The join is idempotent too (a host with /etc/kubernetes/kubelet.conf is left alone), so a driver
upgrade re-runs the preparation and skips the join. Setting `update` to the same text would only store every
script twice per server (in the state, the preview and memory: about 36 kB per server). Nothing runs on delete:
removing a server from the plan must not wipe its driver or evict it from the cluster."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import pulumi
from pulumi_command import remote

from accelfit.spec.inventory import Server
from components.baremetal.scripts import (
    PARTS, ClusterJoin, HostClass, host_class, host_scripts, remote_command, shipped, shipped_part,
)
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


# Run by the SSH user's login shell (any POSIX shell): the first line of standard input is the node's name.
READ_NODE_NAME = "IFS= read -r node_name"


def prepare_command(scripts: dict[str, str]) -> str:
    """The node's name read from standard input and the shared parts set once (scripts.PARTS), then the preparation
    scripts, each as root with the name and the parts as its arguments and standard input closed (the join token,
    which follows the name, is for the join alone), then the join; stopping at the first that fails."""
    parts = [f"part_{number}={shlex.quote(shipped_part(part))}" for number, part in enumerate(PARTS, start=2)]
    arguments = " ".join(['"$node_name"', *(f'"$part_{number}"' for number in range(2, len(PARTS) + 2))])
    prepare = [f"{remote_command(shipped(scripts[step]), step)} {arguments} </dev/null" for step in PREPARE_STEPS]
    join = f'{remote_command(shipped(scripts["join"]), "join")} {arguments}'
    return " && ".join([READ_NODE_NAME, *parts, *prepare, join])


def command_stdin(node_name: str, join_token: pulumi.Input[str]) -> pulumi.Output[str]:
    """What the command reads: the node's name on the first line, then the join token (secret, so the whole is)."""
    return pulumi.Output.concat(node_name, "\n", join_token)


class HostPreparation(pulumi.ComponentResource):
    joined: dict[str, remote.Command]
    """Server name -> its command, which ends with the join (cluster membership waits on it)."""

    def __init__(self, name: str, args: HostPreparationArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:baremetal:HostPreparation", name, None, opts)
        self.joined = {}
        commands: dict[HostClass, str] = {}  # one text per class, shared by its servers
        for server in args.servers:
            host = host_class(server)
            if host not in commands:
                commands[host] = prepare_command(
                    host_scripts(host, args.driver_version, args.toolkit_version, args.join))
            connection = remote.ConnectionArgs(host=server.address, user=server.ssh_user,
                                               private_key=args.ssh_private_key)
            # The name of the former preparation command, so an upgrade updates it in place (create runs again:
            # the preparation is idempotent and the join skips a joined host); the former join commands are
            # deleted, which runs nothing on the host (no delete command).
            self.joined[server.name] = remote.Command(
                child_name(name, f"{server.name}-prepare"), connection=connection,
                create=commands[host], stdin=command_stdin(server.name, args.join_token),
                # The node it joins, in plain text for the state and the ordering check (accelfit/ordering);
                # it never reaches the host, and a new name is a new resource anyway.
                triggers=[server.name],
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.join_after)))
        self.register_outputs({"hosts": [server.name for server in args.servers]})
