"""What an owned (bare-metal) server costs: its purchase price amortized, its energy at the site's price and PUE,
its share of a rack, and its support and staff. Each figure comes from the inventory's `ownership:` block or, left
out there, from a sourced default (data/owned_hardware.yaml); a plan states all four per month and which figures
are defaults. Acquisition, rack and staff are sunk (paid whether the servers run or not); energy is marginal (paid
for the hours they run). The planner and the preview price an owned server with the same function. Pure."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from accelfit.pricing.figures import HOURS_PER_MONTH
from accelfit.yamlio import read_package_yaml

DATA = Path(__file__).parent / "data" / "owned_hardware.yaml"
HOST_POWER_FACTOR = 1.5  # CPUs, memory, NICs and fans on top of the GPUs' board power (accelfit estimate)
DEFAULT_BOARD_POWER_W = 700.0  # an accelerator row without a board power: an H100 SXM's
# The inventory's `ownership:` figures, in the order plans state them.
OWNERSHIP_FIGURES = ("purchase_usd_per_server", "amortization_months", "energy_usd_per_kwh", "pue", "rack_power_kw",
                     "colocation_usd_per_rack_month", "staff_usd_per_server_year")
# A node carries the figures it was priced with, so the preview prices what the stack builds.
ANNOTATION_PREFIX = "accelfit.io/owned-"


class DefaultRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float = Field(ge=0)
    unit: str = Field(min_length=1)
    source: str = Field(min_length=1)
    note: str = ""
    found: dt.date
    verified: bool


class OwnedDefaults(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    as_of: dt.date
    defaults: dict[str, DefaultRow]


@lru_cache(maxsize=1)
def owned_defaults() -> OwnedDefaults:
    loaded = OwnedDefaults.model_validate(read_package_yaml(DATA))
    missing = set(OWNERSHIP_FIGURES) - set(loaded.defaults)
    if missing:
        raise ValueError(f"{DATA.name}: no default for {sorted(missing)}")
    return loaded


@dataclass(frozen=True)
class OwnedServerCost:
    """One owned server's cost per month, from its resolved figures."""

    figures: Mapping[str, float]  # every OWNERSHIP_FIGURES name -> the value used
    defaulted: tuple[str, ...]  # the names that came from owned_hardware.yaml, not the inventory
    server_kw: float  # IT power at full load: board power x GPUs x host factor
    purchased: dt.date | None = None
    measured_power_w: float | None = None  # the board power calibrate measured (None: the catalog's)
    as_of: dt.date | None = None  # the day priced: past the amortization's end the servers are paid for

    @property
    def fully_amortized(self) -> bool:
        ends = self.amortization_end()
        return ends is not None and self.as_of is not None and self.as_of >= ends

    @property
    def acquisition_monthly_usd(self) -> float:
        if self.fully_amortized:
            return 0.0
        return self.figures["purchase_usd_per_server"] / self.figures["amortization_months"]

    @property
    def energy_monthly_usd(self) -> float:
        """At full use, all month; the plan charges it for the hours the servers run."""
        return self.energy_hourly_usd * HOURS_PER_MONTH

    @property
    def energy_hourly_usd(self) -> float:
        return self.server_kw * self.figures["pue"] * self.figures["energy_usd_per_kwh"]

    @property
    def servers_per_rack(self) -> int:
        """Whole servers within the rack's power budget; at least one (a server above the budget takes a rack)."""
        return max(1, math.floor(self.figures["rack_power_kw"] / self.server_kw + 1e-9))

    @property
    def rack_monthly_usd(self) -> float:
        return self.figures["colocation_usd_per_rack_month"] / self.servers_per_rack

    @property
    def staff_monthly_usd(self) -> float:
        return self.figures["staff_usd_per_server_year"] / 12.0

    @property
    def sunk_monthly_usd(self) -> float:
        return self.acquisition_monthly_usd + self.rack_monthly_usd + self.staff_monthly_usd

    @property
    def hourly_usd(self) -> float:
        """The server-hour the plan multiplies: the sunk month spread over its hours, plus the energy of the hour."""
        return self.sunk_monthly_usd / HOURS_PER_MONTH + self.energy_hourly_usd

    def amortization_end(self) -> dt.date | None:
        if self.purchased is None:
            return None
        months = self.purchased.month - 1 + int(self.figures["amortization_months"])
        return dt.date(self.purchased.year + months // 12, months % 12 + 1, 1)

    def statement(self) -> str:
        """What a plan states: the four terms per server-month, sunk vs marginal, and which figures are defaults."""
        f = self.figures
        ends = self.amortization_end()
        window = f", bought {self.purchased}, amortized until {ends:%Y-%m}" if ends else ""
        if self.fully_amortized:
            window += f": paid for since then, so $0 as of {self.as_of}"
        defaults = ", ".join(self.defaulted) or "none"
        return (f"Owned servers, per server-month: acquisition ${self.acquisition_monthly_usd:,.0f} "
                f"(${f['purchase_usd_per_server']:,.0f} over {f['amortization_months']:g} months{window}); energy "
                f"${self.energy_monthly_usd:,.0f} at full use ({self.server_kw:.3g} kW"
                + (f", from {self.measured_power_w:g} W per GPU measured by `accelfit calibrate`"
                   if self.measured_power_w else "")
                + f" x PUE {f['pue']:g} x "
                f"${f['energy_usd_per_kwh']:g}/kWh); rack ${self.rack_monthly_usd:,.0f} ({self.servers_per_rack} per "
                f"{f['rack_power_kw']:g} kW rack at ${f['colocation_usd_per_rack_month']:,.0f}/rack-month); staff "
                f"${self.staff_monthly_usd:,.0f} (${f['staff_usd_per_server_year']:,.0f}/server-year). Sunk "
                f"(paid whether they run or not): acquisition, rack and staff, ${self.sunk_monthly_usd:,.0f}, spread "
                f"over the month's {HOURS_PER_MONTH:g} server-hours; marginal: energy, "
                f"${self.energy_hourly_usd:.3g}/server-hour; ${self.hourly_usd:.4g}/server-hour in all. Defaults "
                f"(accelfit/pricing/data/owned_hardware.yaml) used for: {defaults}.")


def owned_server_cost(board_power_w: float | None, gpus_per_server: int, given: Mapping[str, float | None],
                      purchased: dt.date | None = None, measured_power_w: float | None = None,
                      as_of: dt.date | None = None) -> OwnedServerCost:
    """One server's cost from the inventory's figures (`given`, None where left out) and the defaults; the energy
    from `measured_power_w` (per GPU, `accelfit calibrate`) where given, else the catalog's `board_power_w`."""
    rows = owned_defaults().defaults
    figures = {name: float(given[name]) if given.get(name) is not None else rows[name].value  # type: ignore[arg-type]
               for name in OWNERSHIP_FIGURES}
    defaulted = tuple(name for name in OWNERSHIP_FIGURES if given.get(name) is None)
    power_w = measured_power_w or board_power_w or DEFAULT_BOARD_POWER_W
    server_kw = power_w * gpus_per_server * HOST_POWER_FACTOR / 1000.0
    return OwnedServerCost(figures=figures, defaulted=defaulted, server_kw=server_kw, purchased=purchased,
                           measured_power_w=measured_power_w, as_of=as_of)


# The board power per GPU the plan's energy term used when `accelfit calibrate` measured it.
MEASURED_POWER_ANNOTATION = ANNOTATION_PREFIX + "measured-power-w"
# When the servers were bought: past the amortization's end the preview, like the plan, charges no acquisition.
PURCHASED_ANNOTATION = ANNOTATION_PREFIX + "purchased"


def ownership_annotations(given: Mapping[str, float | None], measured_power_w: float | None = None,
                          purchased: dt.date | None = None) -> dict[str, str]:
    """The inventory's own figures as node annotations (defaults are not written: the preview resolves them), the
    purchase date, and the measured power the energy term used, where there are."""
    found = {ANNOTATION_PREFIX + name.replace("_", "-"): f"{value:.15g}"
             for name in OWNERSHIP_FIGURES if (value := given.get(name)) is not None}
    if purchased is not None:
        found[PURCHASED_ANNOTATION] = purchased.isoformat()
    if measured_power_w:
        found[MEASURED_POWER_ANNOTATION] = f"{measured_power_w:.15g}"
    return found


def measured_power_from_annotations(annotations: Mapping[str, str]) -> float | None:
    text = annotations.get(MEASURED_POWER_ANNOTATION)
    return float(text) if text is not None else None


def purchased_from_annotations(annotations: Mapping[str, str]) -> dt.date | None:
    text = annotations.get(PURCHASED_ANNOTATION)
    return dt.date.fromisoformat(text) if text else None


def figures_from_annotations(annotations: Mapping[str, str]) -> dict[str, float | None]:
    """The inverse of ownership_annotations: what the preview reads off a node."""
    found: dict[str, float | None] = {}
    for name in OWNERSHIP_FIGURES:
        text = annotations.get(ANNOTATION_PREFIX + name.replace("_", "-"))
        found[name] = float(text) if text is not None else None
    return found
