"""Print the inference model's figure for each published serving result (before/after figures for the notes).

    .venv/bin/python tests/planner/calibration_report.py
"""

from __future__ import annotations

from accelfit.catalog import load_catalog
from accelfit.planner.serving.published_results import modelled_throughput, published_points


def report() -> list[tuple[str, float, float, float, str]]:
    catalog = load_catalog()
    rows = []
    for point in published_points():
        modelled = modelled_throughput(point, catalog)
        shape = f"run of {point.requests}, <= {point.max_in_flight} in flight" if point.requests else "steady state"
        rows.append((point.name, point.output_tokens_per_second, modelled, modelled / point.output_tokens_per_second,
                     shape))
    return rows


if __name__ == "__main__":
    import math

    rows = report()
    for name, published, modelled, ratio, shape in rows:
        print(f"{name:52s} published {published:9,.0f} tok/s  model {modelled:9,.0f} tok/s  ratio {ratio:5.2f}  "
              f"({shape})")
    ratios = [ratio for *_, ratio, _ in rows]
    within = sum(1 / 1.5 <= ratio <= 1.5 for ratio in ratios)
    geo = math.exp(sum(math.log(ratio) for ratio in ratios) / len(ratios))
    print(f"{len(rows)} points: {within} within x1.5, geometric mean of model / published x{geo:.2f}, "
          f"x{min(ratios):.2f}-x{max(ratios):.2f}")
