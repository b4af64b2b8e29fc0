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
    parts = [f"{usd(cost['monthly_usd'])} {LABELS['monthly_usd']} (monthly_usd)",
             f"{usd(cost['full_scale_monthly_usd'])} {LABELS['full_scale_monthly_usd']} (full_scale_monthly_usd)"]
    if cost.get("run_total_usd") is not None:
        parts.append(f"{usd(cost['run_total_usd'])} {LABELS['run_total_usd']} (run_total_usd)")
    return " · ".join(parts)


def monthly_above_run_note(cost: Mapping[str, float | None], why: str) -> str | None:
    """Why a month costs more than a short run, said where both are shown."""
    run = cost.get("run_total_usd")
    if run is None or cost["monthly_usd"] <= run:
        return None
    return (f"monthly_usd ({usd(cost['monthly_usd'])}) is above the run total ({usd(run)}) because {why}; "
            "destroy the stack when the run ends to pay only the run total.")


def gpu_vm_monthly_note(run: str, action: str) -> str:
    """Why a GPU VM stack's month exceeds its run: what stays after autostop."""
    kept = "the stopped VM's boot disk, " if action == "stop" else ""
    return (f"{kept}the NAT and the bucket bill all month while the stack exists and the run lasts {run} (the VM "
            "itself bills only until autostop)")
