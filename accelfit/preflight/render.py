"""The preflight report as text, markdown (the PR comment) or JSON."""

from __future__ import annotations

from typing import Any

from accelfit.preflight.model import Finding, Report


def _figures(f: Finding) -> str:
    parts = []
    if f.needed is not None:
        parts.append(f"needed {f.needed:g}")
    if f.limit is not None:
        parts.append(f"limit {f.limit:g}")
    if f.in_use is not None:
        parts.append(f"in use {f.in_use:g}")
    return ", ".join(parts)


def _line(f: Finding) -> str:
    where = f" in {f.region}" if f.region else ""
    figures = _figures(f)
    return f"{f.kind} {f.subject}{where}" + (f": {figures}" if figures else "") + (f" ({f.detail})" if f.detail else "")


def verdict(report: Report) -> str:
    if report.shortfalls:
        return f"{len(report.shortfalls)} shortfall(s): `pulumi up` would fail or hang"
    if report.unchecked:
        return f"{len(report.unchecked)} check(s) could not be made: not verified"
    return "everything the plan needs at full scale fits"


def render_text(report: Report) -> str:
    lines = [f"preflight {report.stack} ({report.cloud}): {verdict(report)}"]
    for title, status in (("shortfalls", "short"), ("could not check", "unchecked"), ("fits", "ok")):
        chosen = [f for f in report.findings if f.status == status]
        if not chosen:
            continue
        lines.append(f"{title}:")
        for f in chosen:
            lines.append(f"  {_line(f)}")
            if f.steps and status != "ok":
                lines.append(f"    for: {', '.join(f.steps)}")
            if f.request:
                lines.append(f"    fix: {f.request}")
    if report.steps:
        lines.append("steps:")
        lines.extend(f"  {step}: {state}" for step, state in report.steps)
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines)


def render_markdown(report: Report) -> str:
    icon = "❌" if report.shortfalls else "⚠️" if report.unchecked else "✅"
    lines = [f"### {icon} Preflight `{report.stack}` ({report.cloud}): {verdict(report)}", "",
             "| | check | where | needed | limit | in use | fix |", "|---|---|---|---|---|---|---|"]
    mark = {"short": "❌", "unchecked": "⚠️", "ok": "✅"}
    for f in sorted(report.findings, key=lambda f: ("short", "unchecked", "ok").index(f.status)):
        cells = [mark[f.status], f"{f.kind}: {f.subject}" + (f" ({f.detail})" if f.status != "ok" and f.detail else ""),
                 f.region, "" if f.needed is None else f"{f.needed:g}", "" if f.limit is None else f"{f.limit:g}",
                 "" if f.in_use is None else f"{f.in_use:g}", f"`{f.request}`" if f.request else ""]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    if report.steps:
        lines += ["", "Steps:"] + [f"- {step}: {state}" for step, state in report.steps]
    if report.notes:
        lines += [""] + [f"- note: {note}" for note in report.notes]
    return "\n".join(lines)


def to_json(report: Report) -> dict[str, Any]:
    document = report.model_dump(mode="json")
    document["fits"] = report.fits
    document["steps"] = [{"step": step, "state": state} for step, state in report.steps]
    return document
