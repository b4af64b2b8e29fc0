"""HostPreparation: each server prepared and joined over SSH with the pulumi-command provider, in one remote command
per server: preflight, apt repositories, kubeadm prerequisites, NVIDIA driver, container toolkit, then the cluster
join. The join is the only step that reads standard input, where the join token (a secret) arrives; the five
preparation steps run with standard input closed, so none of them can read the token.

One command per server, not one to prepare and one to join (issue 39): every resource costs the Pulumi SDK about
the same (registration, state, preview), so two resources per server instead of three cuts a 10,000-server
preview by a third (benchmarks/bench_baremetal.py). A remote command holds one SSH connection, so a class of
identical servers cannot share one: each server is still prepared, joined and reported on its own.

Scripts are idempotent, so a changed script (a pinned version moved) runs again: with no `update` command set,
pulumi-command runs `create` again when the inputs change ("If an `update` command isn't provided, then `create`
will also be run when the resource's inputs are modified": pulumi_command 1.2.1, remote/command.py, as_of
2026-11-23). The join is idempotent too (a host with /etc/kubernetes/kubelet.conf is left alone), so a driver
upgrade re-runs the preparation and skips the join. Setting `update` to the same text would only store every
script twice per server (in the state, the preview and memory: about 36 kB per server). Nothing runs on delete:
removing a server from the plan must not wipe its driver or evict it from the cluster."""

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
    """The preparation scripts, each as root with standard input closed (the join token is for the join alone),
    then the join; stopping at the first that fails."""
    prepare = [f"{remote_command(scripts[step], step)} </dev/null" for step in PREPARE_STEPS]
    return " && ".join([*prepare, remote_command(scripts["join"], "join")])


class HostPreparation(pulumi.ComponentResource):
    joined: dict[str, remote.Command]
    """Server name -> its command, which ends with the join (cluster membership waits on it)."""

    def __init__(self, name: str, args: HostPreparationArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:baremetal:HostPreparation", name, None, opts)
        self.joined = {}
        for server in args.servers:
            scripts = host_scripts(server, args.driver_version, args.toolkit_version, args.join)
            connection = remote.ConnectionArgs(host=server.address, user=server.ssh_user,
                                               private_key=args.ssh_private_key)
            # The name of the former preparation command, so an upgrade updates it in place (create runs again:
            # the preparation is idempotent and the join skips a joined host); the former join commands are
            # deleted, which runs nothing on the host (no delete command).
            self.joined[server.name] = remote.Command(
                child_name(name, f"{server.name}-prepare"), connection=connection,
                create=prepare_command(scripts), stdin=args.join_token,
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.join_after)))
        self.register_outputs({"hosts": [server.name for server in args.servers]})
