"""Render a Plan as a readable text summary or as markdown (for pull requests and docs)."""

from __future__ import annotations

from accelfit.planner.model import Plan
from accelfit.reports.durations import duration, usd
from accelfit.reports.table import render_markdown_table, render_table


def _chosen_line(plan: Plan) -> str:
    acc = plan.accelerator
    if acc.kind == "tpu":
        shape = f"{acc.count} × {acc.name} as {acc.slices} × {acc.slice} ({acc.topology})"
    else:
        shape = f"{acc.count} × {acc.name} on {acc.nodes} × {acc.instance_type}"
    return f"{plan.platform.value} · {plan.cloud.value} {plan.region} ({', '.join(plan.zones)}) · {shape} · {plan.pricing}"


def _estimate_line(plan: Plan) -> str:
    est = plan.estimate
    parts = [f"{duration(est.hours)}" + (" of training" if plan.kind != "inference" else " of serving a month"),
             f"{est.accelerator_hours:,.0f} accelerator-hours"]
    if est.mfu is not None:
        parts.append(f"MFU {est.mfu:.0%}")
    if est.replicas is not None:
        parts.append(f"{est.replicas} replicas, p99 ≈ {est.latency_p99_ms:,.0f} ms")
    return ", ".join(parts)


def _cost_rows(plan: Plan) -> list[list[object]]:
    return [[line.item, usd(line.monthly_usd), usd(line.total_usd), line.note] for line in plan.estimate.breakdown]


def _alternative_rows(plan: Plan, top: int) -> list[list[object]]:
    return [[alt.platform.value, alt.accelerator, alt.count, alt.region, alt.pricing, duration(alt.hours),
             usd(alt.total_usd), usd(alt.monthly_usd), alt.why_not] for alt in plan.alternatives[:top]]


def _rejected_rows(plan: Plan) -> list[list[object]]:
    return [[rejection.rule, rejection.option, rejection.reason] for rejection in plan.rejected]


ALT_HEADERS = ["platform", "accelerator", "count", "region", "pricing", "time", "total", "monthly", "why not"]


def _catalog_note(plan: Plan) -> str:
    return f"; catalog: {plan.catalog}" if plan.catalog else ""


def render_text(plan: Plan, top: int = 5, stack: str | None = None) -> str:
    est = plan.estimate
    title = f"Plan for {plan.workload} ({plan.kind}, {plan.framework})" + (f", stack {stack}" if stack else "")
    out = [title, "=" * len(title),
           f"Chosen:   {_chosen_line(plan)}",
           f"Estimate: {_estimate_line(plan)}",
           f"Cost:     {usd(est.total_usd)} total, {usd(est.monthly_usd)} a month (prices as of {plan.catalog_as_of})"
           + _catalog_note(plan),
           "", render_table(["item", "monthly", "total", "note"], _cost_rows(plan)), "", "Why:"]
    out += [f"  - {reason}" for reason in plan.reasons]
    if plan.warnings:
        out += ["", "Warnings:"] + [f"  ! {warning}" for warning in plan.warnings]
    if plan.alternatives:
        out += ["", f"Alternatives (top {min(top, len(plan.alternatives))}):",
                render_table(ALT_HEADERS, _alternative_rows(plan, top))]
    if plan.rejected:
        out += ["", "Rejected (grouped by rule):", render_table(["rule", "option", "reason"], _rejected_rows(plan))]
    return "\n".join(out)


def render_markdown(plan: Plan, top: int = 5, stack: str | None = None) -> str:
    est = plan.estimate
    out = [f"### Plan for `{plan.workload}` ({plan.kind}, {plan.framework})" + (f" — stack `{stack}`" if stack else ""),
           "", f"**Chosen:** {_chosen_line(plan)}  ", f"**Estimate:** {_estimate_line(plan)}  ",
           f"**Cost:** {usd(est.total_usd)} total, {usd(est.monthly_usd)} a month (prices as of {plan.catalog_as_of})"
           + _catalog_note(plan),
           "", render_markdown_table(["item", "monthly", "total", "note"], _cost_rows(plan)), "", "**Why**", ""]
    out += [f"- {reason}" for reason in plan.reasons]
    if plan.warnings:
        out += ["", "**Warnings**", ""] + [f"- ⚠️ {warning}" for warning in plan.warnings]
    if plan.alternatives:
        out += ["", "<details><summary>Alternatives</summary>", "",
                render_markdown_table(ALT_HEADERS, _alternative_rows(plan, top)), "", "</details>"]
    if plan.rejected:
        out += ["", "<details><summary>Rejected options</summary>", "",
                render_markdown_table(["rule", "option", "reason"], _rejected_rows(plan)), "", "</details>"]
    return "\n".join(out)
