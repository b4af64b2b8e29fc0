"""The environment's policy configuration (policies/config/<env>.json) as constraints of the plan, so a plan never
chooses what its own environment's policies flag. Pure: the planner receives the configuration as data and never
imports pulumi or the policy pack; the names and keys here are the pack's (policies/accelfit_policies/cost.py).

- `accelerator-allow-list` (allowedAccelerators): other accelerators are rejected, whatever the rule's level;
- `max-accelerators` (maxAccelerators) and `bounded-autoscaling` (maxNodesPerPool): larger options are rejected;
- `stack-monthly-budget` (maxMonthlyUsd, figure): options over it are rejected;
- `spot-outside-prod`: mandatory, it rejects on-demand accelerators; advisory, the plan carries a warning.
A rule set to "disabled" constrains nothing. Each rejection names the policy and the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accelfit.buying import is_buying_model, is_preemptible


@dataclass(frozen=True)
class PolicyConstraints:
    source: str  # the policy config file, named in rejections
    allowed_accelerators: frozenset[str] = frozenset()  # canonical names; empty allows any
    max_accelerators: int | None = None
    max_nodes_per_pool: int | None = None
    max_monthly_usd: float | None = None
    budget_figure: str = "monthly_usd"
    spot_only: bool = False  # spot-outside-prod is mandatory
    spot_advised: bool = False  # spot-outside-prod is advisory

    @classmethod
    def from_policy_config(cls, config: Mapping[str, Any], source: str,
                           canonical: Any = lambda name: name) -> PolicyConstraints:
        """`canonical` maps an accelerator alias to its canonical name (the catalog's)."""
        default_level = _level(config.get("all"), "advisory")

        def rule(name: str) -> tuple[str, Mapping[str, Any]]:
            entry = config.get(name)
            if isinstance(entry, str):
                return entry, {}
            if isinstance(entry, Mapping):
                return str(entry.get("enforcementLevel") or default_level), entry
            return default_level, {}

        def enabled(name: str) -> Mapping[str, Any] | None:
            level, settings = rule(name)
            return None if level == "disabled" else settings

        allow = enabled("accelerator-allow-list") or {}
        most = enabled("max-accelerators") or {}
        pool = enabled("bounded-autoscaling") or {}
        budget = enabled("stack-monthly-budget") or {}
        spot_level, _ = rule("spot-outside-prod")
        return cls(
            source=source,
            allowed_accelerators=frozenset(canonical(str(name)) for name in allow.get("allowedAccelerators") or ()),
            max_accelerators=_int(most.get("maxAccelerators")), max_nodes_per_pool=_int(pool.get("maxNodesPerPool")),
            max_monthly_usd=_float(budget.get("maxMonthlyUsd")),
            budget_figure=str(budget.get("figure") or "monthly_usd"),
            spot_only=spot_level == "mandatory", spot_advised=spot_level == "advisory")

    def accelerator_rejection(self, accelerator: str) -> tuple[str, str] | None:
        """(rule, reason) when the environment's allow-list excludes the accelerator."""
        if self.allowed_accelerators and accelerator not in self.allowed_accelerators:
            return ("policy:accelerator-allow-list",
                    f"policy accelerator-allow-list ({self.source}) allows only "
                    f"{', '.join(sorted(self.allowed_accelerators))}")
        return None

    def pricing_rejection(self, pricing: str) -> tuple[str, str] | None:
        # Owned servers are no buying model: the policy is about what is bought (accelfit/buying).
        if self.spot_only and is_buying_model(pricing) and not is_preemptible(pricing):
            return ("policy:spot-outside-prod",
                    f"policy spot-outside-prod ({self.source}) is mandatory here: accelerators run on spot only")
        return None

    def size_rejections(self, devices: int, pool_nodes: Iterable[int], monthly: Mapping[str, float]) \
            -> list[tuple[str, str]]:
        out = []
        if self.max_accelerators is not None and devices > self.max_accelerators:
            out.append(("policy:max-accelerators", f"needs {devices} accelerators; policy max-accelerators "
                                                   f"({self.source}) allows {self.max_accelerators}"))
        largest = max(pool_nodes, default=0)
        if self.max_nodes_per_pool is not None and largest > self.max_nodes_per_pool:
            out.append(("policy:bounded-autoscaling", f"a pool scales to {largest} nodes; policy bounded-autoscaling "
                                                      f"({self.source}) allows {self.max_nodes_per_pool}"))
        figure = monthly.get(self.budget_figure)
        if self.max_monthly_usd is not None and figure is not None and figure > self.max_monthly_usd:
            out.append(("policy:stack-monthly-budget", f"{self.budget_figure} is ${figure:,.0f}; policy "
                                                       f"stack-monthly-budget ({self.source}) allows "
                                                       f"${self.max_monthly_usd:,.0f}"))
        return out


def _level(entry: Any, default: str) -> str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping) and entry.get("enforcementLevel"):
        return str(entry["enforcementLevel"])
    return default


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
