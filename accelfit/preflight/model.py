"""What a plan needs, what the cloud answered, and what preflight found: frozen models, JSON-ready."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from accelfit.clouds.names import Cloud


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class QuotaNeed(Frozen):
    """One quota a stack draws on in one region (GCP: a Compute Engine metric or a Cloud Quotas quota id; AWS: a
    Service Quotas code), at full scale: every pool the stack builds at its maximum, standby pools included."""

    cloud: Cloud  # a registered cloud that sells capacity (preflight reads no owned servers)
    region: str
    metric: str = Field(description="GCE metric (NVIDIA_H100_GPUS), TPU quota id, or AWS quota code (L-417A185B).")
    label: str = Field(description="What the quota counts, in words.")
    unit: str = Field(description="gpus, chips or vcpus.")
    amount: int = Field(ge=0)
    # When a spot pool may use the standard quota instead (GCE: no preemptible quota at all); "" = none.
    standard_metric: str = ""
    zone: str = Field(default="", description="Set for per-zone quotas (TPU VMs).")
    # Cloud Quotas fallback when regions.get does not list the metric (newer GPU families): quota id + dimension.
    # A metric equal to its quota id is read from Cloud Quotas only (GKE TPU v5p/v6e), its standard_metric too.
    quota_id: str = ""
    quota_dimension: str = ""
    standard_dimension: str = ""
    by_step: tuple[tuple[str, int], ...] = Field(
        default=(), description="(step, amount) that make up the total: 'workload step N (pool)'.")


    @property
    def cloud_quotas_only(self) -> bool:
        return bool(self.quota_id) and self.metric == self.quota_id


def cloud_quotas_key(region: str, quota_id: str, dimension: str, zone: str = "") -> str:
    """Where a Cloud Quotas reading is kept: the quota id and its dimensions besides the region ("k=v,...")."""
    return quota_key(region, f"{quota_id}[{dimension}]", zone)


class ZoneNeed(Frozen):
    cloud: Cloud
    region: str
    zone: str
    machine_type: str
    accelerator_type: str = Field(default="", description="GCP: guest accelerator type to find in the zone.")
    pools: tuple[str, ...]


class ReservationNeed(Frozen):
    cloud: Cloud
    region: str
    zone: str
    name: str = Field(description="GCE reservation name or EC2 capacity reservation id.")
    instances: int = Field(ge=1, description="Nodes the pools consuming it reach at their maximum.")
    pools: tuple[str, ...]


class ServiceNeed(Frozen):
    name: str
    why: str


class Needs(Frozen):
    stack: str
    project: str = Field(default="", description="GCP project id (gcp:project).")
    quotas: tuple[QuotaNeed, ...] = ()
    zones: tuple[ZoneNeed, ...] = ()
    reservations: tuple[ReservationNeed, ...] = ()
    services: tuple[ServiceNeed, ...] = ()
    steps: tuple[str, ...] = Field(default=(), description="Every step checked, in order.")
    notes: tuple[str, ...] = Field(default=(), description="What is not checked, and why.")


class QuotaReading(Frozen):
    limit: float
    usage: float | None = Field(description="None when the source reports no usage (Cloud Quotas, Service Quotas "
                                "without a usage metric).")
    source: str


class ReservationReading(Frozen):
    count: int
    in_use: int


class Unchecked(Frozen):
    """A check the cloud would not answer: denied, throttled past the retries, or missing from the answer."""

    check: str
    reason: str
    fix: str = ""


class Observed(Frozen):
    """What the readers got back. Keys are plain strings so the comparison stays pure."""

    quotas: dict[str, QuotaReading] = Field(default_factory=dict)  # quota_key(need) -> reading
    zones: dict[str, bool] = Field(default_factory=dict)  # zone_key(need) -> offered
    reservations: dict[str, ReservationReading] = Field(default_factory=dict)  # reservation_key(need) -> reading
    services: dict[str, bool] = Field(default_factory=dict)  # service name -> enabled
    unchecked: tuple[Unchecked, ...] = ()


def quota_key(region: str, metric: str, zone: str = "") -> str:
    return f"{region}/{zone}/{metric}" if zone else f"{region}/{metric}"


def zone_key(zone: str, machine_type: str) -> str:
    return f"{zone}/{machine_type}"


def reservation_key(zone: str, name: str) -> str:
    return f"{zone}/{name}"


class Finding(Frozen):
    kind: Literal["quota", "zone", "reservation", "service"]
    status: Literal["ok", "short", "unchecked"]
    subject: str = Field(description="The quota, zone offering, reservation or service, in words.")
    region: str = ""
    needed: float | None = None
    limit: float | None = None
    in_use: float | None = None
    detail: str = ""
    request: str = Field(default="", description="What to file or run to fix it (console link or CLI command).")
    steps: tuple[str, ...] = Field(default=(), description="Plan steps that need it.")


class Report(Frozen):
    stack: str
    cloud: str
    findings: tuple[Finding, ...]
    steps: tuple[tuple[str, str], ...] = Field(default=(), description="(step, 'fits' or what it is short of).")
    notes: tuple[str, ...] = ()

    @property
    def shortfalls(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status == "short")

    @property
    def unchecked(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status == "unchecked")

    @property
    def fits(self) -> bool:
        return not self.shortfalls and not self.unchecked
