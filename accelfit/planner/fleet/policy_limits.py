"""The environment's policy limits over the whole fleet, not one workload at a time.

The policy pack checks `max-accelerators` over the whole stack: every pool at its maximum, standby pools included
(policies/accelfit_policies/cost.py check_max_accelerators), and `stack-monthly-budget` over the whole stack. Each
workload's plan met them alone (accelfit.planner.constraints); together they may not. So:

- the planned pools of all workloads together must fit `maxAccelerators`, else there is no feasible fleet
  (NoFeasiblePlan naming the policy file, the limit, each workload's count and the fix);
- standby pools are added in a stated order, rank 2 of every workload in the stack's order, then rank 3, ... (so
  every workload gets its first fallback before any gets a second), a step with all its pools or none, only while
  the fleet stays within `maxAccelerators`, `maxNodesPerPool` and (when the budget is measured at full scale, where
  standby pools count at their maximum) `maxMonthlyUsd`; a step that does not fit is listed only, saying why.
Pure: no Pulumi, no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from accelfit.planner.choose import NoFeasiblePlan
from accelfit.planner.constraints import PolicyConstraints
from accelfit.planner.fleet.chain import Chain
from accelfit.planner.model import NodePool, Plan


def pool_accelerators(pool: NodePool) -> int:
    """What the policy pack counts for a pool: accelerators per node x its maximum nodes."""
    return 0 if pool.role == "system" else pool.max_nodes * pool.accelerators_per_node


def planned_accelerators(plan: Plan) -> int:
    """A workload's planned accelerators at their maximum: its planned pools, or (TPU VMs, bare metal: no node
    pools) the count it runs on, as the single planner counts it."""
    pools = [pool for pool in plan.node_pools if pool.role != "system" and pool.fallback_rank == 0]
    return sum(pool_accelerators(pool) for pool in pools) if pools else plan.accelerator.count


# What the limit messages call the whole: a stack of several workloads is a fleet; a one-workload stack is a stack.
def whole_of(workloads: int) -> str:
    return "the fleet" if workloads > 1 else "the stack"


def check_planned_accelerators(names: Sequence[str], plans: Sequence[Plan],
                               constraints: PolicyConstraints | None) -> None:
    """Raise NoFeasiblePlan when the workloads' planned pools alone exceed the environment's max-accelerators."""
    if constraints is None or constraints.max_accelerators is None:
        return
    counts = [(name, planned_accelerators(plan)) for name, plan in zip(names, plans, strict=True)]
    total = sum(count for _, count in counts)
    if total <= constraints.max_accelerators:
        return
    per_workload = ", ".join(f"{name} {count}" for name, count in counts)
    raise NoFeasiblePlan("policy:max-accelerators", (
        f"{whole_of(len(counts))}'s planned pools scale to {total} accelerators together; policy max-accelerators "
        f"({constraints.source}) allows {constraints.max_accelerators} for the whole stack (over by "
        f"{total - constraints.max_accelerators}). Per workload: {per_workload}. Fix: move a workload to a stack "
        f"of its own, shrink one (a smaller model, a longer deadline, fewer requests per second), or raise "
        f"maxAccelerators in {constraints.source}."), ())


@dataclasses.dataclass
class _Room:
    """What is left under the fleet-wide limits as standby steps are admitted."""

    constraints: PolicyConstraints
    accelerators: int  # the fleet at its maximum so far
    full_scale_monthly_usd: float  # the fleet at full scale so far
    whole: str = "the fleet"  # what the messages call it (whole_of)

    def why_not(self, pools: Sequence[NodePool], full_scale_usd: float) -> str | None:
        limits = self.constraints
        devices = sum(pool_accelerators(pool) for pool in pools)
        if limits.max_accelerators is not None and self.accelerators + devices > limits.max_accelerators:
            return (f"its standby pools scale to {devices} accelerators and {self.whole} already scales to "
                    f"{self.accelerators}; policy max-accelerators ({limits.source}) allows "
                    f"{limits.max_accelerators} for the whole stack")
        largest = max((pool.max_nodes for pool in pools), default=0)
        if limits.max_nodes_per_pool is not None and largest > limits.max_nodes_per_pool:
            return (f"a standby pool scales to {largest} nodes; policy bounded-autoscaling ({limits.source}) "
                    f"allows {limits.max_nodes_per_pool}")
        if (limits.max_monthly_usd is not None and limits.budget_figure == "full_scale_monthly_usd"
                and self.full_scale_monthly_usd + full_scale_usd > limits.max_monthly_usd):
            return (f"at full scale its standby pools add ${full_scale_usd:,.0f}/month to {self.whole}'s "
                    f"${self.full_scale_monthly_usd:,.0f}; policy stack-monthly-budget ({limits.source}) allows "
                    f"${limits.max_monthly_usd:,.0f} at full scale")
        self.accelerators += devices
        self.full_scale_monthly_usd += full_scale_usd
        return None


def fit_standby(plans: Sequence[Plan], chains: Sequence[Chain], constraints: PolicyConstraints | None,
                planned_full_scale_monthly_usd: float) -> list[Chain]:
    """The chains with only the standby steps that keep the fleet within the environment's limits (order: rank,
    then the stack's order); a step left out keeps its place in the chain as listed only, with why."""
    if constraints is None:
        return list(chains)
    room = _Room(constraints, sum(planned_accelerators(plan) for plan in plans), planned_full_scale_monthly_usd,
                 whole_of(len(plans)))
    costs = [dict(chain.standby_full_scale_by_rank) for chain in chains]
    ranks = sorted({rank for chain in chains for pool in chain.standby_pools for rank in [pool.fallback_rank]})
    dropped: list[dict[int, str]] = [{} for _ in chains]
    for rank in ranks:
        for index, chain in enumerate(chains):
            pools = [pool for pool in chain.standby_pools if pool.fallback_rank == rank]
            if pools:
                why = room.why_not(pools, costs[index].get(rank, 0.0))
                if why is not None:
                    dropped[index][rank] = why
    return [without_standby(chain, left_out) if left_out else chain for chain, left_out in zip(chains, dropped, strict=True)]


def without_standby(chain: Chain, left_out: dict[int, str]) -> Chain:
    steps = tuple(step.model_copy(update={
        "pool": None, "note": f"{step.note.split('; standby pools ')[0]}; listed only: {left_out[step.rank]}",
        "moves_when": (), "wait_minutes": None})  # no pool: Kueue cannot send a job there
        if step.rank in left_out else step for step in chain.steps)
    kept = tuple((rank, cost) for rank, cost in chain.standby_full_scale_by_rank if rank not in left_out)
    return Chain(steps, chain.omitted, tuple(pool for pool in chain.standby_pools if pool.fallback_rank not in left_out),
                 round(sum(cost for _, cost in kept), 2), kept, chain.offers)
