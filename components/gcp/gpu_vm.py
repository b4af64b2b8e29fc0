"""GceGpuVm: one Compute Engine VM with GPUs for a single-node job without a cluster (platform gce-gpu-vm).

- Accelerator-optimized machine types (A2, A3, G2: the catalog's GCP GPU types) carry their GPUs by machine type,
  so no guest accelerators are set (https://cloud.google.com/compute/docs/gpus/create-gpu-vm-accelerator-optimized).
- GPU VMs cannot live-migrate: onHostMaintenance TERMINATE (https://cloud.google.com/compute/docs/gpus/gpu-host-maintenance).
- Spot: provisioningModel SPOT with instanceTerminationAction STOP (autostop_action stop) or DELETE, and
  automaticRestart false, as Spot VMs require (https://cloud.google.com/compute/docs/instances/create-use-spot).
- Boot disk from a Deep Learning VM image family (the plan's image, with its source); no external IP: access by
  IAP TCP forwarding (the network's allow-iap-ssh rule for 35.235.240.0/20), packages through the network's Cloud NAT.
- The startup-script metadata runs at every boot (https://cloud.google.com/compute/docs/instances/startup-scripts/linux)
  and installs the autostop idle check (components/gpu_vm_script.py).
- autostop_action delete: the VM's own service account may delete this instance only (roles/compute.instanceAdmin.v1
  bound on the instance, not the project).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import compute

from accelfit.errors import InputError, problem
from components.gcp.pool_parts import CLOUD_PLATFORM_SCOPE
from components.gpu_vm_script import render_startup_script

# Lets the VM delete itself (autostop_action: delete): compute.instances.delete on this instance only.
SELF_DELETE_ROLE = "roles/compute.instanceAdmin.v1"


@dataclass(frozen=True)
class GceGpuVmArgs:
    project: str
    zone: str
    machine_type: str
    image: str
    boot_disk_gb: int
    boot_disk_type: str
    subnetwork: pulumi.Input[str]
    service_account: pulumi.Input[str]
    autostop_idle_minutes: int
    autostop_action: str = "stop"
    spot: bool = False
    command: str | None = None
    labels: dict[str, str] = field(default_factory=dict)


def validate_gce_gpu_vm_args(name: str, args: GceGpuVmArgs) -> None:
    where = f"GceGpuVm {name}"
    problems = []
    if args.autostop_action not in ("stop", "delete"):
        problems.append(problem(where, "autostop_action", "must be stop or delete", "set stop or delete",
                                args.autostop_action))
    if args.autostop_idle_minutes < 5:
        problems.append(problem(where, "autostop_idle_minutes", "below 5 minutes a booting job looks idle",
                                "use 5 or more", args.autostop_idle_minutes))
    if args.boot_disk_gb < 50:
        problems.append(problem(where, "boot_disk_gb", "a Deep Learning VM image needs at least 50 GB",
                                "use 50 or more", args.boot_disk_gb))
    if not args.image.startswith("projects/"):
        problems.append(problem(where, "image", "expected projects/<project>/global/images/family/<family>",
                                "name the image family with its project", args.image))
    if problems:
        raise InputError(problems)


class GceGpuVm(pulumi.ComponentResource):
    instance: compute.Instance

    def __init__(self, name: str, args: GceGpuVmArgs, opts: pulumi.ResourceOptions | None = None):
        validate_gce_gpu_vm_args(name, args)
        super().__init__("accelfit:gcp:GceGpuVm", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        termination = "DELETE" if args.autostop_action == "delete" else "STOP"
        scheduling = (compute.InstanceSchedulingArgs(provisioning_model="SPOT", preemptible=True,
                                                     automatic_restart=False, on_host_maintenance="TERMINATE",
                                                     instance_termination_action=termination)
                      if args.spot else
                      compute.InstanceSchedulingArgs(provisioning_model="STANDARD", automatic_restart=True,
                                                     on_host_maintenance="TERMINATE"))
        labels = {**args.labels, "autostop-idle-minutes": str(args.autostop_idle_minutes),
                  "autostop-action": args.autostop_action}
        self.instance = compute.Instance(
            f"{name}-vm", project=args.project, zone=args.zone, machine_type=args.machine_type,
            boot_disk=compute.InstanceBootDiskArgs(auto_delete=True, initialize_params=(
                compute.InstanceBootDiskInitializeParamsArgs(image=args.image, size=args.boot_disk_gb,
                                                             type=args.boot_disk_type, labels=args.labels))),
            # No access_configs: no external IP.
            network_interfaces=[compute.InstanceNetworkInterfaceArgs(subnetwork=args.subnetwork)],
            scheduling=scheduling,
            service_account=compute.InstanceServiceAccountArgs(email=args.service_account,
                                                               scopes=[CLOUD_PLATFORM_SCOPE]),
            # Secure Boot stays off: it refuses kernel modules not signed with a key the firmware trusts, and the
            # image's NVIDIA driver modules are built on the VM (https://cloud.google.com/compute/docs/gpus/install-drivers-gpu,
            # "Secure Boot"); vTPM and integrity monitoring stay on.
            shielded_instance_config=compute.InstanceShieldedInstanceConfigArgs(
                enable_secure_boot=False, enable_vtpm=True, enable_integrity_monitoring=True),
            metadata={"startup-script": render_startup_script("gcp", args.autostop_idle_minutes,
                                                              args.autostop_action, args.command),
                      "enable-oslogin": "TRUE"},
            labels=labels, tags=["accelfit-gpu-vm"], allow_stopping_for_update=True, opts=child)
        if args.autostop_action == "delete":
            compute.InstanceIAMMember(
                f"{name}-self-delete", project=args.project, zone=args.zone, instance_name=self.instance.name,
                role=SELF_DELETE_ROLE, member=pulumi.Output.concat("serviceAccount:", args.service_account),
                opts=child)
        self.instance_name = self.instance.name
        self.register_outputs({"instance_name": self.instance.name})
