"""The one cost model: three named figures, computed the same way wherever they are shown.

- `monthly_usd`: what the stack costs per month while it exists, as planned: always-on parts (control plane, NAT,
  system pool, storage) all month, accelerator pools for the hours they are planned to run in that month;
- `full_scale_monthly_usd`: every pool at its maximum all month (the most the autoscaler can spend);
- `run_total_usd` (training only): the run from start to end, with the fixed overheads of a short run (stack
  creation, node start) stated as assumptions.

The planner builds `Part`s from the option it sizes; the preview builds them from the resources it recorded. Both
sum them here, so the two can only disagree when what is built differs from what was planned.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

HOURS_PER_MONTH = 730.0  # 8760 h / 12, the month the clouds' price pages use
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0
# A commitment bills every hour of its term, whether the capacity runs or not.


@dataclass(frozen=True)
class RunWindow:
    """A training run in hours: compute is the useful work; setup and start are the stated fixed overheads."""

    compute_hours: float
    setup_hours: float = 0.0  # the stack is being created: always-on parts bill, accelerators do not yet
    start_hours: float = 0.0  # accelerators bill before the job does useful work (boot, image, weights)

    @property
    def accelerator_hours(self) -> float:
        return self.compute_hours + self.start_hours

    @property
    def wall_hours(self) -> float:
        return self.setup_hours + self.start_hours + self.compute_hours


@dataclass(frozen=True)
class Part:
    """One priced part of a stack with its three figures (run_usd is None outside training)."""

    item: str
    monthly_usd: float
    full_scale_monthly_usd: float
    run_usd: float | None
    note: str = ""


def always_on(item: str, hourly_planned_usd: float, hourly_max_usd: float, run: RunWindow | None,
              note: str = "") -> Part:
    """A part that runs all month while the stack exists (control plane, NAT, the system pool at its minimum)."""
    return Part(item, hourly_planned_usd * HOURS_PER_MONTH, hourly_max_usd * HOURS_PER_MONTH,
                hourly_planned_usd * run.wall_hours if run else None, note)


def accelerator_pool(item: str, hourly_at_max_usd: float, planned_hours_per_month: float, run: RunWindow | None,
                     note: str = "", committed_term_hours: float | None = None) -> Part:
    """Accelerator capacity at its maximum for the hours it is planned to run. A commitment bills every hour of
    its term whether the capacity runs or not."""
    full = hourly_at_max_usd * HOURS_PER_MONTH
    if committed_term_hours:
        run_usd = hourly_at_max_usd * max(run.accelerator_hours, committed_term_hours) if run else None
        return Part(item, full, full, run_usd, note)
    monthly = hourly_at_max_usd * min(planned_hours_per_month, HOURS_PER_MONTH)
    return Part(item, monthly, full, hourly_at_max_usd * run.accelerator_hours if run else None, note)


def autostopped_vm(item: str, hourly_usd: float, run: RunWindow | None, idle_tail_hours: float,
                   note: str = "") -> Part:
    """A VM that stops (or deletes itself) after its accelerators have been idle `idle_tail_hours`: a training run
    bills its start, its compute and the idle tail before autostop fires, in the month and in the run total. With
    no run known it runs all month."""
    full = hourly_usd * HOURS_PER_MONTH
    if run is None:
        return Part(item, full, full, None, note)
    hours = run.accelerator_hours + idle_tail_hours
    return Part(item, hourly_usd * min(hours, HOURS_PER_MONTH), full, hourly_usd * hours, note)


def vm_part(item: str, hourly_usd: float, disk_hourly_usd: float, action: str, run: RunWindow | None,
            tail_hours: float, committed_term_hours: float | None, note: str = "") -> Part:
    """One GPU VM with its boot disk. Stop on idle: the stopped VM's disk still bills, all month. Delete on idle:
    the disk goes with the VM and bills its hours. A commitment bills its whole term whether the VM runs or not."""
    if committed_term_hours:
        vm = accelerator_pool(item, hourly_usd, HOURS_PER_MONTH, run, committed_term_hours=committed_term_hours)
    else:
        vm = autostopped_vm(item, hourly_usd + (disk_hourly_usd if action == "delete" else 0.0), run, tail_hours)
    if action == "delete" and not committed_term_hours:
        return Part(item, vm.monthly_usd, vm.full_scale_monthly_usd, vm.run_usd, note)
    disk = always_on(item, disk_hourly_usd, disk_hourly_usd, run)
    run_usd = None if run is None else (vm.run_usd or 0.0) + (disk.run_usd or 0.0)
    return Part(item, vm.monthly_usd + disk.monthly_usd, vm.full_scale_monthly_usd + disk.full_scale_monthly_usd,
                run_usd, note)


def per_month(item: str, monthly_usd: float, run: RunWindow | None, note: str = "") -> Part:
    """A part billed by the month (storage, egress): a run pays it for the share of a month it lasts."""
    return Part(item, monthly_usd, monthly_usd, monthly_usd * run.wall_hours / HOURS_PER_MONTH if run else None, note)


@dataclass(frozen=True)
class CostFigures:
    monthly_usd: float
    full_scale_monthly_usd: float
    run_total_usd: float | None

    def to_json_dict(self) -> dict[str, float | None]:
        return {"monthly_usd": self.monthly_usd, "full_scale_monthly_usd": self.full_scale_monthly_usd,
                "run_total_usd": self.run_total_usd}


def figures(parts: Iterable[Part], training: bool) -> CostFigures:
    parts = list(parts)
    return CostFigures(
        monthly_usd=round(sum(part.monthly_usd for part in parts), 2),
        full_scale_monthly_usd=round(sum(part.full_scale_monthly_usd for part in parts), 2),
        run_total_usd=round(sum(part.run_usd or 0.0 for part in parts), 2) if training else None)


def serving_hours_per_month(hours_per_day: float) -> float:
    return hours_per_day * DAYS_PER_MONTH


def run_assumptions(run: RunWindow, platform: str, source: str) -> tuple[str, ...]:
    return (f"run_total_usd counts the run from start to end: {run.setup_hours:g} h of stack creation (always-on "
            f"parts bill, accelerators do not yet), {run.start_hours:g} h of accelerator start (boot, image pull, "
            f"weights) and {run.compute_hours:,.1f} h of training; overheads for {platform}: {source}",)
