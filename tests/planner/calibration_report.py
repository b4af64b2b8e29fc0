"""Print the inference model's figure for each published serving result (before/after figures for the notes).

    .venv/bin/python tests/planner/calibration_report.py
"""

from __future__ import annotations

from accelfit.catalog import load_catalog
from accelfit.planner.published_serving import modelled_throughput, published_points


def report() -> list[tuple[str, float, float, float, str]]:
    catalog = load_catalog()
    rows = []
    for point in published_points():
        modelled = modelled_throughput(point, catalog)
        rows.append((point.name, point.output_tokens_per_second, modelled, modelled / point.output_tokens_per_second,
                     point.known_miss))
    return rows


if __name__ == "__main__":
    for name, published, modelled, ratio, known_miss in report():
        note = "  (known miss, see known_miss in the data)" if known_miss else ""
        print(f"{name:45s} published {published:9,.0f} tok/s  model {modelled:9,.0f} tok/s  ratio {ratio:5.2f}{note}")
