"""The preview document of a fleet stack (`accelfit:workloads`): the same stable keys as a single stack's (stack,
environment, plan, lock, budget, resources, cost, policies), where `plan` is the fleet plan, every resource says
which workload it belongs to (`workload`: a workload's name, or `<cluster>-shared` for a shared cluster's items),
and `cost.workloads` holds each workload's three figures (its own resources plus an even share of its cluster's
shared items) next to the fleet's (shared items counted once). The budget checks the fleet against the
environment's policy budget and each workload against its spec's budget.

`fleet_costs` is the one pricing path of every preview (and of `accelfit cost`): a one-workload stack is priced as
its fleet of one, and its document (accelfit/preview/run.py) is a view of that fleet's one workload."""

from __future__ import annotations

from typing import Any

from accelfit.preview.budgets import budget_lines, spec_budget_violations
from accelfit.preview.fleet_costs import FleetCosts, Member, attribute, price_fleet
from accelfit.planner.fleet.model import shared_marker
from accelfit.pricing import NeutralResource

FORM = "fleet"


class _NoBudget:
    """The fleet as a whole has no spec budget of its own: only the environment's policy budget applies."""

    max_monthly_usd = None
    max_total_usd = None


def fleet_members(stack: Any, fleet: Any, context_of: Any) -> list[Member]:
    specs = {spec.name: spec for spec in stack.specs}
    return [Member(name=member.name, context=context_of(specs[member.name], member.plan), cluster=member.cluster,
                   training=specs[member.name].training is not None) for member in fleet.workloads]


def fleet_costs(recorded: list[Any], stack: Any, fleet: Any, catalog: Any, context_of: Any
                ) -> tuple[FleetCosts, dict[str, str]]:
    """Every resource's owner, and the fleet priced workload by workload. A fleet of one placed in no shared
    cluster (the single form; a TPU VM or bare-metal workload alone) owns every resource of its stack."""
    names = [member.name for member in fleet.workloads]
    alone = len(names) == 1 and fleet.workloads[0].cluster is None
    owners = {record.urn: names[0] for record in recorded} if alone else attribute(recorded, names)
    neutral = [NeutralResource(type=r.type, name=r.name, props=r.inputs, urn=r.urn) for r in recorded if r.custom]
    return price_fleet(neutral, owners, fleet_members(stack, fleet, context_of), catalog), owners


def fleet_budget_lines(stack: Any, fleet: Any, costs: FleetCosts, policies: dict[str, Any]) -> list[dict[str, Any]]:
    """The fleet against the environment's policy budget, then each workload against its spec's budget."""
    policy_file = f"policies/config/{stack.environment}.json"
    lines = budget_lines(_NoBudget(), stack.environment, costs.fleet.to_json_dict(), policies, policy_file)
    specs = {spec.name: spec for spec in stack.specs}
    for member in fleet.workloads:
        for line in budget_lines(specs[member.name].budget, stack.environment,
                                 costs.workloads[member.name].to_json_dict(), {}, policy_file):
            lines.append({**line, "source": f"{line['source']} of workload {member.name}", "workload": member.name})
    return lines


def workload_budget_violations(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each workload over its spec's budget, as a violation naming the workload."""
    violations = []
    for line in lines:
        if "workload" not in line:
            continue
        for violation in spec_budget_violations([line]):
            violations.append({**violation, "resource": f"(workload {line['workload']})"})
    return violations


def fleet_cost_section(fleet: Any, costs: FleetCosts, assumptions: list[str], specs: Any = ()) -> dict[str, Any]:
    budgets = {spec.name: spec.budget.max_monthly_usd for spec in specs}
    return {
        **costs.fleet.to_json_dict(),
        "usage": [{"item": line.name, "workload": name, "monthly_usd": line.monthly_usd,
                   "full_scale_monthly_usd": line.full_scale_monthly_usd, "run_usd": line.run_usd,
                   "basis": line.basis} for name, line in costs.usage],
        "workloads": {member.name: {**costs.workloads[member.name].to_json_dict(), "cluster": member.cluster,
                                    "own_monthly_usd": costs.own[member.name].monthly_usd,
                                    "max_monthly_usd": budgets.get(member.name)}
                      for member in fleet.workloads},
        "shared": {name: {"workload": shared_marker(name), "monthly_usd": report.monthly_usd,
                          "full_scale_monthly_usd": report.full_scale_monthly_usd,
                          "run_total_usd": report.run_total_usd,
                          "workloads": [member.name for member in fleet.workloads if member.cluster == name]}
                   for name, report in costs.shared.items()},
        "assumptions": [
            *assumptions,
            "Per workload: its own resources (pools, standby pools, bucket, identity, egress) plus an even share of "
            "its cluster's shared items (control plane, network + NAT, system pool); a training workload's run "
            "total carries an even share of the shared items over the longest training run of its cluster. The "
            "fleet counts the shared items once."],
    }
