"""TpuQueuedSlices: one Cloud TPU queued resource that asks for N slices together (multislice), so the job
starts when all its capacity is there rather than slice by slice.

pulumi-gcp 10.2.0's `V2QueuedResource` lacks spot, guaranteed/reservation, queueing-policy, topology
(`accelerator_config`), labels and data disks (reference/pulumi.md 3.1). Slices here are therefore on-demand,
named by accelerator type (whose default topology applies), unlabelled and diskless; plans that need any of
those use `TpuVmSlice` (one `V2Vm` per slice) instead, and `validation.py` refuses the mix."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import tpu

from accelfit.errors import InputError, problem


@dataclass(frozen=True)
class QueuedSlice:
    node_id: str
    """TPU VM name of the slice, e.g. llm-pretrain-slice-0."""
    accelerator_type: str
    """e.g. v5p-128."""
    runtime_version: str


@dataclass(frozen=True)
class TpuQueuedSlicesArgs:
    project: str
    zone: str
    slices: tuple[QueuedSlice, ...]
    network: pulumi.Input[str]
    subnetwork: pulumi.Input[str]
    description: str = ""


def validate_queued_args(name: str, args: TpuQueuedSlicesArgs) -> None:
    where = f"TpuQueuedSlices {name}"
    problems = []
    if not args.slices:
        problems.append(problem(where, "slices", "a queued resource needs at least one slice", "add a slice"))
    ids = [item.node_id for item in args.slices]
    if len(set(ids)) != len(ids):
        problems.append(problem(where, "slices", "two slices share a node_id", "name each slice", ids))
    if not args.project:
        problems.append(problem(where, "project", "required", "set the GCP project id (gcp:project)"))
    if problems:
        raise InputError(problems)


class TpuQueuedSlices(pulumi.ComponentResource):
    queued_resource: tpu.V2QueuedResource

    def __init__(self, name: str, args: TpuQueuedSlicesArgs, opts: pulumi.ResourceOptions | None = None):
        validate_queued_args(name, args)
        super().__init__("accelfit:gcp:TpuQueuedSlices", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        network = tpu.V2QueuedResourceTpuNodeSpecNodeNetworkConfigArgs(
            network=args.network, subnetwork=args.subnetwork, enable_external_ips=False)
        node_specs = [
            tpu.V2QueuedResourceTpuNodeSpecArgs(
                parent=f"projects/{args.project}/locations/{args.zone}", node_id=item.node_id,
                node=tpu.V2QueuedResourceTpuNodeSpecNodeArgs(
                    runtime_version=item.runtime_version, accelerator_type=item.accelerator_type,
                    network_config=network, description=args.description or None))
            for item in args.slices]
        self.queued_resource = tpu.V2QueuedResource(
            f"{name}-qr", zone=args.zone, project=args.project,
            tpu=tpu.V2QueuedResourceTpuArgs(node_specs=node_specs), opts=child)

        self.register_outputs({"queued_resource": self.queued_resource.name,
                               "node_ids": [item.node_id for item in args.slices]})
