"""A dedicated workload with a cloud overflow (placement.overflow): its owned plan, plus the cloud cluster that takes
the jobs the owned servers have no room for, planned by the planner's own search in that cloud and region and
priced at the overflow's expected hours (accelfit.planner.fleet.overflow). Pure.

The overflow cluster runs the owned servers' accelerator, so a job written for the owned nodes (its pods' GPU
requests, its image) fits a cloud node too. Its accelerator pools scale from 0 and carry OVERFLOW_HOURS_LABEL, the
hours they are priced for, which the preview reads back (accelfit.pricing.resources), so plan and preview price
the same thing. The cluster's always-on parts (control plane, NAT, system pool) and its bucket are priced as a cloud
plan prices them, all month; in a training run's total, every overflow line counts for the share of a month the
owned run lasts.

The MultiKueue manager (components/kubernetes/multikueue.py) is a cluster of the team's own, reached with the stack's
accelfit:managerKubeconfig: Kueue 0.19 cannot make the manager one of its own workers (kubernetes-sigs/kueue v0.19.2
site/content/en/docs/concepts/multikueue.md, "Limitations"), so neither the owned cluster nor the overflow cluster
can be it; a small always-on management cluster (on the site, where the owned API server is reachable) is what the
docs' setup uses. It is the team's, so the plan does not price it, and says so.
"""

from __future__ import annotations

from accelfit.catalog.models import Catalog
from accelfit.planner.model import CostLine, OverflowPlan, Plan
from accelfit.planner.fleet.overflow import DISPATCH_ROUND_MINUTES, moves_when, overflow_cost
from accelfit.planner.lock import LockRequired, Selection, plan_with_lock
from accelfit.planner.planner import Environment
from accelfit.pricing.figures import HOURS_PER_MONTH
from accelfit.pricing.overheads import run_window
from accelfit.spec import WorkloadSpec
from accelfit.spec.models import Deployment

OVERFLOW = "overflow"  # the prefix of the overflow's cost lines and the suffix of its cluster's name
_NOT_CARRIED = ("compute", "egress", "standby")  # repriced here (compute) or priced once for the workload (egress)
MANAGER_KEY = "managerKubeconfig"  # the stack config key (a secret) of the MultiKueue manager's kubeconfig
MANAGER_FIX = "pulumi config set --secret accelfit:managerKubeconfig < <kubeconfig of the MultiKueue manager cluster>"
MANAGER = ("a management cluster of the team's own, reached with accelfit:managerKubeconfig (not priced): Kueue 0.19 "
           "cannot make the manager one of its own workers")


def overflow_spec(spec: WorkloadSpec, accelerator: str) -> WorkloadSpec:
    """The spec as its overflow cluster is planned: in the overflow's cloud and region only, on the owned servers'
    accelerator, on Kubernetes, without the owned inventory, reservations or the workload's budget caps (the
    overflow's cost is the hours it runs, checked with the whole plan)."""
    overflow = spec.placement.overflow
    assert overflow is not None
    placement = spec.placement.model_copy(update={
        "deployment": Deployment.cloud, "inventory": None, "overflow": None, "clouds": (overflow.cloud,),
        "regions": (overflow.region,), "reservations": (), "accelerators": (accelerator,)})
    budget = spec.budget.model_copy(update={"max_monthly_usd": None, "max_total_usd": None})
    return spec.model_copy(update={"placement": placement, "budget": budget})


def with_overflow(spec: WorkloadSpec, owned: Plan, cloud: Plan) -> Plan:
    """`owned` with its overflow: `cloud` (the overflow spec's plan) scaled from 0 and labelled with its hours, and
    the overflow's cost lines added to the owned plan's estimate."""
    # The label the preview's rate book reads; imported here so a plan without overflow never loads the rate book.
    from accelfit.pricing.rates import OVERFLOW_HOURS_LABEL

    overflow = spec.placement.overflow
    assert overflow is not None
    hours = float(overflow.hours_per_month)
    pools = tuple(pool if pool.role == "system" else pool.model_copy(update={
        "min_nodes": 0, "initial_nodes": 0, "labels": {**pool.labels, OVERFLOW_HOURS_LABEL: f"{hours:g}"}})
        for pool in cloud.node_pools)
    cloud = cloud.model_copy(update={"node_pools": pools})
    lines = overflow_lines(owned, cloud, hours)
    worker = f"{owned.workload}-{OVERFLOW}"
    texts = moves_when(owned.region, worker, owned.accelerator.count)
    assumption = next(line.note for line in lines if line.item == f"{OVERFLOW}-compute")
    estimate = owned.estimate
    added = {"monthly_usd": sum(line.monthly_usd for line in lines),
             "full_scale_monthly_usd": sum(line.full_scale_monthly_usd for line in lines),
             "total_usd": sum(line.total_usd for line in lines)}
    run_total = None if estimate.run_total_usd is None else round(estimate.run_total_usd + added["total_usd"], 2)
    estimate = estimate.model_copy(update={
        "monthly_usd": round(estimate.monthly_usd + added["monthly_usd"], 2),
        "full_scale_monthly_usd": round(estimate.full_scale_monthly_usd + added["full_scale_monthly_usd"], 2),
        "run_total_usd": run_total, "total_usd": run_total if run_total is not None else round(
            estimate.total_usd + added["monthly_usd"], 2),
        "breakdown": estimate.breakdown + lines,
        "cost_assumptions": (*estimate.cost_assumptions, assumption,
                             f"the MultiKueue manager is {MANAGER}")})
    return owned.model_copy(update={
        "estimate": estimate,
        "reasons": (*owned.reasons, f"Overflow: {texts}; {worker} is {cloud.accelerator.count} × "
                    f"{cloud.accelerator.name} on {cloud.platform.value} in {cloud.region} ({cloud.option})."),
        "overflow": OverflowPlan(cloud=cloud.cloud.value, region=cloud.region, worker=worker,
                                 owned_worker=owned.region, hours_per_month=hours, moves_when=texts,
                                 wait_minutes=DISPATCH_ROUND_MINUTES, manager=MANAGER, plan=cloud)})


def overflow_lines(owned: Plan, cloud: Plan, hours: float) -> tuple[CostLine, ...]:
    """The overflow's lines: its accelerator pools at `hours` a month, its cluster and storage all month (as the
    cloud plan priced them), each in a training run's total for the share of a month the owned run lasts."""
    training = owned.estimate.run_total_usd is not None
    months = run_window(owned.platform.value, owned.estimate.hours).wall_hours / HOURS_PER_MONTH if training else 0
    compute = next(line for line in cloud.estimate.breakdown if line.item == "compute")
    priced = overflow_cost(pool_hourly_usd=compute.full_scale_monthly_usd / HOURS_PER_MONTH, hours_per_month=hours)
    lines = [CostLine(item=f"{OVERFLOW}-compute", monthly_usd=priced.monthly_usd,
                      full_scale_monthly_usd=priced.full_scale_monthly_usd,
                      total_usd=round(priced.monthly_usd * months, 2) if training else priced.monthly_usd,
                      note=priced.assumption)]
    for line in cloud.estimate.breakdown:
        if line.item in _NOT_CARRIED:
            continue
        lines.append(line.model_copy(update={
            "item": f"{OVERFLOW}-{line.item}", "note": f"overflow cluster: {line.note}".rstrip(": "),
            "total_usd": round(line.monthly_usd * months, 2) if training else line.monthly_usd}))
    return tuple(lines)


def plan_overflow(spec: WorkloadSpec, catalog: Catalog, environment: Environment, owned: Plan,
                  locked: Selection | None = None, *, require_lock: bool = False, stack: str = "ENV") -> Plan:
    """The owned plan with its overflow, when the spec has one (planned without the owned inventory). `locked`: the
    overflow's lock (Selection.for_overflow), built while it still meets the overflow spec, as the owned option's
    lock is; a stale or missing one under `require_lock` is LockRequired, never a silent rebuild."""
    if spec.placement.overflow is None:
        return owned
    cloud_spec = overflow_spec(spec, owned.accelerator.name)
    cloud_env = Environment(name=environment.name, efficiency=environment.efficiency,
                            constraints=environment.constraints, placement=environment.placement)
    try:
        cloud, status = plan_with_lock(cloud_spec, catalog, cloud_env, locked, top=1, require_lock=require_lock,
                                       stack=stack)
    except LockRequired as failure:
        raise LockRequired(f"the overflow cluster: {failure.message}") from None
    planned = with_overflow(spec, owned, cloud)
    if status.state == "none":
        return planned
    return planned.model_copy(update={"reasons": (*planned.reasons, f"Overflow lock: {status.message}.")})
