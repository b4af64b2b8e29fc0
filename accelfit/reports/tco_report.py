"""`accelfit tco`: the buy-versus-rent comparison as text, JSON and a chart of cumulative cost per option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accelfit.pricing.onprem import OWNERSHIP_FIGURES, owned_defaults
from accelfit.pricing.tco import Tco


def assumptions(tco: Tco) -> list[str]:
    """Which figures are the user's inputs and which are assumptions (sourced defaults, model rules)."""
    rows = owned_defaults().defaults
    out = [f"default {name} = {tco.owned.figures[name]:g} ({rows[name].unit}; {rows[name].source}, found "
           f"{rows[name].found}{'' if rows[name].verified else ', unverified'})" for name in tco.owned.defaulted]
    out += ["server power: catalog board power x GPUs x 1.5 for the host (CPUs, memory, NICs, fans)",
            "owning, monthly: amortized acquisition + rack + staff + energy at the month's utilization; cumulative: "
            "the purchase paid in month 1, then rack, staff and energy",
            "renting: on-demand, spot and capacity blocks bill the hours used; committed use bills every hour of "
            "its term; each option is the catalog's cheapest region for that pricing model"]
    return out


def inputs(tco: Tco) -> dict[str, Any]:
    given = [name for name in OWNERSHIP_FIGURES if name not in tco.owned.defaulted]
    return {"servers": tco.servers, "server_kw": round(tco.owned.server_kw, 4),
            **{name: tco.owned.figures[name] for name in given},
            "purchased": str(tco.owned.purchased) if tco.owned.purchased else None,
            "utilization": list(tco.utilization)}


def tco_json(tco: Tco, workload: str) -> dict[str, Any]:
    owned = tco.owned
    return {
        "workload": workload, "months": len(tco.utilization), "inputs": inputs(tco), "assumptions": assumptions(tco),
        "owned": {"per_server_monthly_usd": {"acquisition": round(owned.acquisition_monthly_usd, 2),
                                             "energy_at_full_use": round(owned.energy_monthly_usd, 2),
                                             "rack": round(owned.rack_monthly_usd, 2),
                                             "staff": round(owned.staff_monthly_usd, 2)},
                  "figures": dict(owned.figures), "defaults": list(owned.defaulted),
                  "cumulative_usd": [round(value, 2) for value in tco.owned_cumulative_usd]},
        "options": [{"option": item.option.label, "cloud": item.option.cloud,
                     "instance_type": item.option.instance_type, "pricing": item.option.pricing,
                     "region": item.option.region, "instances": item.option.instances,
                     "hourly_usd": item.option.hourly_usd, "price_verified": item.option.verified,
                     "break_even_utilization": (None if item.break_even_utilization is None
                                                else round(item.break_even_utilization, 4)),
                     "break_even_month": item.break_even_month, "verdict": item.verdict,
                     "cumulative_usd": [round(value, 2) for value in item.cumulative_usd]}
                    for item in tco.comparisons],
    }


def render_text(tco: Tco, workload: str) -> str:
    owned, months = tco.owned, len(tco.utilization)
    lines = [f"{workload}: owning {tco.servers} servers vs renting the same accelerators, over {months} months "
             f"(mean utilization {sum(tco.utilization) / months:.0%})",
             f"owned, per server-month: acquisition ${owned.acquisition_monthly_usd:,.0f}, energy "
             f"${owned.energy_monthly_usd:,.0f} at full use, rack ${owned.rack_monthly_usd:,.0f}, staff "
             f"${owned.staff_monthly_usd:,.0f}; cumulative cash ${tco.owned_cumulative_usd[-1]:,.0f}", ""]
    for item in tco.comparisons:
        month = f"month {item.break_even_month}" if item.break_even_month else f"not within {months} months"
        lines.append(f"  {item.option.label} at ${item.option.hourly_usd:,.4g}/h: ${item.cumulative_usd[-1]:,.0f} "
                     f"over the horizon; {item.verdict}; owning pays back: {month}")
    lines += ["", "assumptions:"] + [f"  - {line}" for line in assumptions(tco)]
    return "\n".join(lines)


def write_chart(path: Path, tco: Tco, workload: str) -> None:
    from accelfit.reports.plan_chart import open_figure

    plt, figure, axes = open_figure(path)
    months = list(range(1, len(tco.utilization) + 1))
    axes.plot(months, tco.owned_cumulative_usd, color="black", linewidth=2.5, label="own (purchase up front)")
    for item in tco.comparisons:
        axes.plot(months, item.cumulative_usd, label=item.option.label, alpha=0.8)
    axes.set_xlabel("month")
    axes.set_ylabel("cumulative cost (USD)")
    axes.set_title(f"{workload}: own vs rent, cumulative cost")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
