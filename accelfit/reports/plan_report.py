"""Render a Plan as a readable text summary or as markdown (for pull requests and docs)."""

from __future__ import annotations

from accelfit.planner.fleet.model import FleetWorkload
from accelfit.planner.model import Plan
from accelfit.reports.cost_figures import figures_line, gpu_vm_monthly_note, monthly_above_run_note
from accelfit.durations import duration, usd
from accelfit.reports.fallback import FALLBACK_HEADERS, fallback_legend, fallback_rows
from accelfit.reports.table import render_markdown_table, render_table
from accelfit.reports.serving_report import serving_markdown, serving_text


def chosen_line(plan: Plan) -> str:
    acc = plan.accelerator
    if acc.kind == "tpu":
        shape = f"{acc.count} × {acc.name} as {acc.slices} × {acc.slice} ({acc.topology})"
    else:
        shape = f"{acc.count} × {acc.name} on {acc.nodes} × {acc.instance_type}"
    return f"{plan.platform.value} · {plan.cloud.value} {plan.region} ({', '.join(plan.zones)}) · {shape} · {plan.pricing}"


def estimate_line(plan: Plan) -> str:
    est = plan.estimate
    parts = [f"{duration(est.hours)} of training" if plan.kind != "inference" else f"{est.hours:,.0f} h of serving a month",
             f"{est.accelerator_hours:,.0f} accelerator-hours"]
    if est.mfu is not None:
        parts.append(f"MFU {est.mfu:.0%}")
    if est.replicas is not None:
        parts.append(f"{est.replicas} replicas, {p99_text(est.latency_p99_ms, target_p99_ms(plan))}")
    return ", ".join(parts)


def target_p99_ms(plan: Plan) -> float | None:
    return plan.estimate.latency_target_p99_ms


def p99_text(estimate_ms: float | None, target_ms: float | None) -> str:
    """p99 with the headroom it leaves under the target, so a reader sees how close it runs."""
    if estimate_ms is None:
        return "p99 not estimated"
    if not target_ms:
        return f"p99 ≈ {estimate_ms:,.0f} ms"
    headroom = (target_ms - estimate_ms) / target_ms
    return f"p99 ≈ {estimate_ms:,.0f} ms against a {target_ms:,.0f} ms target ({headroom:.0%} headroom)"


def plan_cost(plan: Plan) -> dict[str, float | None]:
    est = plan.estimate
    return {"monthly_usd": est.monthly_usd, "full_scale_monthly_usd": est.full_scale_monthly_usd,
            "run_total_usd": est.run_total_usd}


def why_monthly_exceeds_run(plan: Plan) -> str:
    run = duration(plan.estimate.hours)
    if plan.platform.value == "tpu-vm":
        return f"TPU VMs bill every hour they exist while the run needs {run}"
    if plan.gpu_vm is not None:
        return gpu_vm_monthly_note(run, plan.gpu_vm.autostop_action)
    return (f"the always-on parts (control plane, NAT, system pool, storage) bill all month while the stack exists "
            f"and the run lasts {run}")


def cost_summary(plan: Plan) -> list[str]:
    lines = [figures_line(plan_cost(plan)) + (_catalog_note(plan) or f" (prices as of {plan.catalog_as_of})")]
    note = monthly_above_run_note(plan_cost(plan), why_monthly_exceeds_run(plan))
    return lines + ([note] if note else [])


def _cost_rows(plan: Plan) -> list[list[object]]:
    training = plan.estimate.run_total_usd is not None
    return [[line.item, usd(line.monthly_usd), usd(line.full_scale_monthly_usd),
             *([usd(line.total_usd)] if training else []), line.note] for line in plan.estimate.breakdown]


def _cost_headers(plan: Plan) -> list[str]:
    return ["item", "monthly", "full scale"] + (["run"] if plan.estimate.run_total_usd is not None else []) + ["note"]


def alternative_rows(plan: Plan, top: int) -> list[list[object]]:
    return [[alt.platform.value, alt.accelerator, alt.count, alt.region, alt.pricing, duration(alt.hours),
             usd(alt.total_usd), usd(alt.monthly_usd), alt.why_not] for alt in plan.alternatives[:top]]


def _rejected_rows(plan: Plan) -> list[list[object]]:
    return [[rejection.rule, rejection.option, rejection.reason] for rejection in plan.rejected]


ALT_HEADERS = ["platform", "accelerator", "count", "region", "pricing", "time", "total", "monthly", "why not"]


def _catalog_note(plan: Plan) -> str:
    return f"; catalog: {plan.catalog}" if plan.catalog else ""


def _fallback_text(member: FleetWorkload | None) -> list[str]:
    if member is None:
        return []
    return (["", "Fallback chain:", render_table(FALLBACK_HEADERS, fallback_rows(member))]
            + [f"  moves when {line}" for line in fallback_legend(member)]
            + [f"  left out: {reason}" for reason in member.fallback_omitted])


def _fallback_markdown(member: FleetWorkload | None) -> list[str]:
    if member is None:
        return []
    return (["", "**Fallback chain**", "", render_markdown_table(FALLBACK_HEADERS, fallback_rows(member))]
            + ([""] + [f"- moves when {line}" for line in fallback_legend(member)]
               + [f"- left out: {reason}" for reason in member.fallback_omitted]
               if member.fallback_omitted or fallback_legend(member) else []))


def render_text(plan: Plan, top: int = 5, stack: str | None = None, lock: str | None = None,
                member: FleetWorkload | None = None) -> str:
    """`member`: the stack's fleet of one, whose fallback chain the report shows (a spec file plans as a fleet of one too)."""
    title = f"Plan for {plan.workload} ({plan.kind}, {plan.framework})" + (f", stack {stack}" if stack else "")
    out = [title, "=" * len(title),
           f"Chosen:   {chosen_line(plan)}",
           f"Estimate: {estimate_line(plan)}",
           *(("Cost:     " if index == 0 else "          ") + line for index, line in enumerate(cost_summary(plan))),
           *([f"Lock:     {lock}"] if lock else []),
           "", render_table(_cost_headers(plan), _cost_rows(plan)), "", "Why:"]
    out += [f"  - {reason}" for reason in plan.reasons]
    out += serving_text(plan)
    out += _fallback_text(member)
    if plan.warnings:
        out += ["", "Warnings:"] + [f"  ! {warning}" for warning in plan.warnings]
    if plan.alternatives:
        out += ["", f"Alternatives (top {min(top, len(plan.alternatives))}):",
                render_table(ALT_HEADERS, alternative_rows(plan, top))]
    if plan.rejected:
        out += ["", "Rejected (grouped by rule):", render_table(["rule", "option", "reason"], _rejected_rows(plan))]
    return "\n".join(out)


def render_markdown(plan: Plan, top: int = 5, stack: str | None = None, lock: str | None = None,
                    member: FleetWorkload | None = None) -> str:
    out = [f"### Plan for `{plan.workload}` ({plan.kind}, {plan.framework})" + (f" — stack `{stack}`" if stack else ""),
           "", f"**Chosen:** {chosen_line(plan)}  ", f"**Estimate:** {estimate_line(plan)}  ",
           "**Cost:** " + "  \n".join(cost_summary(plan)) + (f"  \n**Lock:** {lock}" if lock else ""),
           "", render_markdown_table(_cost_headers(plan), _cost_rows(plan)), "", "**Why**", ""]
    out += [f"- {reason}" for reason in plan.reasons]
    out += serving_markdown(plan)
    out += _fallback_markdown(member)
    if plan.warnings:
        out += ["", "**Warnings**", ""] + [f"- ⚠️ {warning}" for warning in plan.warnings]
    if plan.alternatives:
        out += ["", "<details><summary>Alternatives</summary>", "",
                render_markdown_table(ALT_HEADERS, alternative_rows(plan, top)), "", "</details>"]
    if plan.rejected:
        out += ["", "<details><summary>Rejected options</summary>", "",
                render_markdown_table(["rule", "option", "reason"], _rejected_rows(plan)), "", "</details>"]
    return "\n".join(out)
