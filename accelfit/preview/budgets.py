"""Which budget applies, said explicitly: the spec's own budget (budget.max_monthly_usd / max_total_usd) and the
environment's policy budget (stack-monthly-budget in policies/config/<env>.json), each checked against the figure
it limits and named by its source. The spec's budget is mandatory in prod and advisory elsewhere, like the policy
configuration of those environments."""

from __future__ import annotations

from typing import Any

from accelfit.durations import usd
from accelfit.environments import SHIPPED_PROTECTED, protected_in

SPEC_BUDGET_POLICY = "spec-budget"


def budget_lines(spec_budget: Any, environment: str, cost: dict[str, Any], policy_config: dict[str, Any],
                 policy_file: str) -> list[dict[str, Any]]:
    """One line per budget source: source, figure, limit, actual, level, within."""
    # The spec's budget binds as the environment's rules do by default (its "all" level, accelfit.environments), or
    # where the environment is protected: mandatory in prod as shipped and in any environment copied from it,
    # advisory elsewhere. Without a policy configuration, the shipped protected environment's rule holds.
    protected = protected_in(policy_config) if policy_config else environment in SHIPPED_PROTECTED
    spec_level = "mandatory" if protected or policy_config.get("all") == "mandatory" else "advisory"
    lines = []
    if spec_budget.max_monthly_usd is not None:
        lines.append(_line("spec budget.max_monthly_usd", "monthly_usd", spec_budget.max_monthly_usd,
                           cost["monthly_usd"], spec_level))
    if spec_budget.max_total_usd is not None and cost.get("run_total_usd") is not None:
        lines.append(_line("spec budget.max_total_usd", "run_total_usd", spec_budget.max_total_usd,
                           cost["run_total_usd"], spec_level))
    settings = policy_config.get("stack-monthly-budget")
    if isinstance(settings, dict) and settings.get("maxMonthlyUsd") is not None:
        level = str(settings.get("enforcementLevel") or policy_config.get("all") or "advisory")
        if level != "disabled":
            figure = str(settings.get("figure") or "monthly_usd")
            lines.append(_line(f"policy stack-monthly-budget ({policy_file})", figure,
                               float(settings["maxMonthlyUsd"]), cost[figure], level))
    return lines


def _line(source: str, figure: str, limit: float, actual: float, level: str) -> dict[str, Any]:
    return {"source": source, "figure": figure, "limit_usd": float(limit), "actual_usd": float(actual),
            "level": level, "within": actual <= limit}


def spec_budget_violations(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The spec's budget lines that are exceeded, as violations (the policy pack reports its own)."""
    return [{"policy": SPEC_BUDGET_POLICY, "level": line["level"], "resource": "(stack)", "urn": None,
             "message": f"{line['figure']} is {usd(line['actual_usd'])}; {line['source']} allows "
                        f"{usd(line['limit_usd'])} (over by {usd(line['actual_usd'] - line['limit_usd'])}). Fix: "
                        "choose a cheaper plan (relax the deadline, allow spot or other accelerators) or raise the "
                        "budget in the spec."}
            for line in lines if line["source"].startswith("spec ") and not line["within"]]


def budget_text(line: dict[str, Any]) -> str:
    state = "within" if line["within"] else "OVER"
    return (f"{line['source']}: {line['figure']} {usd(line['actual_usd'])} of {usd(line['limit_usd'])} "
            f"({state}, {line['level']})")
