"""GPU VMs without a cluster (design.md section 4: `gce-gpu-vm`, `ec2-gpu-vm`): which jobs may run on one, what
the VM is (image, boot disk, spot, autostop) and what it costs as planned: the run, then the idle tail until
autostop fires, the boot disk, and no cluster fee or system pool. Pure; the data is gpu_vms.yaml."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from accelfit.buying import is_preemptible, term_hours
from accelfit.catalog.models import Catalog
from accelfit.clouds import all_clouds, cloud_named
from accelfit.planner.model import GpuVmPlan
from accelfit.planner.options import Offer
from accelfit.pricing.figures import Part, RunWindow, vm_part
from accelfit.pricing.node_disks import disk_hourly_usd, gke_boot_disk_type
from accelfit.durations import duration
from accelfit.spec import Orchestration, WorkloadSpec
from accelfit.spec.job_source import job_cloud

DATA = Path(__file__).parent / "data" / "gpu_vms.yaml"
SINGLE_NODE = "single-node"  # the rejection rule for a job one VM cannot hold or finish in time


@lru_cache(maxsize=1)
def gpu_vm_data() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(DATA.read_text(encoding="utf-8"))  # the shipped gpu_vms.yaml: a mapping
    return data


def vm_platforms() -> frozenset[str]:
    """The GPU VM platform of every registered cloud that has one (gce-gpu-vm, ec2-gpu-vm)."""
    return frozenset(cloud.vm_platform for cloud in all_clouds() if cloud.vm_platform)


def gpu_platforms(spec: WorkloadSpec, cloud: str) -> tuple[str, ...]:
    """The platforms a cloud GPU may be offered on under placement.orchestration."""
    orchestration = spec.placement.orchestration
    offered = cloud_named(cloud)
    out = []
    if orchestration in (Orchestration.kubernetes, Orchestration.any) and offered.cluster_platform:
        out.append(offered.cluster_platform)
    if orchestration in (Orchestration.vms, Orchestration.any) and offered.vm_platform:
        out.append(offered.vm_platform)
    return tuple(out)


def vm_rejection(spec: WorkloadSpec) -> tuple[str, str] | None:
    """(rule, reason) when the workload cannot run on one GPU VM whatever its size."""
    if spec.inference is not None:
        return ("vm-serving", "GPU VMs run training and fine-tuning jobs that end; serving needs the model server, "
                              "autoscaler and route accelfit builds on Kubernetes: set placement.orchestration: "
                              "kubernetes (or any)")
    return None


def job_rejection(spec: WorkloadSpec, platform: str, pricing: str) -> tuple[str, str] | None:
    """(rule, reason) when the platform cannot run the job the spec names (training.command, code, image): only a
    GPU VM's startup script runs it, with the identity of the cloud that holds its code or image; and on EC2 a Spot
    VM resumes only when it stops on interruption."""
    training = spec.training
    if training is None or not training.runs_job:
        return None
    vm_cloud = next((cloud for cloud in all_clouds() if cloud.vm_platform == platform), None)
    if vm_cloud is None:
        return ("job-on-vm", "training.command/code/image are run by a GPU VM's startup script; on "
                             f"{platform} nothing runs them (submit the job yourself there), so only GPU VMs qualify")
    cloud = vm_cloud.name
    source = job_cloud(training.code, training.image)
    if source is not None and source[1] != cloud:
        return ("job-source", f"training.{source[0]} is read with the VM's {source[1]} identity, and {platform} runs "
                              f"in {cloud}; copy it to {cloud} (or use a public git repository or registry)")
    if platform == "ec2-gpu-vm" and is_preemptible(pricing) and spec.placement.autostop_action.value == "delete":
        # https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/interruption-behavior.html: only a persistent Spot
        # request that stops on interruption is restarted by EC2 ("Amazon EC2 restarts the stopped instance when
        # capacity is available"); persistent requests need interruption behavior stop or hibernate.
        return ("spot-resume", "autostop_action delete launches a one-time Spot request that terminates on "
                               "interruption, so the job would not resume; EC2 restarts an interrupted Spot instance "
                               "only when it stops: set placement.autostop_action: stop")
    return None


def single_node_reason(machine: str, reason: str) -> str:
    return (f"one {machine} VM is not enough ({reason}); a GPU VM runs a single-node job, so a job that needs "
            "several nodes stays on Kubernetes: set placement.orchestration: kubernetes (or any)")


def idle_tail_hours(spec: WorkloadSpec) -> float:
    """How long the VM bills after the job ends, before the idle check stops it."""
    return spec.placement.autostop_idle_minutes / 60.0


def boot_disk(catalog: Catalog, offer: Offer) -> tuple[str, str, float]:
    """(disk type the component sets, priced service, hourly USD) of the VM's boot disk."""
    size = gpu_vm_data()["boot_disk_gb"]
    kind, service, _ = boot_disk_type_only(offer)
    found = catalog.service_price(offer.cloud, service, offer.region)
    return kind, service, disk_hourly_usd(size, found.usd if found else 0.0)


def vm_parts(spec: WorkloadSpec, catalog: Catalog, offer: Offer, run: RunWindow | None) -> tuple[Part, ...]:
    """The VM and its boot disk (accelfit.pricing.resources prices the built instance the same way)."""
    _, _, disk_hourly = boot_disk(catalog, offer)
    tail = idle_tail_hours(spec)
    action = spec.placement.autostop_action.value
    ran = (f"the {duration(run.compute_hours)} run, {run.start_hours:g} h of boot and {tail * 60:g} min idle "
           f"until autostop {action}s it" if run else "all month")
    term = term_hours(offer.pricing)
    kind = boot_disk_type_only(offer)[0]
    kept = "kept while the VM is stopped" if action == "stop" else "deleted with it"
    note = (f"1 × {offer.machine} ({offer.pricing}) for {ran}, with its {gpu_vm_data()['boot_disk_gb']} GB {kind} "
            f"boot disk ({kept})" + (f"; {offer.pricing} bills the whole term" if term else ""))
    return (vm_part("compute", offer.unit_hourly_usd, disk_hourly, action, run, tail, term, note),)


def gpu_vm_plan(spec: WorkloadSpec, offer: Offer) -> GpuVmPlan:
    data = gpu_vm_data()
    kind, _, _ = boot_disk_type_only(offer)
    image, source = _image(data[offer.cloud])
    return GpuVmPlan(machine_type=offer.machine, accelerator=offer.accelerator.name,
                     gpus=offer.devices_per_unit, zone=offer.zones[0], spot=is_preemptible(offer.pricing),
                     boot_disk_gb=data["boot_disk_gb"], boot_disk_type=kind, image=image,
                     image_source=" ".join(str(source).split()) + f" (as of {data['as_of']})",
                     autostop_idle_minutes=spec.placement.autostop_idle_minutes,
                     autostop_action=spec.placement.autostop_action.value,
                     command=spec.training.command if spec.training is not None else None,
                     code=spec.training.code if spec.training is not None else None,
                     container_image=spec.training.image if spec.training is not None else None)


def _image(vm: dict[str, Any]) -> tuple[str, str]:
    """(image the VM boots, its source) from the cloud's gpu_vms.yaml section: an SSM parameter a launch resolves
    (EC2), or an image family in a project (Compute Engine)."""
    if "ssm_parameter" in vm:
        return f"resolve:ssm:{vm['ssm_parameter']}", vm["image_source"]
    return f"projects/{vm['image_project']}/global/images/family/{vm['image_family']}", vm["image_source"]


def boot_disk_type_only(offer: Offer) -> tuple[str, str, float]:
    """(disk type the component sets, priced service, 0): the cloud's root volume where its gpu_vms.yaml section
    names one (EC2: gp3, priced as its node disk service), else the machine family's boot-disk rule (GCE)."""
    vm = gpu_vm_data()[offer.cloud]
    if "root_volume_type" in vm:
        return vm["root_volume_type"], cloud_named(offer.cloud).node_disk_service, 0.0
    kind = gke_boot_disk_type(offer.instance.family if offer.instance else "")
    return kind, kind, 0.0


def vm_reasons(spec: WorkloadSpec, offer: Offer) -> tuple[str, ...]:
    """What the plan says about a GPU VM: autostop, access, spot."""
    minutes = spec.placement.autostop_idle_minutes
    action = spec.placement.autostop_action.value
    access = cloud_named(offer.cloud).vm_access
    out = [f"One VM, no cluster: no control-plane fee and no system pool. Autostop: an on-host check of nvidia-smi "
           f"every minute {action}s the VM after {minutes} min with idle GPUs; the plan prices that idle tail. "
           f"No public IP: reach it through {access}."]
    if is_preemptible(offer.pricing):
        back = cloud_named(offer.cloud).vm_spot_recovery
        out.append(f"Spot: the cloud may reclaim the VM at any time; {back}, and the job starts again at boot, so "
                   "the command must resume from its last checkpoint ($ACCELFIT_BUCKET_URL or the job directory). "
                   "The run time includes the preemptions' cost (see Spot interruptions).")
    training = spec.training
    if training is not None and not training.runs_job:
        out.append("No training.command or image: the VM boots idle (ready for you to log in) and autostop stops it "
                   f"after {minutes} min.")
    elif training is not None:
        source = (f"fetches {training.code} into the job directory, then runs training.command there"
                  if training.code else
                  f"pulls {training.image} and runs it with every GPU" if training.image else
                  "runs training.command in the job directory")
        out.append(f"The job: at boot the VM {source}, with $ACCELFIT_BUCKET_URL naming the stack's bucket; it "
                   "starts at every boot until it succeeds once.")
    return tuple(out)
