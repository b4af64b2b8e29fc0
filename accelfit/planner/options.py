"""Internal value types of the planner: what can be bought (an Offer) and an Offer sized for the workload."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from accelfit.catalog.models import Accelerator, InstanceType, Price, TpuSlice
from accelfit.planner.model import CostLine
from accelfit.planner.preferences import Penalty
from accelfit.pricing.figures import Part

if TYPE_CHECKING:  # owned servers' models load with an inventory (accelfit.spec), their costs with them
    from accelfit.pricing.onprem import OwnedServerCost
    from accelfit.spec import Server


@dataclass(frozen=True)
class Offer:
    """One purchasable unit in one place: a GPU node type, a TPU slice shape, or a group of owned servers.

    A *unit* is what the count multiplies: a node (GPU), a slice (TPU), a server (bare metal).
    """

    platform: str
    cloud: str
    region: str
    zones: tuple[str, ...]
    accelerator: Accelerator
    machine: str
    devices_per_unit: int
    max_units: int
    multi_unit: bool = True  # False for partial-node GPU types, which only ever run as one node
    instance: InstanceType | None = None
    tpu_slice: TpuSlice | None = None
    servers: tuple[Server, ...] = ()
    price: Price | None = None
    unit_hourly_usd: float = 0.0
    pricing: str = "on-demand"
    catalog: str = ""  # which catalog offered it (CatalogOrigin.label), so the plan can say what it used
    # The held reservation the offer runs on (GCP reservation name, AWS Capacity Reservation id): pricing
    # reservation, or capacity-block when the spec lists the bought block; None otherwise.
    reservation: str | None = None
    capacity_block: bool = False  # the reservation is an AWS Capacity Block (market type capacity-block)
    owned: OwnedServerCost | None = None  # owned servers: what one costs per month, term by term

    @property
    def label(self) -> str:
        return f"{self.platform} {self.accelerator.name} {self.machine} in {self.region} ({self.pricing})"


@dataclass(frozen=True)
class RawRejection:
    """One option that failed one rule, before grouping (platform and accelerator group it for the report)."""

    platform: str
    accelerator: str
    machine: str
    place: str
    rule: str
    reason: str


@dataclass(frozen=True)
class Sized:
    """An offer with a count and its estimate: time, cost, penalties and the score used for ranking."""

    offer: Offer
    units: int
    devices: int
    hours: float
    accelerator_hours: float
    memory_per_device_gib: float
    monthly_usd: float
    total_usd: float
    parts: tuple[Part, ...]  # the priced parts; `breakdown` turns them into cost lines when something reads them
    full_scale_monthly_usd: float = 0.0
    cost_assumptions: tuple[str, ...] = ()
    mfu: float | None = None
    mfu_source: str = ""
    replicas: int | None = None
    tokens_per_second: float | None = None
    latency_p99_ms: float | None = None
    ttft_p99_ms: float | None = None
    tpot_p99_ms: float | None = None
    penalties: tuple[Penalty, ...] = ()
    notes: tuple[str, ...] = field(default=())
    calibration: str = ""  # set when the team's measured efficiency replaced the catalog's figure

    @functools.cached_property
    def breakdown(self) -> tuple[CostLine, ...]:
        """The cost lines of `parts`. Built on first use: the planner sizes every offer in every region but shows
        the lines of a few, and building them for all was a fifth of plan() over a full imported catalog."""
        return cost_lines(self.parts)

    @property
    def score_usd(self) -> float:
        cost = self.total_usd if self.total_usd else self.monthly_usd
        return cost * (1.0 + sum(penalty.fraction for penalty in self.penalties))

    @property
    def option_id(self) -> str:
        offer = self.offer
        return "/".join((offer.platform, offer.cloud, offer.region, offer.accelerator.name, offer.machine,
                         f"x{self.units}", offer.pricing))


def cost_lines(parts: tuple[Part, ...]) -> tuple[CostLine, ...]:
    return tuple(CostLine(item=part.item, monthly_usd=part.monthly_usd,
                          full_scale_monthly_usd=part.full_scale_monthly_usd,
                          total_usd=part.run_usd if part.run_usd is not None else part.monthly_usd, note=part.note)
                 for part in parts)
