"""Total cost of ownership of a sized option: compute under its pricing model, cluster fees, NAT, storage for the
dataset and checkpoints, a shared file system where the plan has one, egress, and idle capacity.

- Training fleets scale to zero after the run: compute is billed for the run's hours only, except under a
  commitment, which bills the whole term whether the fleet runs or not.
- Inference bills `hours_per_day` of serving a day; a commitment bills every hour of the month (idle capacity).
- Storage and egress are billed by the month; a training run pays them for the months it lasts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelfit.catalog.models import Catalog
from accelfit.planner import filestore_capacity
from accelfit.planner import preferences as pref
from accelfit.planner.model import CostLine
from accelfit.planner.options import Offer
from accelfit.spec import WorkloadSpec

COMMITMENT_TERM_HOURS = {"committed-1y": 8760.0, "committed-3y": 26280.0}
GIB_PER_TB = 1e12 / 2.0**30


@dataclass(frozen=True)
class StorageNeeds:
    dataset_tb: float
    checkpoint_tb: float
    shared_filesystem: str  # none | filestore | fsx-lustre
    filesystem_capacity_gib: int


def storage_needs(spec: WorkloadSpec, offer: Offer, units: int) -> StorageNeeds:
    training = spec.training is not None
    checkpoint_tb = (spec.model.parameters * pref.CHECKPOINT_BYTES_PER_PARAM * pref.CHECKPOINTS_KEPT / 1e12
                     if training else spec.model.parameters * 2 / 1e12)
    shared = "none"
    capacity_gib = 0
    multi_node_gpu = training and offer.accelerator.kind == "gpu" and units > 1
    if multi_node_gpu and spec.data.dataset_tb >= pref.SHARED_FILESYSTEM_MIN_DATASET_TB and offer.cloud != "onprem":
        shared = "filestore" if offer.cloud == "gcp" else "fsx-lustre"
        wanted_gib = spec.data.dataset_tb * GIB_PER_TB
        if shared == "filestore":
            # The tier's real sizes (Zonal: 256 GiB steps to 9.75 TiB, then 2.5 TiB steps to 100 TiB).
            # A dataset beyond the tier's largest share stays in the bucket; the share caches what fits.
            tier = filestore_capacity.PLANNED_TIER
            capacity_gib = filestore_capacity.round_up_gib(tier, min(wanted_gib, filestore_capacity.largest_gib(tier)))
        else:
            # FSx for Lustre PERSISTENT_2 grows in 2400 GiB steps (min 1200).
            capacity_gib = max(1200, math.ceil(wanted_gib / 2400) * 2400)
    return StorageNeeds(spec.data.dataset_tb, checkpoint_tb, shared, capacity_gib)


def _service(catalog: Catalog, cloud: str, service: str, region: str) -> float:
    found = catalog.service_price(cloud, service, region) if cloud in ("gcp", "aws") else None
    return found.usd if found else 0.0


def cost_lines(spec: WorkloadSpec, catalog: Catalog, offer: Offer, units: int, run_hours: float,
               storage: StorageNeeds) -> tuple[CostLine, ...]:
    """Monthly and total cost per item. For training `run_hours` is the run; for inference it is ignored."""
    cloud, region = offer.cloud, offer.region
    fleet_hourly = units * offer.unit_hourly_usd
    committed_term = COMMITMENT_TERM_HOURS.get(offer.pricing)
    lines: list[CostLine] = []

    if spec.training is not None:
        months = max(run_hours / pref.HOURS_PER_MONTH, 1.0 / pref.DAYS_PER_MONTH)
        billed_hours = max(run_hours, committed_term) if committed_term else run_hours
        note = (f"{units} × {offer.machine} for the {run_hours:,.0f} h run, scaled to zero after it"
                if not committed_term else
                f"{offer.pricing} bills {units} × {offer.machine} for the whole {committed_term:,.0f} h term")
        lines.append(CostLine(item="compute", monthly_usd=fleet_hourly * min(billed_hours, pref.HOURS_PER_MONTH),
                              total_usd=fleet_hourly * billed_hours, note=note))
        service_hours = run_hours
    else:
        months = 1.0
        serving_hours = spec.inference.hours_per_day * pref.DAYS_PER_MONTH
        billed = pref.HOURS_PER_MONTH if committed_term else serving_hours
        note = (f"{units} × {offer.machine}, {spec.inference.hours_per_day:g} h a day"
                + (", committed capacity idles the rest" if committed_term and billed > serving_hours else ""))
        lines.append(CostLine(item="compute", monthly_usd=fleet_hourly * billed, total_usd=fleet_hourly * billed,
                              note=note))
        service_hours = pref.HOURS_PER_MONTH

    if offer.platform in ("gke-gpu", "gke-tpu", "eks-gpu"):
        fee = _service(catalog, cloud, "gke-cluster" if cloud == "gcp" else "eks-cluster", region)
        lines.append(_timed("cluster", fee, service_hours, months, "control-plane fee"))
    if offer.platform != "baremetal-gpu":
        nat = _service(catalog, cloud, "nat-hour", region)
        lines.append(_timed("nat", nat, service_hours, months,
                            "NAT gateway; bucket traffic uses private access/endpoints, not NAT"))

    if cloud != "onprem":
        bucket_gib = (storage.dataset_tb + storage.checkpoint_tb) * GIB_PER_TB
        bucket = bucket_gib * _service(catalog, cloud, "gcs-standard" if cloud == "gcp" else "s3-standard", region)
        lines.append(CostLine(item="storage", monthly_usd=bucket, total_usd=bucket * months,
                              note=f"bucket: {storage.dataset_tb:g} TB dataset + {storage.checkpoint_tb:.2f} TB "
                                   "checkpoints"))
        if storage.shared_filesystem != "none":
            service = "filestore-zonal" if storage.shared_filesystem == "filestore" else "fsx-lustre-persistent2-125"
            monthly = storage.filesystem_capacity_gib * _service(catalog, cloud, service, region)
            lines.append(CostLine(item="filesystem", monthly_usd=monthly, total_usd=monthly * months,
                                  note=f"{storage.shared_filesystem} {storage.filesystem_capacity_gib} GiB"))
        egress = spec.data.egress_tb_per_month * 1000.0 * _service(catalog, cloud, "egress-internet", region)
        if egress:
            lines.append(CostLine(item="egress", monthly_usd=egress, total_usd=egress * months,
                                  note=f"{spec.data.egress_tb_per_month:g} TB/month to the internet"))
    return tuple(lines)


def _timed(item: str, hourly: float, hours: float, months: float, note: str) -> CostLine:
    monthly = hourly * min(hours, pref.HOURS_PER_MONTH) if months >= 1 else hourly * hours
    return CostLine(item=item, monthly_usd=monthly, total_usd=hourly * hours, note=note)


def onprem_unit_hourly_usd(offer_gpu_power_w: float | None, gpus_per_server: int) -> float:
    """Marginal hourly cost of an owned server: its power, at the stated electricity price and PUE."""
    board_w = offer_gpu_power_w or 700.0
    kilowatts = board_w * gpus_per_server * pref.ONPREM_HOST_POWER_FACTOR / 1000.0
    return kilowatts * pref.ONPREM_PUE * pref.ONPREM_USD_PER_KWH


def totals(lines: tuple[CostLine, ...]) -> tuple[float, float]:
    return sum(line.monthly_usd for line in lines), sum(line.total_usd for line in lines)

