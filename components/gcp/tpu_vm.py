"""TpuVmSlice: one Cloud TPU slice as TPU VMs (`tpu.V2Vm`): accelerator type and topology, the runtime version
that fits the framework, no external IPs, spot or reserved scheduling, and an optional data disk.

The data disk is for single-host slices only: the disk type the generation accepts (v6e: Hyperdisk Balanced;
v4/v5e/v5p: Balanced Persistent Disk), attached read-write so the VM can fill it (format and mount it on first
boot). A multi-host slice could attach it only read-only, and a new disk is blank, so it is refused there
(tpu_disks.py; https://cloud.google.com/tpu/docs/setup-persistent-disk)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import compute, tpu

from accelfit.errors import InputError, problem
from accelfit.catalog import load_catalog
from accelfit.cloudrules.gcp import tpu_disks, tpu_rules
from components.gcp.pool_parts import CLOUD_PLATFORM_SCOPE


@dataclass(frozen=True)
class TpuVmSliceArgs:
    zone: str
    accelerator_config_type: str
    """V2Vm accelerator_config.type: V4, V5LITE_POD, V5P or V6E."""
    topology: str
    runtime_version: str
    network: pulumi.Input[str]
    subnetwork: pulumi.Input[str]
    service_account: pulumi.Input[str]
    spot: bool = False
    reserved: bool = False
    data_disk_gb: int = 0
    data_disk_type: str | None = None
    """None: the first type the generation accepts (tpu_vm_disks.yaml)."""
    labels: dict[str, str] = field(default_factory=dict)
    description: str = ""


def validate_tpu_vm_args(name: str, args: TpuVmSliceArgs) -> None:
    where = f"TpuVmSlice {name}"
    problems = []
    if args.spot and args.reserved:
        problems.append(problem(where, "reserved", "a slice is either spot or reserved", "set one of them"))
    if args.accelerator_config_type not in ("V2", "V3", "V4", "V5LITE_POD", "V5P", "V6E"):
        problems.append(problem(where, "accelerator_config_type", "not a TPU v2 API accelerator type",
                                "use V4, V5LITE_POD, V5P or V6E", args.accelerator_config_type))
    catalog = load_catalog()  # cached per process
    zone_problem = tpu_rules.component_zone_problem(
        where, tpu_rules.generation_of(catalog, accelerator_config_type=args.accelerator_config_type), args.zone,
        catalog)
    if zone_problem:
        problems.append(zone_problem)
    if args.data_disk_gb:
        reason = tpu_disks.data_disk_problem(args.accelerator_config_type, args.topology, args.data_disk_type)
        if reason:
            problems.append(problem(where, "data_disk_gb", *reason, args.data_disk_gb))
    if not args.runtime_version:
        problems.append(problem(where, "runtime_version", "required",
                                "set the TPU software version, e.g. v2-alpha-tpuv5"))
    if problems:
        raise InputError(problems)


class TpuVmSlice(pulumi.ComponentResource):
    vm: tpu.V2Vm

    def __init__(self, name: str, args: TpuVmSliceArgs, opts: pulumi.ResourceOptions | None = None):
        validate_tpu_vm_args(name, args)
        super().__init__("accelfit:gcp:TpuVmSlice", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        data_disks = None
        if args.data_disk_gb:
            disk_type = args.data_disk_type or tpu_disks.disk_rules()[args.accelerator_config_type].default_type
            disk = compute.Disk(f"{name}-data", zone=args.zone, size=args.data_disk_gb, type=disk_type,
                                labels=args.labels, opts=child)
            # One VM (single-host slice): read-write, so the VM can write the data it then reads.
            data_disks = [tpu.V2VmDataDiskArgs(source_disk=disk.id, mode="READ_WRITE")]

        self.vm = tpu.V2Vm(
            f"{name}-vm", zone=args.zone, runtime_version=args.runtime_version,
            accelerator_config=tpu.V2VmAcceleratorConfigArgs(type=args.accelerator_config_type,
                                                             topology=args.topology),
            network_config=tpu.V2VmNetworkConfigArgs(network=args.network, subnetwork=args.subnetwork,
                                                     enable_external_ips=False),
            scheduling_config=tpu.V2VmSchedulingConfigArgs(spot=args.spot, reserved=args.reserved),
            service_account=tpu.V2VmServiceAccountArgs(email=args.service_account, scopes=[CLOUD_PLATFORM_SCOPE]),
            data_disks=data_disks, labels=args.labels, description=args.description or None, opts=child)

        self.vm_name = self.vm.name
        self.register_outputs({"vm_name": self.vm.name})
