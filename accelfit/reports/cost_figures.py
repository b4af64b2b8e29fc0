"""The three cost figures as one line every report prints the same way (plan, preview, diff, cost, PR comment)."""

from __future__ import annotations

from collections.abc import Mapping

from accelfit.durations import usd

LABELS = {
    "monthly_usd": "a month as planned",
    "full_scale_monthly_usd": "a month at full scale",
    "run_total_usd": "for the whole run",
}


def figures_line(cost: Mapping[str, float | None]) -> str:
    monthly, full_scale, run = _monthly(cost), float(cost["full_scale_monthly_usd"] or 0.0), cost.get("run_total_usd")
    parts = [f"{usd(monthly)} {LABELS['monthly_usd']} (monthly_usd)",
             f"{usd(full_scale)} {LABELS['full_scale_monthly_usd']} (full_scale_monthly_usd)"]
    if run is not None:
        parts.append(f"{usd(run)} {LABELS['run_total_usd']} (run_total_usd)")
    return " · ".join(parts)


def _monthly(cost: Mapping[str, float | None]) -> float:
    """The planned month: every plan states it (only the run total is missing for a service)."""
    return float(cost["monthly_usd"] or 0.0)


def monthly_above_run_note(cost: Mapping[str, float | None], why: str) -> str | None:
    """Why a month costs more than a short run, said where both are shown."""
    run = cost.get("run_total_usd")
    if run is None or _monthly(cost) <= run:
        return None
    return (f"monthly_usd ({usd(_monthly(cost))}) is above the run total ({usd(run)}) because {why}; "
            "destroy the stack when the run ends to pay only the run total.")


def gpu_vm_monthly_note(run: str, action: str) -> str:
    """Why a GPU VM stack's month exceeds its run: what stays after autostop."""
    kept = "the stopped VM's boot disk, " if action == "stop" else ""
    return (f"{kept}the NAT and the bucket bill all month while the stack exists and the run lasts {run} (the VM "
            "itself bills only until autostop)")
