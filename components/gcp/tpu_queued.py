"""TpuQueuedSlices: one Cloud TPU queued resource that asks for N slices together (multislice), so the job
starts when all its capacity is there rather than slice by slice.

pulumi-gcp 10.2.0's `V2QueuedResource` lacks spot, guaranteed/reservation, queueing-policy, topology
(`accelerator_config`), labels, data disks, the API's `multisliceParams` and the node `serviceAccount`
(checked against the SDK's V2QueuedResourceTpuNodeSpecNodeArgs: runtime_version, accelerator_type,
description, network_config only). So:
- slices are on-demand, named by accelerator type (whose default topology applies), unlabelled and diskless;
  multislice is N node specs in one request rather than multisliceParams;
- the slices run as the project's default Compute Engine service account, which the TPU API uses when none is
  given. It is not accelfit's node account: it has no access to the data bucket, and in older projects it holds
  Editor on the whole project. This component therefore requires that account's email (`runtime_service_account`,
  PROJECT_NUMBER-compute@developer.gserviceaccount.com) and grants it object read/write on the data bucket, so
  the choice is explicit. Plans never use this path (validation.py refuses `queued` slices: a plan does not know
  the project number); compose it by hand when a queued multislice is worth that trade.
https://cloud.google.com/tpu/docs/queued-resources, https://cloud.google.com/compute/docs/access/service-accounts#default_service_account"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pulumi
from pulumi_gcp import storage, tpu

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
    runtime_service_account: str | None = None
    """The project's default Compute Engine service account, which the slices run as (see the module doc)."""
    data_bucket: pulumi.Input[str] | None = None
    """Bucket the slices read and write; the runtime account gets roles/storage.objectUser on it."""
    description: str = ""


DEFAULT_COMPUTE_ACCOUNT = re.compile(r"^[0-9]+-compute@developer\.gserviceaccount\.com\Z")


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
    if args.runtime_service_account is None or not DEFAULT_COMPUTE_ACCOUNT.match(args.runtime_service_account):
        problems.append(problem(
            where, "runtime_service_account",
            "queued-resource slices run as the project's default Compute Engine service account (pulumi-gcp 10.2.0 "
            "cannot set another), so it must be named to be granted access",
            "pass PROJECT_NUMBER-compute@developer.gserviceaccount.com, or use TpuVmSlice (accelfit's own account)",
            args.runtime_service_account))
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
        if args.data_bucket is not None:
            storage.BucketIAMMember(f"{name}-runtime-object-user", bucket=args.data_bucket,
                                    role="roles/storage.objectUser",
                                    member=f"serviceAccount:{args.runtime_service_account}", opts=child)

        self.register_outputs({"queued_resource": self.queued_resource.name,
                               "node_ids": [item.node_id for item in args.slices]})
