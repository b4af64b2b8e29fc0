"""Buy versus rent: owning the planned servers against each cloud way to buy the same accelerators, month by month
over a utilization curve (issue 38). Pure: the catalog's prices and the owned-server cost in, figures out.

Owning, per server-month at utilization u: the sunk terms (amortized acquisition, rack share, staff) plus energy at
u of the month. Cash, for the cumulative curve: the purchase price paid in the first month, then rack, staff and
energy each month (after the amortization period the acquisition term is 0). Renting: on-demand, spot and capacity
blocks bill the hours used (u of the month); committed-use (1 or 3 years) bills every hour of the term whatever the
use. The break-even utilization is the constant u at which the two monthly costs are equal; the break-even month is
the first month in which renting has cost as much as owning, cumulatively, under the curve."""

from __future__ import annotations

from dataclasses import dataclass, field

from accelfit.catalog.models import Catalog
from accelfit.pricing.figures import HOURS_PER_MONTH
from accelfit.pricing.onprem import OwnedServerCost

# How each pricing model bills: the hours used, or every hour of a committed term.
USAGE_BILLED = ("on-demand", "spot", "capacity-block")
TERM_BILLED = ("committed-1y", "committed-3y")


@dataclass(frozen=True)
class RentOption:
    """One cloud way to buy the planned accelerators: the cheapest region's price for that pricing model."""

    cloud: str
    instance_type: str
    pricing: str
    region: str
    hourly_usd: float  # per instance
    instances: int
    verified: bool

    @property
    def label(self) -> str:
        return f"{self.cloud} {self.instances} x {self.instance_type} {self.pricing} ({self.region})"

    def monthly_usd(self, utilization: float) -> float:
        used = 1.0 if self.pricing in TERM_BILLED else utilization
        return self.instances * self.hourly_usd * HOURS_PER_MONTH * used


@dataclass(frozen=True)
class Comparison:
    option: RentOption
    cumulative_usd: tuple[float, ...]
    break_even_utilization: float | None
    break_even_month: int | None
    verdict: str


@dataclass(frozen=True)
class Tco:
    servers: int
    owned: OwnedServerCost
    utilization: tuple[float, ...]
    owned_cumulative_usd: tuple[float, ...]
    comparisons: tuple[Comparison, ...] = field(default=())

    def owned_monthly_usd(self, utilization: float) -> float:
        """Amortized: what a month of owning costs while the purchase is being written off."""
        return self.servers * (self.owned.sunk_monthly_usd + self.owned.energy_monthly_usd * utilization)


def rent_options(catalog: Catalog, accelerator: str, gpus_per_server: int, servers: int) -> tuple[RentOption, ...]:
    """For each cloud and pricing model, the cheapest instance type and region carrying the same accelerators
    per instance as an owned server (so `servers` instances match the owned pool)."""
    best: dict[tuple[str, str], RentOption] = {}
    for instance in catalog.instance_types_for(accelerator=accelerator):
        if instance.accelerator_count != gpus_per_server:
            continue
        for price in catalog.prices_for(instance.cloud, instance.name):
            pricing = price.pricing.value
            if pricing not in USAGE_BILLED + TERM_BILLED:
                continue
            key = (instance.cloud.value, pricing)
            if key not in best or price.hourly_usd < best[key].hourly_usd:
                best[key] = RentOption(instance.cloud.value, instance.name, pricing, price.region, price.hourly_usd,
                                       servers, price.verified)
    return tuple(best[key] for key in sorted(best))


def owned_cash(owned: OwnedServerCost, servers: int, utilization: tuple[float, ...]) -> tuple[float, ...]:
    """Cumulative cash out of owning: the purchase up front, then rack, staff and energy each month."""
    total, out = servers * owned.figures["purchase_usd_per_server"], []
    for used in utilization:
        total += servers * (owned.rack_monthly_usd + owned.staff_monthly_usd + owned.energy_monthly_usd * used)
        out.append(total)
    return tuple(out)


def break_even_utilization(own_fixed: float, own_per_use: float, rent_fixed: float, rent_per_use: float
                           ) -> tuple[float | None, str]:
    """The constant utilization (0-1) at which owning and renting cost the same per month, and a verdict."""
    slope = rent_per_use - own_per_use
    if abs(slope) < 1e-12:
        cheaper = "owning" if own_fixed < rent_fixed else "renting"
        return None, f"{cheaper} is cheaper at every utilization"
    crossing = (own_fixed - rent_fixed) / slope
    if 0.0 <= crossing <= 1.0:
        above = "owning" if slope > 0 else "renting"
        return crossing, f"{above} is cheaper above {crossing:.0%} utilization"
    at_full = own_fixed + own_per_use < rent_fixed + rent_per_use
    return None, f"{'owning' if at_full else 'renting'} is cheaper at every utilization"


def compare(owned: OwnedServerCost, servers: int, options: tuple[RentOption, ...],
            utilization: tuple[float, ...]) -> Tco:
    own_cumulative = owned_cash(owned, servers, utilization)
    own_fixed = servers * owned.sunk_monthly_usd
    own_per_use = servers * owned.energy_monthly_usd
    comparisons = []
    for option in options:
        rent_fixed = option.monthly_usd(0.0)
        rent_per_use = option.monthly_usd(1.0) - rent_fixed
        crossing, verdict = break_even_utilization(own_fixed, own_per_use, rent_fixed, rent_per_use)
        cumulative, total = [], 0.0
        for used in utilization:
            total += option.monthly_usd(used)
            cumulative.append(total)
        month = next((index + 1 for index, (rent, own) in enumerate(zip(cumulative, own_cumulative, strict=True))
                      if rent >= own), None)
        comparisons.append(Comparison(option, tuple(cumulative), crossing, month, verdict))
    return Tco(servers=servers, owned=owned, utilization=utilization, owned_cumulative_usd=own_cumulative,
               comparisons=tuple(comparisons))
