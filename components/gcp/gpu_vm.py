"""GceGpuVm: one Compute Engine VM with GPUs for a single-node job without a cluster (platform gce-gpu-vm), run by
a managed instance group (MIG) of one so that a preempted Spot VM comes back and its job resumes.

- Why a group: a Spot VM must set automaticRestart false (https://cloud.google.com/compute/docs/instances/create-use-spot),
  so a preempted VM stays stopped. A MIG repairs a VM that fails or is stopped or deleted by an action it did not
  initiate, by recreating it (https://cloud.google.com/compute/docs/instance-groups/about-repair), and keeps a
  stateful disk across the recreation ("The MIG preserves stateful disks and reattaches them on VM recreation",
  https://cloud.google.com/compute/docs/instance-groups/preserved-state). The boot disk is that stateful disk: the
  job directory, the fetched code and the done marker survive a preemption, and the startup script runs again at
  the recreated VM's boot (https://cloud.google.com/compute/docs/instances/startup-scripts/linux).
- Autostop acts through the group (stopInstances / deleteInstances, which move the VM out of the target size, so
  the group does not repair it: https://cloud.google.com/compute/docs/reference/rest/v1/instanceGroupManagers/stopInstances),
  allowed to the VM's own service account on this group only: roles/compute.instanceAdmin.v1 on the project under
  an IAM condition on the group's resource name (https://cloud.google.com/iam/docs/conditions-resource-attributes,
  compute.googleapis.com/InstanceGroupManager). The group is sized once (target size 1); later sizes are the
  group's own (autostop changes them), so Pulumi ignores them after creation.
- Updates: a changed template (a new command, code or image) restarts the VM in place (minimal action RESTART,
  replacement RECREATE with no surge, as a MIG with stateful disks requires), keeping the boot disk.
- Accelerator-optimized machine types (A2, A3, G2: the catalog's GCP GPU types) carry their GPUs by machine type,
  so no guest accelerators are set (https://cloud.google.com/compute/docs/gpus/create-gpu-vm-accelerator-optimized).
- GPU VMs cannot live-migrate: onHostMaintenance TERMINATE (https://cloud.google.com/compute/docs/gpus/gpu-host-maintenance).
- Spot: provisioningModel SPOT, instanceTerminationAction STOP (the disk stays for the group to reattach).
- Boot disk from a Deep Learning VM image family (the plan's image, with its source); no external IP: access by
  IAP TCP forwarding (the network's allow-iap-ssh rule for 35.235.240.0/20), packages through the network's Cloud NAT.
- The VM's service account reads the code archive's bucket (training.code gs://...); the stack's bucket grants it
  read and write itself (components/gcp/bucket.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import compute, projects, storage

from accelfit.cloudrules.gcp.names import fitted_name
from accelfit.errors import InputError, problem
from accelfit.spec.job_source import parse_code
from components.gcp.pool_parts import CLOUD_PLATFORM_SCOPE
from components.gpu_vm_script import GpuVmJob, render_startup_script

# Lets the VM stop or delete itself through its group (compute.instanceGroupManagers.update), conditioned on the
# group's resource name.
AUTOSTOP_ROLE = "roles/compute.instanceAdmin.v1"
# Reads the code archive (storage.objects.get and list) in the bucket training.code names.
CODE_READER_ROLE = "roles/storage.objectViewer"
BOOT_DEVICE = "boot"


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
    bucket_name: pulumi.Input[str]
    autostop_idle_minutes: int
    autostop_action: str = "stop"
    spot: bool = False
    job: GpuVmJob = field(default_factory=GpuVmJob)
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


def group_name(name: str) -> str:
    """The managed instance group's name (accelfit.cloudrules.gcp.validation checks the same derived name)."""
    return fitted_name("compute_instance_group_manager", name)


def _scheduling(args: GceGpuVmArgs) -> compute.InstanceTemplateSchedulingArgs:
    if args.spot:
        return compute.InstanceTemplateSchedulingArgs(provisioning_model="SPOT", preemptible=True,
                                                      automatic_restart=False, on_host_maintenance="TERMINATE",
                                                      instance_termination_action="STOP")
    return compute.InstanceTemplateSchedulingArgs(provisioning_model="STANDARD", automatic_restart=True,
                                                  on_host_maintenance="TERMINATE")


def _startup_script(args: GceGpuVmArgs, group: str) -> pulumi.Output[str]:
    return pulumi.Output.from_input(args.bucket_name).apply(lambda bucket: render_startup_script(
        "gcp", args.autostop_idle_minutes, args.autostop_action, args.job, bucket_url=f"gs://{bucket}", group=group))


class GceGpuVm(pulumi.ComponentResource):
    group: compute.InstanceGroupManager
    template: compute.InstanceTemplate

    def __init__(self, name: str, args: GceGpuVmArgs, opts: pulumi.ResourceOptions | None = None):
        validate_gce_gpu_vm_args(name, args)
        super().__init__("accelfit:gcp:GceGpuVm", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        group = group_name(name)
        member = pulumi.Output.concat("serviceAccount:", args.service_account)
        labels = {**args.labels, "autostop-idle-minutes": str(args.autostop_idle_minutes),
                  "autostop-action": args.autostop_action}
        self.template = compute.InstanceTemplate(
            f"{name}-template", project=args.project, machine_type=args.machine_type,
            disks=[compute.InstanceTemplateDiskArgs(
                boot=True, auto_delete=True, device_name=BOOT_DEVICE, source_image=args.image,
                disk_size_gb=args.boot_disk_gb, disk_type=args.boot_disk_type, labels=args.labels)],
            # No access_configs: no external IP.
            network_interfaces=[compute.InstanceTemplateNetworkInterfaceArgs(subnetwork=args.subnetwork)],
            scheduling=_scheduling(args),
            service_account=compute.InstanceTemplateServiceAccountArgs(email=args.service_account,
                                                                       scopes=[CLOUD_PLATFORM_SCOPE]),
            # Secure Boot stays off: it refuses kernel modules not signed with a key the firmware trusts, and the
            # image's NVIDIA driver modules are built on the VM (https://cloud.google.com/compute/docs/gpus/install-drivers-gpu,
            # "Secure Boot"); vTPM and integrity monitoring stay on.
            shielded_instance_config=compute.InstanceTemplateShieldedInstanceConfigArgs(
                enable_secure_boot=False, enable_vtpm=True, enable_integrity_monitoring=True),
            metadata={"startup-script": _startup_script(args, group), "enable-oslogin": "TRUE"},
            labels=labels, tags=["accelfit-gpu-vm"], opts=child)
        self.group = compute.InstanceGroupManager(
            f"{name}-mig", project=args.project, zone=args.zone, name=group,
            base_instance_name=fitted_name("compute_base_instance_name", name), target_size=1,
            versions=[compute.InstanceGroupManagerVersionArgs(instance_template=self.template.self_link,
                                                              name="job")],
            stateful_disks=[compute.InstanceGroupManagerStatefulDiskArgs(
                device_name=BOOT_DEVICE, delete_rule="ON_PERMANENT_INSTANCE_DELETION")],
            update_policy=compute.InstanceGroupManagerUpdatePolicyArgs(
                type="PROACTIVE", minimal_action="RESTART", most_disruptive_allowed_action="REPLACE",
                replacement_method="RECREATE", max_surge_fixed=0, max_unavailable_fixed=1),
            instance_lifecycle_policy=compute.InstanceGroupManagerInstanceLifecyclePolicyArgs(
                default_action_on_failure="REPAIR", force_update_on_repair="YES"),
            wait_for_instances=False,
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["targetSize", "targetStoppedSize"]))
        projects.IAMMember(
            f"{name}-autostop", project=args.project, role=AUTOSTOP_ROLE, member=member,
            condition=projects.IAMMemberConditionArgs(
                title="accelfit autostop", description=f"{group}: stop or delete its own VM through its group",
                expression=f'resource.name == "projects/{args.project}/zones/{args.zone}/instanceGroupManagers/'
                           f'{group}"'),
            opts=child)
        code = parse_code(args.job.code) if args.job.code else None
        if code is not None and code.scheme == "gs":
            storage.BucketIAMMember(f"{name}-code-reader", bucket=code.bucket, role=CODE_READER_ROLE,
                                    member=member, opts=child)
        self.group_name = self.group.name
        self.register_outputs({"group_name": self.group.name})
