"""`accelfit plan --chart FILE`: cost against time for every eligible option, the chosen one marked.

matplotlib is imported here only, so the plan command stays fast when no chart is asked for.
"""

from __future__ import annotations

from pathlib import Path

from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan
from accelfit.planner.options import Sized

FORMATS = (".svg", ".png")


def write_chart(path: Path, plan: Plan, feasible: list[Sized]) -> None:
    if path.suffix.lower() not in FORMATS:
        raise InputError([problem(str(path), "--chart", "unsupported chart format",
                                  "end the file name in .svg or .png", path.suffix)])
    import matplotlib

    matplotlib.use("Agg")  # no display here or in CI
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 6))
    by_platform: dict[str, list[Sized]] = {}
    for sized in feasible:
        by_platform.setdefault(sized.offer.platform, []).append(sized)
    training = plan.kind != "inference"
    for platform, members in sorted(by_platform.items()):
        xs = [member.hours / 24 if training else member.devices for member in members]
        ys = [member.total_usd if training else member.monthly_usd for member in members]
        axes.scatter(xs, ys, label=platform, alpha=0.7, s=28)
    chosen_x = plan.estimate.hours / 24 if training else plan.estimate.devices
    chosen_y = plan.estimate.total_usd if training else plan.estimate.monthly_usd
    axes.scatter([chosen_x], [chosen_y], marker="*", s=320, color="black", label="chosen", zorder=5)
    axes.annotate(f"{plan.accelerator.count} × {plan.accelerator.name}", (chosen_x, chosen_y),
                  textcoords="offset points", xytext=(10, 8))
    axes.set_xlabel("training time (days)" if training else "accelerators")
    axes.set_ylabel("total cost (USD)" if training else "monthly cost (USD)")
    axes.set_yscale("log")
    axes.set_title(f"{plan.workload}: eligible options ({plan.pricing})")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
