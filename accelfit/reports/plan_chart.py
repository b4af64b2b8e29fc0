"""`accelfit plan --chart FILE`: cost against time for every eligible option, the chosen one marked.

matplotlib is imported here only, so the plan command stays fast when no chart is asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan
from accelfit.planner.options import Sized

FORMATS = (".svg", ".png")


def open_figure(path: Path, rows: int = 1) -> tuple[Any, Any, Any]:  # matplotlib is optional: untyped here
    """(pyplot, figure, axes) for a chart written to `path` (.svg or .png): the one set-up every chart shares."""
    if path.suffix.lower() not in FORMATS:
        raise InputError([problem(str(path), "--chart", "unsupported chart format",
                                  "end the file name in .svg or .png", path.suffix)])
    import matplotlib

    matplotlib.use("Agg")  # no display here or in CI
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(rows, 1, figsize=(9, 6 if rows == 1 else 4 * rows), sharex=rows > 1)
    return plt, figure, axes


def write_chart(path: Path, plan: Plan, feasible: list[Sized]) -> None:
    plt, figure, axes = open_figure(path)
    by_platform: dict[str, list[Sized]] = {}
    for sized in feasible:
        by_platform.setdefault(sized.offer.platform, []).append(sized)
    training = plan.kind != "inference"
    for platform, members in sorted(by_platform.items()):
        xs = [member.hours / 24 if training else member.devices for member in members]
        ys = [member.total_usd if training else member.monthly_usd for member in members]
        axes.scatter(xs, ys, label=platform, alpha=0.7, s=28)
    # The chosen option is one of the points: take its own figures, so the star sits on its dot (the plan's
    # estimate is rounded); a locked option outside the fresh search falls back to the plan's estimate.
    chosen = next((sized for sized in feasible if sized.option_id == plan.option), None)
    if chosen is not None:
        chosen_x = chosen.hours / 24 if training else chosen.devices
        chosen_y = chosen.total_usd if training else chosen.monthly_usd
    else:
        chosen_x = plan.estimate.hours / 24 if training else plan.estimate.devices
        chosen_y = plan.estimate.total_usd if training else plan.estimate.monthly_usd
    axes.scatter([chosen_x], [chosen_y], marker="*", s=320, color="black", label="chosen", zorder=5)
    axes.annotate(f"{plan.accelerator.count} × {plan.accelerator.name}", (chosen_x, chosen_y),
                  textcoords="offset points", xytext=(10, 8))
    axes.set_xlabel("training time (days)" if training else "accelerators")
    axes.set_ylabel("run total, run_total_usd (USD)" if training else "a month as planned, monthly_usd (USD)")
    axes.set_yscale("log")
    _readable_limits(axes, [chosen_x] + [x for line in axes.collections for x, _ in line.get_offsets()],
                     [chosen_y] + [y for line in axes.collections for _, y in line.get_offsets()])
    axes.set_title(f"{plan.workload}: eligible options ({plan.pricing})")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _readable_limits(axes: Any, xs: list[float], ys: list[float]) -> None:
    """Axes that show the points at their values: no offset notation, and a span of at least ±20% (x) and a
    factor of 3 (y, log) so one option, or several close ones, is not drawn on a micro-scale."""
    low_x, high_x = min(xs), max(xs)
    if high_x - low_x < 0.2 * max(abs(high_x), 1e-9):
        middle = (low_x + high_x) / 2
        low_x, high_x = middle * 0.8, middle * 1.2
    axes.set_xlim(max(0.0, low_x - 0.05 * (high_x - low_x)), high_x + 0.05 * (high_x - low_x))
    axes.ticklabel_format(axis="x", style="plain", useOffset=False)
    low_y, high_y = min(ys), max(ys)
    if low_y > 0 and high_y / low_y < 3:
        middle = (low_y * high_y) ** 0.5
        axes.set_ylim(middle / 1.8, middle * 1.8)
