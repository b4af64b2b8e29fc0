"""Compare two preview documents (base: the target branch, head: the change) into a `StackDiff`. Pure: data in,
data out."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from accelfit.diff.document import PreviewDocument, Resource, Violation
from accelfit.diff.inputs import changed_paths
from accelfit.diff.model import (ACTIONS, Action, BudgetGuard, FigureChange, InputChange, ResourceDiff, SelectionChange,
                                 StackDiff, ViolationDiff, WorkloadCost)
from accelfit.diff.replacement import replacement_reason

NO_COMPONENT = "(stack)"
_LEVEL_ORDER = {"mandatory": 0, "advisory": 1}
_STATUS_ORDER = {"new": 0, "failing": 1, "fixed": 2}


def diff_documents(base: PreviewDocument, head: PreviewDocument,
                   fail_on_increase_pct: float | None = None) -> StackDiff:
    base_by_key = {r.key: r for r in base.resources if r.custom}
    head_by_key = {r.key: r for r in head.resources if r.custom}
    # A fleet's changes are grouped by the workload each resource belongs to; a single stack's by component.
    base_roots, head_roots = _group_of(base.resources), _group_of(head.resources)
    diffs: list[ResourceDiff] = []
    repriced: list[ResourceDiff] = []
    unchanged = 0
    for key in sorted(set(base_by_key) | set(head_by_key)):
        old, new = base_by_key.get(key), head_by_key.get(key)
        if old is None and new is not None:
            diffs.append(_whole(new, "add", head_roots[key]))
        elif new is None and old is not None:
            diffs.append(_whole(old, "remove", base_roots[key]))
        elif old is not None and new is not None:
            changed = _changed(old, new, head_roots[key])
            if changed is None:
                unchanged += 1
            elif not changed.changes and old.protect == new.protect:
                # Same inputs, so the engine changes nothing; only the price moved. Shown among the cost movers.
                unchanged += 1
                repriced.append(changed)
            else:
                diffs.append(changed)
    order = {action: index for index, action in enumerate(ACTIONS)}
    diffs.sort(key=lambda d: (d.component, order[d.action], d.name, d.key))
    return StackDiff(
        stack=head.stack, environment=head.environment, base_source=base.source, head_source=head.source,
        base_stack=base.stack, resources=tuple(diffs), unchanged=unchanged,
        violations=_violations(base.violations, head.violations),
        selection=SelectionChange(base_option=base.option, head_option=head.option, lock_state=head.lock_state,
                                  lock_message=head.lock_message),
        budget=BudgetGuard(max_monthly_usd=head.max_monthly_usd, base_monthly_usd=base.monthly_usd,
                           head_monthly_usd=head.monthly_usd, fail_on_increase_pct=fail_on_increase_pct),
        policy_pack=head.policy_pack or base.policy_pack,
        figures=(FigureChange("monthly_usd", base.monthly_usd, head.monthly_usd),
                 FigureChange("full_scale_monthly_usd", base.full_scale_monthly_usd, head.full_scale_monthly_usd),
                 FigureChange("run_total_usd", base.run_total_usd, head.run_total_usd)),
        budget_lines=tuple(dict(line) for line in head.budget_lines),
        spec_changes=_spec_changes(base, head), repriced=tuple(repriced), base_is_new=base.new_stack,
        head_is_removed=head.removed_stack,
        workloads=_workload_costs(base, head))


def _workload_costs(base: PreviewDocument, head: PreviewDocument) -> tuple[WorkloadCost, ...]:
    """Per workload (a fleet on either side), its three figures before and after; absent on a side = None."""
    if base.workload_costs is None and head.workload_costs is None:
        return ()
    before, after = base.workload_costs or {}, head.workload_costs or {}
    if head.removed_stack:
        # The change deletes the whole fleet: each workload's figures go to zero, as the stack's do.
        after = {name: dict.fromkeys(("monthly_usd", "full_scale_monthly_usd", "run_total_usd"), 0.0)
                 for name in before}
    names = list(dict.fromkeys([*after, *before]))
    return tuple(WorkloadCost(name, tuple(
        FigureChange(figure, (before.get(name) or {}).get(figure), (after.get(name) or {}).get(figure))
        for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd")),
        max_monthly_usd=(after.get(name) or {}).get("max_monthly_usd"),
        base_option=(before.get(name) or {}).get("option"), head_option=(after.get(name) or {}).get("option"))
        for name in names)


def _group_of(resources: Iterable[Resource]) -> dict[str, str]:
    resources = list(resources)
    roots = _component_of(resources)
    return {resource.key: resource.workload or roots[resource.key] for resource in resources}


def _spec_changes(base: PreviewDocument, head: PreviewDocument) -> tuple[InputChange, ...]:
    """Spec fields that differ, when both documents carry the spec (the reason a plan changed)."""
    if base.spec is None or head.spec is None:
        return ()
    return tuple(InputChange(path=path, old=before, new=after, replaces_because=None)
                 for path, before, after in changed_paths(base.spec, head.spec))


def _component_of(resources: Iterable[Resource]) -> dict[str, str]:
    """Resource key -> name of its top-level component (parents are recorded by name)."""
    resources = list(resources)
    parent_of = {r.name: r.parent for r in resources}
    roots: dict[str, str] = {}
    for resource in resources:
        root, parent, seen = NO_COMPONENT, resource.parent, set()
        while parent and parent not in seen:  # `seen` guards a malformed parent cycle
            seen.add(parent)
            root, parent = parent, parent_of.get(parent)
        roots[resource.key] = root
    return roots


def _whole(resource: Resource, action: str, component: str) -> ResourceDiff:
    added = action == "add"
    return ResourceDiff(key=resource.key, type=resource.type, name=resource.name, component=component,
                        action=action,  # type: ignore[arg-type]
                        changes=(), before_usd=0.0 if added else resource.monthly_usd,
                        after_usd=resource.monthly_usd if added else 0.0, protect=resource.protect)


def _ignored(path: str, ignore_changes: tuple[str, ...]) -> bool:
    """Under an ignoreChanges path: the engine keeps the state's value, so the input neither updates nor replaces
    the resource (https://www.pulumi.com/docs/iac/concepts/options/ignorechanges/)."""
    return any(path == ignored or path.startswith((f"{ignored}.", f"{ignored}[")) for ignored in ignore_changes)


def _changed(old: Resource, new: Resource, component: str) -> ResourceDiff | None:
    changes = tuple(InputChange(path=path, old=before, new=after, replaces_because=replacement_reason(new.type, path))
                    for path, before, after in changed_paths(old.inputs, new.inputs)
                    if not _ignored(path, new.ignore_changes))
    cost_moved = round(new.monthly_usd - old.monthly_usd, 2) != 0
    if not changes and not cost_moved and old.protect == new.protect:
        return None
    # A cost that moved with no input change (a price update in the catalog) still shows, as a change.
    action: Action = "replace" if any(change.replaces_because for change in changes) else "change"
    return ResourceDiff(key=new.key, type=new.type, name=new.name, component=component, action=action,
                        changes=changes, before_usd=old.monthly_usd, after_usd=new.monthly_usd, protect=new.protect)


def _violations(base: Iterable[Violation], head: Iterable[Violation]) -> tuple[ViolationDiff, ...]:
    """Match by (policy, resource); several violations under one key pair identical messages first, then in
    order. Unmatched head violations are new, unmatched base ones are fixed."""
    before: dict[tuple[str, str], list[Violation]] = defaultdict(list)
    after: dict[tuple[str, str], list[Violation]] = defaultdict(list)
    for violation in base:
        before[violation.key].append(violation)
    for violation in head:
        after[violation.key].append(violation)
    out: list[ViolationDiff] = []
    for key in set(before) | set(after):
        old, new = list(before.get(key, [])), list(after.get(key, []))
        for violation in list(new):
            twin = next((o for o in old if o.message == violation.message), None)
            if twin is not None:
                old.remove(twin)
                new.remove(violation)
                out.append(_status("failing", violation))
        for violation in new[:len(old)]:
            out.append(_status("failing", violation))
        out += [_status("new", violation) for violation in new[len(old):]]
        out += [_status("fixed", violation) for violation in old[len(new):]]
    out.sort(key=lambda v: (_STATUS_ORDER[v.status], _LEVEL_ORDER.get(v.level, 2), v.policy, v.resource or "",
                            v.message))
    return tuple(out)


def _status(status: str, violation: Violation) -> ViolationDiff:
    return ViolationDiff(status=status, policy=violation.policy,  # type: ignore[arg-type]
                         level=violation.level, resource=violation.resource, message=violation.message)
