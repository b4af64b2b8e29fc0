"""A workload's fallback chain as a table: where its jobs go when the steps before have no capacity, and what each
step costs. The same rows in the single form's plan report and in each workload of a fleet's."""

from __future__ import annotations

from accelfit.planner.fleet.fallback_triggers import TRIGGER_TEXT
from accelfit.planner.fleet.model import FleetWorkload
from accelfit.durations import usd

FALLBACK_HEADERS = ["rank", "accelerator", "count", "pricing", "pool", "moves when", "waits", "monthly", "total",
                    "option", "note"]


def fallback_rows(member: FleetWorkload) -> list[list[object]]:
    return [[step.rank, step.accelerator, step.count, step.pricing,
             step.pool or ("(listed only)" if step.rank > 1 else f"({member.plan.platform.value})"),
             ", ".join(step.moves_when) or "-",
             f"{step.wait_minutes} min" if step.wait_minutes is not None else "-",
             usd(step.monthly_usd), usd(step.total_usd), step.option, step.note] for step in member.fallback]


def fallback_legend(member: FleetWorkload) -> list[str]:
    """What each 'moves when' code in the table means (the Kueue behaviour behind it, fallback_triggers)."""
    used = sorted({trigger for step in member.fallback for trigger in step.moves_when},
                  key=list(TRIGGER_TEXT).index)
    return [f"{trigger}: {TRIGGER_TEXT[trigger]}" for trigger in used]
