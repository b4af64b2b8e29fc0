"""Which quota a pool draws on: the sourced table in data/quotas.yaml, read once."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from accelfit.yamlio import read_yaml

DATA = Path(__file__).with_name("data") / "quotas.yaml"


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    quotas: dict[str, Any] = read_yaml(DATA)  # the shipped quotas.yaml: a mapping per cloud
    return quotas


def gcp_gpu_metric(gke_accelerator: str, spot: bool) -> tuple[str, str] | None:
    """(metric, standard metric a spot pool may fall back to, or "") for a GKE guest accelerator; None = unknown."""
    pair = table()["gcp"]["gpu_metrics"].get(gke_accelerator)
    if pair is None:
        return None
    return (pair[1], pair[0]) if spot else (pair[0], "")


def gcp_gpu_family_quota(metric: str) -> tuple[str, str]:
    """The Cloud Quotas (quota id, dimension) for a GPU metric that regions.get may leave out."""
    ids = table()["gcp"]["gpu_family_quota_ids"]
    preemptible = metric.startswith("PREEMPTIBLE_")
    family = metric.removeprefix("PREEMPTIBLE_").removesuffix("_GPUS")
    return ids[1] if preemptible else ids[0], f"gpu_family={family}"


def gcp_cpu_metric(machine_type: str, spot: bool) -> tuple[str, str] | None:
    series = machine_type.split("-")[0]
    metric = table()["gcp"]["cpu_metrics"].get(series)
    if metric is None:
        return None
    return (table()["gcp"]["preemptible_cpu_metric"], metric) if spot else (metric, "")


class QuotaRef(NamedTuple):
    """Where a pool's quota is read: a regions.get metric, or (`quota_id` set, `metric` the same id) a Cloud Quotas
    quota of compute.googleapis.com selected by its dimension."""

    metric: str
    standard: str = ""  # the on-demand quota a spot pool falls back to when it has no preemptible quota; "" = none
    quota_id: str = ""
    dimension: str = ""  # "key=value" besides the region; "" = the region only
    standard_dimension: str = ""


def gcp_gke_tpu_quota(gke_accelerator: str, spot: bool) -> QuotaRef | None:
    """The Compute Engine quota a GKE TPU slice pool draws on, in chips; None = not known."""
    gcp = table()["gcp"]
    pair = gcp["gke_tpu_metrics"].get(gke_accelerator)
    if pair is not None:
        return QuotaRef(pair[1], pair[0]) if spot else QuotaRef(pair[0])
    ids = gcp["gke_tpu_cloud_quotas"].get(gke_accelerator)
    if ids is None:
        return None
    (quota_id, dimension), (standard_id, standard_dimension) = ids["spot" if spot else "on_demand"], ids["on_demand"]
    if not spot:
        return QuotaRef(quota_id, quota_id=quota_id, dimension=dimension)
    return QuotaRef(quota_id, standard_id, quota_id, dimension, standard_dimension)


def gcp_tpu_vm_quota_id(accelerator_config_type: str, spot: bool) -> str | None:
    pair = table()["gcp"]["tpu_vm_quota_ids"].get(accelerator_config_type)
    return None if pair is None else pair[1] if spot else pair[0]


def gcp_services(kind: str) -> tuple[str, ...]:
    return tuple(table()["gcp"]["services"][kind])


def other_vcpus(cloud: str, machine_type: str) -> int | None:
    vcpus: int | None = table()[cloud]["other_machine_vcpus"].get(machine_type)
    return vcpus


_FAMILY = re.compile(r"^([a-z]+?)(\d)")


def aws_quota(instance_type: str, spot: bool) -> tuple[str, str] | None:
    """(quota code, quota name) of the EC2 vCPU limit an instance type counts against; None = not known."""
    match = _FAMILY.match(instance_type)
    if match is None:
        return None
    letters = match.group(1)
    aws = table()["aws"]
    side = aws["spot" if spot else "on_demand"]
    if letters in side:
        return tuple(side[letters])
    # The whole family prefix must be a standard family: trn1, inf2, dl1 and hpc7 have quotas of their own.
    if letters in aws["standard_families"]:
        return tuple(side["standard"])
    return None
