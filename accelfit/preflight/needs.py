"""What a stack's plan needs from the cloud account at full scale (every pool at its maximum, standby pools of the
fallback chain included), and which fallback step each part belongs to. Pure: plans and the catalog in, Needs out.

Pools consuming a reservation (or an EC2 Capacity Block) need the reservation's free capacity instead of quota: a
reservation's VMs were counted against quota when it was made (GKE: "creating TPU slice node pools that consume a
reservation needs no TPU quota", kubernetes-engine/docs/troubleshooting/tpus).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelfit.clouds import cloud_named
from accelfit.preflight import rules
from accelfit.preflight.model import Needs, QuotaNeed, ReservationNeed, ServiceNeed, ZoneNeed

if TYPE_CHECKING:
    from accelfit.catalog.models import Catalog


@dataclass(frozen=True)
class Member:
    """One workload of the stack as its program builds it."""

    name: str
    plan: Any  # accelfit.planner.model.Plan
    fallback: tuple[Any, ...] = ()  # FallbackStep, for listed-only steps' notes


def step_label(member: str, rank: int, pool: str) -> str:
    return f"{member} step {rank} ({pool})" if rank else f"{member} {pool} pool (every step)"


class _Acc:
    def __init__(self) -> None:
        self.quotas: dict[tuple[str, ...], dict[str, Any]] = {}
        self.zones: dict[tuple[str, ...], set[str]] = defaultdict(set)
        self.reservations: dict[tuple[str, ...], dict[str, Any]] = {}
        self.services: dict[str, str] = {}
        self.steps: list[str] = []
        self.notes: list[str] = []

    def quota(self, cloud: str, region: str, metric: str, label: str, unit: str, amount: int, step: str, *,
              standard: str = "", zone: str = "", quota_id: str = "", dimension: str = "",
              standard_dimension: str = "") -> None:
        key = (cloud, region, zone, metric, dimension)  # one Cloud Quotas id holds several families
        entry = self.quotas.setdefault(key, dict(cloud=cloud, region=region, metric=metric, label=label, unit=unit,
                                                 amount=0, standard_metric=standard, zone=zone, quota_id=quota_id,
                                                 quota_dimension=dimension, standard_dimension=standard_dimension,
                                                 by_step=[]))
        entry["amount"] += amount
        entry["by_step"].append((step, amount))

    def step(self, label: str) -> None:
        if label not in self.steps:
            self.steps.append(label)


def stack_needs(stack: str, members: list[Member], catalog: Any, *, project: str = "") -> Needs:
    acc = _Acc()
    for member in members:
        plan = member.plan
        cloud = plan.cloud.value
        if cloud_named(cloud).owned:
            acc.notes.append(f"{member.name}: runs on owned servers ({plan.platform.value}); no cloud quota to check")
            continue
        for pool in plan.node_pools:
            _pool_needs(acc, member.name, plan, pool, catalog)
        for tpu in plan.tpu_vm_slices:
            _tpu_vm_needs(acc, member.name, plan, tpu, catalog)
        for step in member.fallback:
            if step.pool is None:
                acc.notes.append(f"{member.name} step {step.rank} ({step.option}) is listed only, not built by this "
                                 f"stack: not checked")
        enabled_apis = _SERVICE_NEEDS.get(cloud)
        if enabled_apis is not None:
            enabled_apis(acc, member.name, plan)
    quotas = tuple(QuotaNeed(**{**entry, "by_step": tuple(entry["by_step"])}) for entry in acc.quotas.values())
    zones = tuple(ZoneNeed(cloud=cloud, region=region, zone=zone, machine_type=machine, accelerator_type=accel,
                           pools=tuple(sorted(pools)))
                  for (cloud, region, zone, machine, accel), pools in acc.zones.items())
    reservations = tuple(ReservationNeed(**{**entry, "pools": tuple(entry["pools"])})
                         for entry in acc.reservations.values())
    services = tuple(ServiceNeed(name=name, why=why) for name, why in acc.services.items())
    return Needs(stack=stack, project=project, quotas=quotas, zones=zones, reservations=reservations,
                 services=services, steps=tuple(acc.steps), notes=tuple(dict.fromkeys(acc.notes)))


def _gcp_services(acc: _Acc, member: str, plan: Any) -> None:
    """The Google APIs a GCP member needs enabled (the project's Service Usage), by what it builds."""
    for service in rules.gcp_services("always"):
        acc.services.setdefault(service, "every GCP stack (network, VMs, bucket)")
    if plan.node_pools and plan.platform.value.startswith("gke"):
        for service in rules.gcp_services("gke"):
            acc.services.setdefault(service, f"{member}: GKE cluster")
    if plan.tpu_vm_slices:
        for service in rules.gcp_services("tpu-vm"):
            acc.services.setdefault(service, f"{member}: Cloud TPU VMs")
    if plan.storage.shared_filesystem == "filestore":
        for service in rules.gcp_services("filestore"):
            acc.services.setdefault(service, f"{member}: Filestore")


def _vcpus(cloud: str, machine_type: str, catalog: Catalog) -> int | None:
    shape = catalog.instance_type(cloud, machine_type)
    if shape is not None:
        return shape.vcpus
    for tpu in catalog.tpu_slices if cloud_named(cloud).supports("tpu") else ():
        if tpu.gke_machine_type == machine_type:
            return tpu.host_vcpus
    return rules.other_vcpus(cloud, machine_type)


def _pool_needs(acc: _Acc, member: str, plan: Any, pool: Any, catalog: Any) -> None:
    cloud, region = plan.cloud.value, plan.region
    rank = 0 if pool.role == "system" else max(pool.fallback_rank, 1)
    step = step_label(member, rank, pool.name)
    acc.step(step)
    # A GKE GPU pool's accelerator type is offered by zone; other clouds' pools carry none (no gke_accelerator).
    accelerator_type = (pool.gke_accelerator or "") if pool.role == "gpu" else ""
    for zone in pool.zones:
        acc.zones[(cloud, region, zone, pool.machine_type, accelerator_type)].add(f"{member}/{pool.name}")
    if pool.reservation:
        zone = pool.zones[0] if cloud_named(cloud).zonal_reservations else ""
        entry = acc.reservations.setdefault((cloud, zone, pool.reservation), dict(
            cloud=cloud, region=region, zone=zone, name=pool.reservation, instances=0, pools=[]))
        entry["instances"] += pool.max_nodes
        entry["pools"].append(f"{member}/{pool.name}")
        return
    vcpus = _vcpus(cloud, pool.machine_type, catalog)
    _POOL_QUOTAS[cloud](acc, region, pool, step, vcpus)


def _aws_pool(acc: _Acc, region: str, pool: Any, step: str, vcpus: int | None) -> None:
    quota = rules.aws_quota(pool.machine_type, pool.spot)
    if quota is None or vcpus is None:
        acc.notes.append(f"{step}: no EC2 vCPU quota known for {pool.machine_type}; not checked")
        return
    code, name = quota
    acc.quota("aws", region, code, name, "vcpus", vcpus * pool.max_nodes, step)


def _gcp_pool(acc: _Acc, region: str, pool: Any, step: str, vcpus: int | None) -> None:
    count = pool.accelerators_per_node * pool.max_nodes
    if pool.role == "gpu":
        metric = rules.gcp_gpu_metric(pool.gke_accelerator or "", pool.spot)
        if metric is None:
            acc.notes.append(f"{step}: no GPU quota metric known for {pool.gke_accelerator}; not checked")
        else:
            quota_id, dimension = rules.gcp_gpu_family_quota(metric[0])
            acc.quota("gcp", region, metric[0], f"{pool.gke_accelerator} GPUs" + (" (spot)" if pool.spot else ""),
                      "gpus", count, step, standard=metric[1], quota_id=quota_id, dimension=dimension,
                      standard_dimension=dimension if metric[1] else "")  # the on-demand need of the same family
    elif pool.role == "tpu":
        ref = rules.gcp_gke_tpu_quota(pool.gke_accelerator or "", pool.spot)
        if ref is None:
            acc.notes.append(f"{step}: no TPU quota metric known for {pool.gke_accelerator}; not checked")
        else:
            label = f"{pool.gke_accelerator} chips" + (f", {ref.dimension}" if ref.dimension else "")
            acc.quota("gcp", region, ref.metric, label + (" (spot)" if pool.spot else ""), "chips", count, step,
                      standard=ref.standard, quota_id=ref.quota_id, dimension=ref.dimension,
                      standard_dimension=ref.standard_dimension)
    cpu = rules.gcp_cpu_metric(pool.machine_type, pool.spot)
    if cpu is not None and vcpus is not None:
        acc.quota("gcp", region, cpu[0], "vCPUs" + (" (spot)" if pool.spot else ""), "vcpus",
                  vcpus * pool.max_nodes, step, standard=cpu[1])
    elif pool.role == "system":
        acc.notes.append(f"{step}: no vCPU quota metric known for {pool.machine_type}; not checked")


def _tpu_vm_needs(acc: _Acc, member: str, plan: Any, tpu: Any, catalog: Any) -> None:
    step = step_label(member, 1, tpu.name)
    acc.step(step)
    shape = catalog.tpu_slice(tpu.accelerator_type)
    quota_id = rules.gcp_tpu_vm_quota_id(tpu.accelerator_config_type, tpu.spot)
    if tpu.reserved:
        acc.notes.append(f"{step}: runs on reserved TPU capacity; its reservation is not read by preflight")
        return
    if shape is None or quota_id is None:
        acc.notes.append(f"{step}: no Cloud TPU quota known for {tpu.accelerator_type}; not checked")
        return
    acc.quota("gcp", plan.region, quota_id, f"{tpu.accelerator_type} TPU VM chips" + (" (spot)" if tpu.spot else ""),
              "chips", shape.chips, step, zone=tpu.zone)


# Each cloud's quota reading of a pool and the APIs it needs enabled (a table: the per-cloud parts of preflight).
_POOL_QUOTAS = {"gcp": _gcp_pool, "aws": _aws_pool}
_SERVICE_NEEDS = {"gcp": _gcp_services}
