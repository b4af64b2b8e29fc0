"""The report of `accelfit catalog update`: what was imported, from where and when, and what was left out."""

from __future__ import annotations

from typing import Any

from accelfit.catalog.update import UpdateSummary


def update_document(summary: UpdateSummary) -> dict[str, Any]:
    return {
        "directory": str(summary.directory), "source": summary.source, "as_of": summary.as_of.isoformat(),
        "files": summary.files,
        "prices": [{"cloud": cloud, "pricing": pricing, "rows": rows}
                   for (cloud, pricing), rows in sorted(summary.prices.items())],
        "availability": [{"cloud": cloud, "rows": rows} for cloud, rows in sorted(summary.availability.items())],
        "new_regions": [{"cloud": cloud, "sku": sku, "region": region} for cloud, sku, region in summary.new_regions],
        "skipped": [{"reason": reason, "count": count} for reason, count in sorted(summary.skipped.items())],
    }


def render_update(summary: UpdateSummary) -> str:
    lines = [f"Imported the SkyPilot catalog (v8) from {summary.source} on {summary.as_of} into {summary.directory}."]
    lines += [f"  {name}: {info['rows']} rows, sha256 {str(info['sha256'])[:12]}" for name, info in summary.files.items()]
    lines.append("Prices: " + ", ".join(f"{cloud} {pricing} {rows}"
                                        for (cloud, pricing), rows in sorted(summary.prices.items())))
    lines.append("Availability rows: " + ", ".join(f"{cloud} {rows}" for cloud, rows in sorted(summary.availability.items())))
    if summary.new_regions:
        shown = ", ".join(f"{sku} in {region}" for _, sku, region in summary.new_regions[:6])
        more = len(summary.new_regions) - 6
        lines.append(f"New regions the shipped snapshot lacks: {shown}" + (f" (+{more} more)" if more > 0 else ""))
    for reason, count in sorted(summary.skipped.items()):
        lines.append(f"Skipped {count}: {reason}")
    lines.append("`accelfit plan` and `accelfit preview` now use this catalog; `accelfit catalog --coverage` shows "
                 "what is priced.")
    return "\n".join(lines)
