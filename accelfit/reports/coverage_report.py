"""`accelfit catalog --coverage`: what is priced and what is not, per cloud, accelerator kind and pricing model.

JSON document (keys only ever grow): {"catalog": {kind, as_of, source}, "coverage": [{cloud, kind, pricing,
offered, priced, missing: [{sku, region}]}]}.
"""

from __future__ import annotations

from typing import Any

from accelfit.catalog.coverage import CoverageLine, coverage
from accelfit.catalog.models import Catalog
from accelfit.reports.table import render_markdown_table, render_table

_HEADERS = ["cloud", "kind", "pricing", "offered", "priced", "share", "unpriced (sku region, first few)"]
_SHOWN = 4


def coverage_document(catalog: Catalog) -> dict[str, Any]:
    origin = catalog.origin.model_dump(mode="json") if catalog.origin else None
    return {"catalog": origin, "coverage": [
        {"cloud": line.cloud, "kind": line.kind, "pricing": line.pricing, "offered": line.offered,
         "priced": line.priced, "missing": [{"sku": sku, "region": region} for sku, region in line.missing]}
        for line in coverage(catalog)]}


def render_coverage(catalog: Catalog, markdown: bool = False) -> str:
    rows = [_row(line) for line in coverage(catalog)]
    table = (render_markdown_table if markdown else render_table)(_HEADERS, rows)
    head = f"Catalog: {catalog.label}"
    fill = ("Offered = instance type (GPU) or TPU generation x region in the availability data. "
            "Fill missing prices with `accelfit catalog update` (SkyPilot's catalog) and re-run.")
    return f"**{head}**\n\n{table}\n\n{fill}" if markdown else f"{head}\n\n{table}\n\n{fill}"


def _row(line: CoverageLine) -> list[object]:
    shown = ", ".join(f"{sku} {region}" for sku, region in line.missing[:_SHOWN])
    more = len(line.missing) - _SHOWN
    return [line.cloud, line.kind, line.pricing, line.offered, line.priced, f"{line.share:.0%}",
            shown + (f" (+{more} more)" if more > 0 else "") or "-"]
