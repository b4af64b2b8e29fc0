"""Ranking: the cheapest score wins, ties broken in a documented order; and the error when nothing fits."""

from __future__ import annotations

from typing import Any

from accelfit.planner import preferences as pref
from accelfit.planner.evaluate import Evaluation
from accelfit.planner.model import Alternative, PlanCloud, Platform, Rejection
from accelfit.planner.options import RawRejection, Sized
from accelfit.spec import WorkloadSpec


class NoFeasiblePlan(Exception):
    """Nothing meets the spec. `binding` names the constraint to relax, `message` by how much."""

    def __init__(self, binding: str, message: str, rejected: tuple[Rejection, ...]):
        super().__init__(message)
        self.binding = binding
        self.message = message
        self.rejected = rejected


def _platform_rank(platform: str) -> int:
    """The platform's place in the documented tie-break order; a registered cloud's platform not in it comes after
    the shipped ones (then the cloud's name breaks the tie)."""
    order = pref.PLATFORM_ORDER
    return order.index(platform) if platform in order else len(order)


def rank_key(sized: Sized) -> tuple[object, ...]:
    """Score (cost with penalties) to the cent, then total cost, hours, platform order, cloud, region,
    accelerator name, device count and machine: deterministic for equal scores."""
    offer = sized.offer
    return (round(sized.score_usd, 2), round(sized.total_usd, 2), round(sized.hours, 3),
            _platform_rank(offer.platform), offer.cloud, offer.region, offer.accelerator.name,
            sized.devices, offer.machine, offer.zones)


def best_per_group(feasible: list[Sized]) -> list[Sized]:
    """One option per (platform, cloud, accelerator): its best region and shape. Keeps alternatives readable."""
    best: dict[tuple[str, str, str, str], Sized] = {}
    for sized in sorted(feasible, key=rank_key):
        # Per pricing model too: with a preference list (budget.pricing: [spot, on-demand]) both stay comparable.
        best.setdefault((sized.offer.platform, sized.offer.cloud, sized.offer.accelerator.name,
                         sized.offer.pricing), sized)
    return sorted(best.values(), key=rank_key)


def why_not(chosen: Sized, other: Sized) -> str:
    parts = []
    if other.total_usd > chosen.total_usd + 0.005:
        extra = other.total_usd - chosen.total_usd
        parts.append(f"costs ${extra:,.0f} more ({extra / max(chosen.total_usd, 0.01):.0%})")
    if other.penalties:
        named = ", ".join(f"{penalty.name} +{penalty.fraction:.0%}" for penalty in other.penalties)
        parts.append(f"penalised: {named}")
    if not parts:
        parts.append("ties on cost; lost the documented tie-break (platform order, then cloud, region, name, count)")
    return "; ".join(parts)


def alternatives(chosen: Sized, ranked: list[Sized], top: int) -> tuple[Alternative, ...]:
    out = []
    for other in ranked:
        if other is chosen or (other.offer.platform, other.offer.cloud, other.offer.accelerator.name,
                               other.offer.pricing) == (chosen.offer.platform, chosen.offer.cloud,
                                                        chosen.offer.accelerator.name, chosen.offer.pricing):
            continue
        offer = other.offer
        out.append(Alternative(
            option=other.option_id, platform=Platform(offer.platform), cloud=PlanCloud(offer.cloud),
            region=offer.region, accelerator=offer.accelerator.name, count=other.devices, pricing=offer.pricing,
            hours=round(other.hours, 2), monthly_usd=round(other.monthly_usd, 2),
            total_usd=round(other.total_usd, 2), score_usd=round(other.score_usd, 2), why_not=why_not(chosen, other)))
        if len(out) >= top:
            break
    return tuple(out)


def grouped_rejections(rejected: list[RawRejection]) -> tuple[Rejection, ...]:
    """One row per (rule, platform, accelerator): machine types, sizes and places collapse into one line,
    with the first reason as the example (reasons in a group differ only in numbers)."""
    groups: dict[tuple[str, str, str], list[RawRejection]] = {}
    for rejection in rejected:
        groups.setdefault((rejection.rule, rejection.platform, rejection.accelerator), []).append(rejection)
    out = []
    for (rule, platform, accelerator), members in sorted(groups.items()):
        machines = sorted({member.machine for member in members if member.machine})
        places = {member.place for member in members if member.place}
        shown = ", ".join(machines[:3]) + (f" +{len(machines) - 3} more" if len(machines) > 3 else "")
        option = f"{platform} {accelerator}" + (f" ({shown})" if shown else "") + (
            f" in {len(places)} places" if len(places) > 1 else "")
        out.append(Rejection(option=option, rule=rule, reason=members[0].reason))
    return tuple(out)


def infeasible(spec: WorkloadSpec, evaluation: Evaluation, rejected: tuple[Rejection, ...]) -> NoFeasiblePlan:
    """The error that names the binding constraint and how far to relax it."""
    if evaluation.cheapest_over_budget is not None:
        return _over_budget(spec, evaluation.cheapest_over_budget, evaluation.policy_rejected, rejected)
    policy = _policy_infeasible(evaluation, rejected)
    if policy is not None:
        return policy
    if evaluation.fastest_days is not None and spec.training is not None:
        return NoFeasiblePlan("training.deadline_days", (
            f"no option finishes within training.deadline_days {spec.training.deadline_days:g} less its "
            f"{spec.training.deadline_margin_pct:g}% margin: the fastest takes "
            f"{evaluation.fastest_days * (1 - spec.training.deadline_margin_pct / 100):,.1f} days; set deadline_days "
            f"to at least {evaluation.fastest_days:,.1f}, lower training.deadline_margin_pct or reduce "
            "training.tokens"), rejected)
    if evaluation.latency_misses and spec.inference is not None:
        return latency_infeasible(spec, evaluation.latency_misses, rejected)
    rules = sorted({rejection.rule for rejection in rejected})
    # The stack's own region or zone (gcp:region, gcp:zone, aws:region) confines the plan too: say which to change.
    stack_keys = " or the stack's region (gcp:region, gcp:zone, aws:region)" if {
        "stack-region", "stack-zone"} & set(rules) else ""
    return NoFeasiblePlan("placement", (
        "no accelerator in the allowed clouds, regions and accelerators can run this workload "
        f"(rejected for: {', '.join(rules) or 'nothing offered'}); widen placement.clouds, placement.regions or "
        f"placement.accelerators{stack_keys}, or see the rejected options"), rejected)


def _over_budget(spec: WorkloadSpec, cheapest: Sized, policy_rejected: int,
                 rejected: tuple[Rejection, ...]) -> NoFeasiblePlan:
    """Feasible options exist but none fits the budget: the cheapest one's figure is the least to raise it to."""
    policy_note = ""
    if policy_rejected:
        named = sorted({r.rule.removeprefix("policy:") for r in rejected if r.rule.startswith("policy:")})
        policy_note = (f"; {policy_rejected} option(s) within the budget were rejected by the "
                       f"environment's policies ({', '.join(named)})")
    if spec.budget.max_total_usd is not None and cheapest.total_usd > spec.budget.max_total_usd:
        return NoFeasiblePlan("budget.max_total_usd", (
            f"no option fits budget.max_total_usd ${spec.budget.max_total_usd:,.0f}: the cheapest feasible "
            f"option ({cheapest.offer.label}) needs ${cheapest.total_usd:,.0f}; raise max_total_usd to at least "
            f"${cheapest.total_usd:,.0f} or relax the deadline or pricing{policy_note}"), rejected)
    return NoFeasiblePlan("budget.max_monthly_usd", (
        f"no option fits budget.max_monthly_usd ${spec.budget.max_monthly_usd:,.0f}: the cheapest feasible "
        f"option ({cheapest.offer.label}) needs ${cheapest.monthly_usd:,.0f} a month; raise max_monthly_usd to "
        f"at least ${cheapest.monthly_usd:,.0f}{policy_note}"), rejected)


def _policy_infeasible(evaluation: Evaluation, rejected: tuple[Rejection, ...]) -> NoFeasiblePlan | None:
    """The environment's policies are what binds: they rejected options within the budget, or nothing else did."""
    policy = [rejection for rejection in rejected if rejection.rule.startswith("policy:")]
    if not policy or not (evaluation.policy_rejected or (evaluation.fastest_days is None
                                                         and not evaluation.latency_misses)):
        return None
    named = sorted({rejection.rule.removeprefix("policy:") for rejection in policy})
    return NoFeasiblePlan("policy", (
        f"no option both fits the workload and passes the environment's policies: rejected by "
        f"{', '.join(named)} (e.g. {policy[0].option}: {policy[0].reason}); change the spec "
        "(placement.accelerators, deadline, pricing) or the environment's policy configuration"), rejected)


def latency_infeasible(spec: WorkloadSpec, misses: tuple[Any, ...], rejected: tuple[Rejection, ...]) -> NoFeasiblePlan:
    """The latency targets the closest option misses even at a light load, each with its best figure and the value
    that would admit it; the binding one is the target it misses by the most."""
    inference = spec.inference
    assert inference is not None  # latency targets are an inference spec's
    keep = 1.0 - inference.headroom_pct / 100.0
    ordered = sorted(misses, key=lambda miss: -miss.modelled_ms / miss.budget_ms)
    parts = []
    for miss in ordered:
        target = getattr(inference, miss.field.removeprefix("inference."))
        parts.append(f"{miss.field} {target:g} with its {inference.headroom_pct:g}% headroom: the closest option "
                     f"reaches about {miss.modelled_ms:,.1f} ms; raise it to at least {miss.modelled_ms / keep:,.0f}")
    return NoFeasiblePlan(ordered[0].field, (
        f"no option meets {'; nor '.join(parts)}; or lower inference.headroom_pct, or use a smaller model, lower "
        "precision or a faster accelerator"), rejected)
