"""`accelfit catalog --coverage`: what is priced and what is not, per cloud, accelerator kind and pricing model.

JSON document (keys only ever grow): {"catalog": {kind, as_of, source}, "coverage": [{cloud, kind, pricing,
offered, priced, missing: [{sku, region}], not_sold: [{sku, region, source}]}]}. `offered` counts the pairs the
cloud sells under that pricing model; a pair it does not sell that way (sourced `not_sold` data) is listed under
`not_sold`, never under `missing`.
"""

from __future__ import annotations

from typing import Any

from accelfit.cloudrules.coverage import MODEL_NOTES, CoverageLine, coverage
from accelfit.catalog.models import Catalog
from accelfit.reports.table import render_markdown_table, render_table

_HEADERS = ["cloud", "kind", "pricing", "offered", "priced", "share", "not sold this way",
            "unpriced (sku region, first few)"]
_SHOWN = 4


def coverage_document(catalog: Catalog) -> dict[str, Any]:
    origin = catalog.origin.model_dump(mode="json") if catalog.origin else None
    return {"catalog": origin, "coverage": [
        {"cloud": line.cloud, "kind": line.kind, "pricing": line.pricing, "offered": line.offered,
         "priced": line.priced, "missing": [{"sku": sku, "region": region} for sku, region in line.missing],
         "not_sold": [{"sku": sku, "region": region, "source": source} for sku, region, source in line.not_sold]}
        for line in coverage(catalog)]}


def render_coverage(catalog: Catalog, markdown: bool = False) -> str:
    lines = coverage(catalog)
    table = (render_markdown_table if markdown else render_table)(_HEADERS, [_row(line) for line in lines])
    head = f"Catalog: {catalog.label}"
    fill = ("Offered = instance type (GPU) or TPU generation x region in the availability data, less the pairs the "
            "cloud does not sell under that pricing model. Fill missing prices with `accelfit catalog update` "
            "(SkyPilot's catalog) and re-run.")
    notes = ("Per pricing model: " + " ".join(MODEL_NOTES.values()) + " reservation: never a price row; a held "
             "reservation (placement.reservations) is priced as already paid, $0 marginal, valued at its on-demand "
             "row.")
    parts = [f"**{head}**" if markdown else head, table, fill, notes]
    not_sold = _not_sold_lines(lines)
    if not_sold:
        parts.append("Not sold this way (a fact, not a missing price):\n" + "\n".join(not_sold))
    return "\n\n".join(parts)


def _not_sold_lines(lines: tuple[CoverageLine, ...]) -> list[str]:
    """One line per (cloud, pricing, sku, source): the regions where the cloud does not sell it that way."""
    grouped: dict[tuple[str, str, str, str], list[str]] = {}
    for line in lines:
        for sku, region, source in line.not_sold:
            grouped.setdefault((line.cloud, line.pricing, sku, source), []).append(region)
    return [f"- {cloud} {sku} {pricing}: not sold this way in {len(regions)} region(s) ({source})"
            for (cloud, pricing, sku, source), regions in grouped.items()]


def _row(line: CoverageLine) -> list[object]:
    shown = ", ".join(f"{sku} {region}" for sku, region in line.missing[:_SHOWN])
    more = len(line.missing) - _SHOWN
    return [line.cloud, line.kind, line.pricing, line.offered, line.priced, f"{line.share:.0%}",
            len(line.not_sold), shown + (f" (+{more} more)" if more > 0 else "") or "-"]
