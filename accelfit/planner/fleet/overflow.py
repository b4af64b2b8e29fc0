"""A hybrid workload's cloud overflow: how many hours a month its cloud pool runs, what that costs, and how a job
gets there. The one source of the dispatch numbers the plan prints and the MultiKueue manager's configuration
carries (components/kubernetes/multikueue_objects.py renders them). Pure.

How a job moves (kubernetes-sigs/kueue v0.19.2 @8eab68778fc1b52affe165fdf5af29d1e9b4f3cb
site/content/en/docs/concepts/multikueue.md): jobs are submitted to the manager cluster; a job gets a quota
reservation there (the manager's quota is the workers' total), then the Incremental dispatcher nominates worker
clusters in the order of MultiKueueConfig.spec.clusters, `stepSize` at a time: with stepSize 1 the owned cluster
alone first; the owned cluster's own ClusterQueue admits it when its quota (the owned GPUs) has room. A round that
admits nothing for 5 minutes nominates the next cluster, the cloud overflow, whose ClusterQueue admits it on its
quota and whose autoscaler then adds the nodes. So a job overflows when the owned quota is full, after one round.

Overflow hours. The cloud pool scales from 0 and bills only while overflow jobs run; how often the owned servers are
full is demand the plan cannot see, so it is either the spec's stated expectation (`hours_per_month`, an
assumption the plan says is one) or derived from demand the plan knows: the accelerator-hours a month the workload
needs beyond what the owned accelerators give in a month, run on the overflow pool at its full size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from accelfit.pricing.figures import HOURS_PER_MONTH

# The Incremental dispatcher, one worker at a time, and its fixed round (not configurable in Kueue 0.19).
DISPATCH_STEP_SIZE = 1
DISPATCH_ROUND_MINUTES = 5

Basis = Literal["stated", "demand"]


@dataclass(frozen=True)
class OverflowCost:
    """The overflow pool's hours a month and its cost: as planned (those hours) and at full scale (all month)."""

    hours_per_month: float
    basis: Basis
    monthly_usd: float
    full_scale_monthly_usd: float
    assumption: str


def demand_overflow_hours(demand_accelerator_hours_per_month: float, owned_accelerators: int,
                          overflow_accelerators: int) -> float:
    """Hours a month the overflow pool runs at its full size to serve the demand the owned accelerators cannot (their
    every hour of the month used first), capped at the month."""
    if overflow_accelerators <= 0:
        raise ValueError("overflow_accelerators: the overflow pool has no accelerators")
    beyond = max(0.0, demand_accelerator_hours_per_month - owned_accelerators * HOURS_PER_MONTH)
    return min(HOURS_PER_MONTH, beyond / overflow_accelerators)


def overflow_cost(*, pool_hourly_usd: float, hours_per_month: float | None = None,
                  demand_accelerator_hours_per_month: float | None = None, owned_accelerators: int = 0,
                  overflow_accelerators: int = 0) -> OverflowCost:
    """The overflow pool (`pool_hourly_usd`: every node of it, per hour) priced for the stated hours, or for the hours
    derived from demand when none are stated."""
    if hours_per_month is not None:
        if not 0 <= hours_per_month <= HOURS_PER_MONTH:
            raise ValueError(f"hours_per_month: {hours_per_month} is not between 0 and {HOURS_PER_MONTH:g}")
        hours, basis = hours_per_month, "stated"
        assumption = (f"the cloud overflow pool runs {hours:g} h a month (placement.overflow.hours_per_month, an "
                      "assumption: how often the owned servers are full is demand the plan cannot see)")
    elif demand_accelerator_hours_per_month is not None:
        hours, basis = demand_overflow_hours(demand_accelerator_hours_per_month, owned_accelerators,
                                             overflow_accelerators), "demand"
        assumption = (f"the cloud overflow pool runs {hours:.1f} h a month: {demand_accelerator_hours_per_month:g} "
                      f"accelerator-hours of demand, {owned_accelerators} owned accelerators busy all "
                      f"{HOURS_PER_MONTH:g} h first, the rest on its {overflow_accelerators} accelerators")
    else:
        raise ValueError("give hours_per_month or demand_accelerator_hours_per_month")
    return OverflowCost(hours_per_month=round(hours, 4), basis=basis,  # type: ignore[arg-type]
                        monthly_usd=round(pool_hourly_usd * hours, 2),
                        full_scale_monthly_usd=round(pool_hourly_usd * HOURS_PER_MONTH, 2), assumption=assumption)


def moves_when(owned: str, overflow: str, owned_accelerators: int) -> str:
    """How a job moves, for the plan."""
    return (f"jobs are submitted to the MultiKueue manager; {owned} is tried first and admits a job while its "
            f"{owned_accelerators} owned accelerators have quota; a job it cannot admit goes to {overflow} after "
            f"{DISPATCH_ROUND_MINUTES} minutes (the Incremental dispatcher's round, one cluster at a time)")
