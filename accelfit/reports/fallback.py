"""A workload's fallback chain as a table: where its jobs go when the steps before have no capacity, and what each
step costs. The same rows in the single form's plan report and in each workload of a fleet's."""

from __future__ import annotations

from accelfit.planner.fleet_model import FleetWorkload
from accelfit.reports.durations import usd

FALLBACK_HEADERS = ["rank", "accelerator", "count", "pricing", "pool", "monthly", "total", "option", "note"]


def fallback_rows(member: FleetWorkload) -> list[list[object]]:
    return [[step.rank, step.accelerator, step.count, step.pricing,
             step.pool or ("(listed only)" if step.rank > 1 else f"({member.plan.platform.value})"),
             usd(step.monthly_usd), usd(step.total_usd), step.option, step.note] for step in member.fallback]
