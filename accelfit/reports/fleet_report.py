"""Render a FleetPlan: per workload its choice, reasons, alternatives and fallback chain with costs; the shared
clusters, what they share and what that saves; the fleet's totals. Text, markdown and the JSON document."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelfit.planner.fleet.model import FleetPlan, FleetWorkload, SharedCluster
from accelfit.planner.lock import LockStatus
from accelfit.reports.cost_figures import figures_line
from accelfit.durations import usd
from accelfit.reports.fallback import FALLBACK_HEADERS, fallback_legend, fallback_rows
from accelfit.reports.plan_report import ALT_HEADERS, alternative_rows, chosen_line, estimate_line
from accelfit.reports.table import render_markdown_table, render_table
from accelfit.reports.serving_report import serving_markdown, serving_text

CLUSTER_HEADERS = ["cluster", "where", "workloads", "shared monthly", "saves monthly", "shared"]


def fleet_json(fleet: FleetPlan, locks: Mapping[str, LockStatus]) -> dict[str, Any]:
    """The `accelfit plan --stack ENV --json` document of a fleet: the FleetPlan, each workload with its lock."""
    document = fleet.to_json_dict()
    document["cost"] = {"monthly_usd": fleet.monthly_usd, "full_scale_monthly_usd": fleet.full_scale_monthly_usd,
                        "run_total_usd": fleet.run_total_usd, "saves_monthly_usd": fleet.saves_monthly_usd}
    for member in document["workloads"]:
        lock = locks.get(member["name"])
        member["lock"] = lock.to_json_dict() if lock is not None else None
    return document


def _figures(item: FleetWorkload | FleetPlan) -> dict[str, float | None]:
    return {"monthly_usd": item.monthly_usd, "full_scale_monthly_usd": item.full_scale_monthly_usd,
            "run_total_usd": item.run_total_usd}


def _cluster_rows(fleet: FleetPlan) -> list[list[object]]:
    return [[cluster.name, f"{cluster.platform.upper()} {cluster.cloud.value} {cluster.region}",
             ", ".join(cluster.workloads), usd(cluster.shared_monthly_usd), usd(cluster.saves_monthly_usd),
             "; ".join(cluster.shared)] for cluster in fleet.clusters]


def _saving_line(cluster: SharedCluster) -> str:
    if len(cluster.workloads) < 2:
        return f"{cluster.name}: one workload, nothing shared yet"
    items = ", ".join(f"{line.item} {usd(line.monthly_usd)}" for line in cluster.breakdown)
    return (f"{cluster.name}: {len(cluster.workloads)} workloads share {items} a month "
            f"({usd(cluster.shared_monthly_usd)} once instead of in each separate cluster): saves "
            f"{usd(cluster.saves_monthly_usd)} a month")


def _title(fleet: FleetPlan, stack: str | None) -> str:
    return (f"Fleet {fleet.name} ({len(fleet.workloads)} workloads, {fleet.environment})"
            + (f", stack {stack}" if stack else ""))


def render_text(fleet: FleetPlan, locks: Mapping[str, LockStatus], top: int = 5, stack: str | None = None) -> str:
    title = _title(fleet, stack)
    out = [title, "=" * len(title), f"Cost:     {figures_line(_figures(fleet))}",
           f"Sharing:  saves {usd(fleet.saves_monthly_usd)} a month against a cluster per workload", "",
           "Clusters:", render_table(CLUSTER_HEADERS, _cluster_rows(fleet))]
    out += [f"  - {_saving_line(cluster)}" for cluster in fleet.clusters]
    if fleet.warnings:
        out += ["", "Warnings:"] + [f"  ! {warning}" for warning in fleet.warnings]
    for member in fleet.workloads:
        plan = member.plan
        heading = f"Workload {member.name} ({plan.kind}, {plan.framework})"
        lock = locks.get(member.name)
        out += ["", heading, "-" * len(heading),
                f"Where:    {member.placement}",
                f"Chosen:   {chosen_line(plan)}",
                f"Estimate: {estimate_line(plan)}",
                f"Cost:     {figures_line(_figures(member))} (own resources + an even share of its cluster)",
                *([f"Lock:     {lock.message}"] if lock else []), "", "Why:"]
        out += [f"  - {reason}" for reason in plan.reasons]
        out += serving_text(plan)
        if plan.warnings:
            out += ["", "Warnings:"] + [f"  ! {warning}" for warning in plan.warnings]
        out += ["", "Fallback chain:", render_table(FALLBACK_HEADERS, fallback_rows(member))]
        out += [f"  moves when {line}" for line in fallback_legend(member)]
        out += [f"  left out: {reason}" for reason in member.fallback_omitted]
        if plan.alternatives:
            out += ["", f"Alternatives (top {min(top, len(plan.alternatives))}):",
                    render_table(ALT_HEADERS, alternative_rows(plan, top))]
    return "\n".join(out)


def render_markdown(fleet: FleetPlan, locks: Mapping[str, LockStatus], top: int = 5, stack: str | None = None) -> str:
    out = [f"### Fleet `{fleet.name}` ({len(fleet.workloads)} workloads, {fleet.environment})"
           + (f" — stack `{stack}`" if stack else ""), "",
           f"**Cost:** {figures_line(_figures(fleet))}  ",
           f"**Sharing:** saves {usd(fleet.saves_monthly_usd)} a month against a cluster per workload", "",
           render_markdown_table(CLUSTER_HEADERS, _cluster_rows(fleet)), ""]
    out += [f"- {_saving_line(cluster)}" for cluster in fleet.clusters]
    if fleet.warnings:
        out += ["", "**Warnings**", ""] + [f"- ⚠️ {warning}" for warning in fleet.warnings]
    for member in fleet.workloads:
        plan = member.plan
        lock = locks.get(member.name)
        out += ["", f"#### `{member.name}` ({plan.kind}, {plan.framework})", "",
                f"**Where:** {member.placement}  ", f"**Chosen:** {chosen_line(plan)}  ",
                f"**Estimate:** {estimate_line(plan)}  ",
                f"**Cost:** {figures_line(_figures(member))} (own resources + an even share of its cluster)"
                + (f"  \n**Lock:** {lock.message}" if lock else ""), "", "**Why**", ""]
        out += [f"- {reason}" for reason in plan.reasons]
        out += serving_markdown(plan)
        if plan.warnings:
            out += ["", "**Warnings**", ""] + [f"- ⚠️ {warning}" for warning in plan.warnings]
        out += ["", "**Fallback chain**", "", render_markdown_table(FALLBACK_HEADERS, fallback_rows(member))]
        if member.fallback_omitted or fallback_legend(member):
            out += [""] + [f"- moves when {line}" for line in fallback_legend(member)]
            out += [f"- left out: {reason}" for reason in member.fallback_omitted]
        if plan.alternatives:
            out += ["", "<details><summary>Alternatives</summary>", "",
                    render_markdown_table(ALT_HEADERS, alternative_rows(plan, top)), "", "</details>"]
    return "\n".join(out)
