"""The limits of GCP DWS flex-start capacity (data/flex_start.yaml, with its sources), checked by the planner
before a plan buys flex-start, by the cloud rules and the node pool component before anything is created, and by the
tests. Pure data in the cloud registry's layer, so the planner reads it without importing the cloud rules."""

from __future__ import annotations

from typing import Any

import functools
from pathlib import Path

from accelfit.yamlio import read_package_yaml

_DATA = Path(__file__).parent / "data" / "flex_start.yaml"


@functools.cache
def flex_start_rules() -> dict[str, Any]:
    return read_package_yaml(_DATA)


def flex_start_rejection(family: str, serving: bool, run_hours: float | None) -> str | None:
    """Why a GKE pool of `family` cannot run this workload on flex-start capacity, or None."""
    rules = flex_start_rules()
    if family in rules["excluded_families"]:
        return f"GCP sells no flex-start capacity for {family} machines (about-flex-start-vms)"
    if serving and not rules["serving_allowed"]:
        return ("flex-start capacity runs at most "
                f"{rules['max_run_days']} days and then stops: a service needs capacity that stays")
    if run_hours is not None and run_hours > rules["max_run_days"] * 24:
        return (f"the run takes {run_hours / 24:.1f} days and flex-start capacity runs at most {rules['max_run_days']} "
                "days before GCP stops it (about-flex-start-vms); plan on-demand, a reservation or split the run")
    return None


def flex_start_placement_rejection(machine_type: str, queued: bool) -> str | None:
    """Why a flex-start GPU pool of `machine_type` cannot take compact placement, or None when it can
    (data/flex_start.yaml compact_placement, from Cluster Toolkit's gke-node-pool and xpk)."""
    rules = flex_start_rules()["compact_placement"]
    if queued and not rules["queued_gpu_pools"]:
        return ("a GPU pool with queued provisioning takes no compact placement (Cluster Toolkit gke-node-pool; xpk "
                "sets none on GPU pools)")
    prefixes = rules["flex_start_machine_prefixes"]
    if not machine_type.startswith(tuple(prefixes)):
        return (f"compact placement with flex-start is only for {', '.join(p + '*' for p in prefixes)} machines "
                "(Cluster Toolkit gke-node-pool)")
    return None
