"""The result of comparing two preview documents: frozen records that every renderer (text, markdown, JSON)
reads, so the three outputs can never disagree."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from accelfit.diff.inputs import MISSING

DIFF_SCHEMA_VERSION = 1

Action = Literal["add", "change", "replace", "remove"]
ACTIONS: tuple[Action, ...] = ("add", "replace", "change", "remove")  # display order: new capacity first
ViolationStatus = Literal["new", "fixed", "failing"]


@dataclass(frozen=True)
class InputChange:
    path: str
    old: Any  # MISSING when the input is absent in base
    new: Any  # MISSING when the input is absent in head
    replaces_because: str | None  # why this change forces a replacement; None for an in-place update

    def to_json_dict(self) -> dict[str, Any]:
        return {"path": self.path, "old": None if self.old is MISSING else self.old,
                "old_set": self.old is not MISSING, "new": None if self.new is MISSING else self.new,
                "new_set": self.new is not MISSING, "replaces_because": self.replaces_because}


@dataclass(frozen=True)
class ResourceDiff:
    key: str
    type: str
    name: str
    component: str  # top-level component holding the resource; "(stack)" for resources with no component
    action: Action
    changes: tuple[InputChange, ...]
    before_usd: float  # 0 when added
    after_usd: float  # 0 when removed
    protect: bool  # in head (in base when removed): the engine refuses to replace or delete it

    @property
    def delta_usd(self) -> float:
        return round(self.after_usd - self.before_usd, 2)

    @property
    def replace_reasons(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.replaces_because for c in self.changes if c.replaces_because))

    def to_json_dict(self) -> dict[str, Any]:
        return {"key": self.key, "type": self.type, "name": self.name, "component": self.component,
                "action": self.action, "protect": self.protect, "before_monthly_usd": self.before_usd,
                "after_monthly_usd": self.after_usd, "delta_monthly_usd": self.delta_usd,
                "replace_reasons": list(self.replace_reasons),
                "changes": [change.to_json_dict() for change in self.changes]}


@dataclass(frozen=True)
class ViolationDiff:
    status: ViolationStatus
    policy: str
    level: str
    resource: str | None
    message: str  # head's message (base's when fixed)

    def to_json_dict(self) -> dict[str, Any]:
        return {"status": self.status, "policy": self.policy, "level": self.level, "resource": self.resource,
                "message": self.message}


@dataclass(frozen=True)
class SelectionChange:
    """What the plan chose, and whether the lock still holds."""

    base_option: str | None
    head_option: str | None
    lock_state: str  # head's: none | used | stale
    lock_message: str | None

    @property
    def option_changed(self) -> bool:
        return self.base_option != self.head_option

    @property
    def lock_stale(self) -> bool:
        return self.lock_state == "stale"

    def to_json_dict(self) -> dict[str, Any]:
        return {"base_option": self.base_option, "head_option": self.head_option,
                "option_changed": self.option_changed, "lock_state": self.lock_state,
                "lock_stale": self.lock_stale, "lock_message": self.lock_message}


@dataclass(frozen=True)
class BudgetGuard:
    """The call-outs at the top of the comment, and what `--fail-on-increase` / `--fail-over-budget` act on."""

    max_monthly_usd: float | None  # head's budget
    base_monthly_usd: float
    head_monthly_usd: float
    fail_on_increase_pct: float | None  # the threshold asked for, if any

    @property
    def delta_usd(self) -> float:
        return round(self.head_monthly_usd - self.base_monthly_usd, 2)

    @property
    def increase_pct(self) -> float | None:
        """Relative change of the monthly cost; +inf from nothing to something; None when both are zero."""
        if self.base_monthly_usd > 0:
            return round(100.0 * self.delta_usd / self.base_monthly_usd, 1)
        return math.inf if self.head_monthly_usd > 0 else None

    @property
    def over_budget(self) -> bool:
        return self.max_monthly_usd is not None and self.head_monthly_usd > self.max_monthly_usd

    @property
    def was_over_budget(self) -> bool:
        return self.max_monthly_usd is not None and self.base_monthly_usd > self.max_monthly_usd

    @property
    def pushes_over_budget(self) -> bool:
        """Over budget after the change and the change made it worse. A change that lowers the cost of an
        environment already over its budget is a fix in progress and must not be blocked."""
        return self.over_budget and self.head_monthly_usd > self.base_monthly_usd

    @property
    def increase_exceeded(self) -> bool:
        pct = self.increase_pct
        return self.fail_on_increase_pct is not None and pct is not None and pct > self.fail_on_increase_pct

    def to_json_dict(self) -> dict[str, Any]:
        pct = self.increase_pct
        return {"max_monthly_usd": self.max_monthly_usd, "base_monthly_usd": self.base_monthly_usd,
                "head_monthly_usd": self.head_monthly_usd, "delta_monthly_usd": self.delta_usd,
                # JSON has no infinity: a cost that appears from zero is reported as null with the flag below.
                "increase_pct": None if pct is None or math.isinf(pct) else pct,
                "increase_from_zero": pct is not None and math.isinf(pct),
                "over_budget": self.over_budget, "was_over_budget": self.was_over_budget,
                "pushes_over_budget": self.pushes_over_budget,
                "fail_on_increase_pct": self.fail_on_increase_pct, "increase_exceeded": self.increase_exceeded}


FIGURES = ("monthly_usd", "full_scale_monthly_usd", "run_total_usd")


@dataclass(frozen=True)
class FigureChange:
    """One of the three cost figures (accelfit.pricing.figures) before and after; None where a side has none."""

    figure: str
    base_usd: float | None
    head_usd: float | None

    @property
    def delta_usd(self) -> float | None:
        if self.base_usd is None or self.head_usd is None:
            return None
        return round(self.head_usd - self.base_usd, 2)

    def to_json_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "base_usd": self.base_usd, "head_usd": self.head_usd,
                "delta_usd": self.delta_usd}


@dataclass(frozen=True)
class WorkloadCost:
    """A fleet workload's three figures before and after (its own resources + its share of the shared items;
    `<cluster>-shared` rows are the shared items themselves, counted once)."""

    workload: str
    figures: tuple[FigureChange, ...]
    max_monthly_usd: float | None = None  # head's spec budget of the workload
    base_option: str | None = None  # the option its plan chose on each side (None: shared items, or absent)
    head_option: str | None = None

    @property
    def option_changed(self) -> bool:
        return self.base_option is not None and self.head_option is not None and self.base_option != self.head_option

    @property
    def monthly(self) -> FigureChange:
        return self.figures[0]

    @property
    def over_budget(self) -> bool:
        head = self.monthly.head_usd
        return self.max_monthly_usd is not None and head is not None and head > self.max_monthly_usd

    @property
    def pushes_over_budget(self) -> bool:
        """Over its spec's budget after the change, and the change raised its cost (as BudgetGuard does)."""
        return self.over_budget and (self.monthly.base_usd is None
                                     or (self.monthly.head_usd or 0.0) > self.monthly.base_usd)

    def to_json_dict(self) -> dict[str, Any]:
        return {"workload": self.workload, "figures": [figure.to_json_dict() for figure in self.figures],
                "max_monthly_usd": self.max_monthly_usd, "over_budget": self.over_budget,
                "pushes_over_budget": self.pushes_over_budget, "base_option": self.base_option,
                "head_option": self.head_option, "option_changed": self.option_changed}


@dataclass(frozen=True)
class StackDiff:
    stack: str
    environment: str
    base_source: str
    head_source: str
    base_stack: str  # differs from `stack` only when two different stacks were compared on purpose
    resources: tuple[ResourceDiff, ...]  # changed resources only, in display order (component, action, name)
    unchanged: int
    violations: tuple[ViolationDiff, ...]
    selection: SelectionChange
    budget: BudgetGuard
    policy_pack: str | None
    figures: tuple[FigureChange, ...] = ()
    budget_lines: tuple[dict[str, Any], ...] = ()  # head's, one per budget source
    spec_changes: tuple[InputChange, ...] = ()  # what changed in the workload spec behind a plan change
    repriced: tuple[ResourceDiff, ...] = ()  # inputs unchanged, monthly cost moved (a catalog price update)
    base_is_new: bool = False  # the stack does not exist on the base side
    head_is_removed: bool = False  # the change deletes the stack: it does not exist on the head side
    workloads: tuple[WorkloadCost, ...] = ()  # a fleet's cost per workload; resources are grouped by workload

    @property
    def is_fleet(self) -> bool:
        return bool(self.workloads)

    def count(self, action: Action) -> int:
        return sum(1 for resource in self.resources if resource.action == action)

    def violations_with(self, status: ViolationStatus) -> tuple[ViolationDiff, ...]:
        return tuple(v for v in self.violations if v.status == status)

    @property
    def movers(self) -> tuple[ResourceDiff, ...]:
        """Resources whose monthly cost moved, biggest absolute move first (ties: by component, then name)."""
        moved = [resource for resource in (*self.resources, *self.repriced) if resource.delta_usd != 0]
        return tuple(sorted(moved, key=lambda r: (-abs(r.delta_usd), r.component, r.name, r.key)))

    @property
    def components(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(resource.component for resource in self.resources))

    def by_component(self) -> dict[str, list[ResourceDiff]]:
        """Changed resources per component, in display order."""
        groups: dict[str, list[ResourceDiff]] = {}
        for resource in self.resources:
            groups.setdefault(resource.component, []).append(resource)
        return groups

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "schema_version": DIFF_SCHEMA_VERSION,
            "stack": self.stack, "environment": self.environment, "base_stack": self.base_stack,
            "base_is_new": self.base_is_new, "head_is_removed": self.head_is_removed,
            "spec_changes": [change.to_json_dict() for change in self.spec_changes],
            "base": self.base_source, "head": self.head_source,
            "summary": {**{action: self.count(action) for action in ACTIONS}, "unchanged": self.unchanged,
                        "repriced": len(self.repriced),
                        "new_violations": len(self.violations_with("new")),
                        "fixed_violations": len(self.violations_with("fixed")),
                        "still_failing": len(self.violations_with("failing"))},
            "cost": {**self.budget.to_json_dict(), "figures": [figure.to_json_dict() for figure in self.figures],
                     "budget_lines": [dict(line) for line in self.budget_lines]},
            "selection": self.selection.to_json_dict(),
            # A fleet's cost per workload (absent for a single stack, whose documents stay as they were).
            **({"workloads": [workload.to_json_dict() for workload in self.workloads]} if self.workloads else {}),
            "movers": [{"key": r.key, "name": r.name, "component": r.component, "action": r.action,
                        "before_monthly_usd": r.before_usd, "after_monthly_usd": r.after_usd,
                        "delta_monthly_usd": r.delta_usd} for r in self.movers],
            "resources": [resource.to_json_dict() for resource in self.resources],
            "policies": {"pack": self.policy_pack,
                         "violations": [violation.to_json_dict() for violation in self.violations]},
        }
