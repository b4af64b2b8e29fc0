"""A stack's workloads as its program builds them, read through the same loaders as `accelfit plan --stack`."""

from __future__ import annotations

from typing import Any

from accelfit.preflight.needs import Member


def stack_members(stack: Any, catalog: Any) -> list[Member]:
    """Each workload's plan (standby pools of its fallback chain included) and its chain. Raises NoFeasiblePlan."""
    # One path for both forms, as the program plans (a single-form stack is a fleet of one in its own cluster).
    from accelfit.stack_plan import plan_stack_fleet

    fleet, _ = plan_stack_fleet(stack, catalog)
    members = []
    for w in fleet.workloads:
        plan = w.plan
        if w.cluster is not None:  # a shared cluster builds one system pool (below), not one per member
            plan = plan.model_copy(update={"node_pools": tuple(p for p in plan.node_pools if p.role != "system")})
        members.append(Member(name=w.name, plan=plan, fallback=tuple(w.fallback)))
    for cluster in fleet.clusters:
        first = next(w.plan for w in fleet.workloads if w.cluster == cluster.name)
        members.append(Member(name=cluster.name, plan=first.model_copy(update={
            "node_pools": (cluster.system_pool,), "tpu_vm_slices": ()})))
    return members
