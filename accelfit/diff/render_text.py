"""The diff as plain text for a terminal: call-outs, summary, cost movers, resources by component, policies."""

from __future__ import annotations

from collections.abc import Callable

from accelfit.diff import format as fmt
from accelfit.diff.model import StackDiff
from accelfit.durations import usd
from accelfit.reports.table import render_table


def render_text(diff: StackDiff) -> str:
    return "\n".join(line for section in _SECTIONS for line in section(diff))


def _header(diff: StackDiff) -> list[str]:
    """The title and the notes on what is compared (another base stack, a new or removed stack)."""
    title = f"accelfit diff: stack {diff.stack} ({diff.environment})"
    out = [title, "=" * len(title)]
    if diff.base_stack != diff.stack:
        out.append(f"note: comparing stack {diff.base_stack} (base) with {diff.stack} (head)")
    if fmt.new_stack_text(diff):
        out.append(f"note: {fmt.new_stack_text(diff)}")
    if fmt.removed_stack_text(diff):
        out.append(f"note: {fmt.removed_stack_text(diff)}")
    return out


def _summary(diff: StackDiff) -> list[str]:
    """Call-outs, the cost figures, the budget, and the resource and policy counts."""
    out = [f"!! {title}: {text}" for title, text in fmt.callouts(diff)]
    out += [f"Monthly cost: {fmt.cost_line(diff)}"]
    out += [f"  {line}" for line in fmt.figure_lines(diff)]
    note = fmt.figures_note(diff)
    if note:
        out.append(f"  ({note})")
    out += [f"Budget: {line}" for line in fmt.budget_lines(diff)]
    out += [f"Resources: {fmt.resources_line(diff)}",
            f"Policies: {fmt.policies_line(diff)}"]
    return out


def _selection(diff: StackDiff) -> list[str]:
    """The selected option's change, the spec changes behind it, and a stale lock."""
    out: list[str] = []
    selection, stale = diff.selection, fmt.lock_stale_text(diff)
    if selection.option_changed and not diff.head_is_removed:
        out.append(f"Selection changed: {selection.base_option or '(none)'} -> {selection.head_option or '(none)'}")
    if diff.spec_changes:
        out += ["Spec changes behind it:" if selection.option_changed else "Spec changes:"]
        out += [f"  {fmt.spec_change_text(change)}" for change in diff.spec_changes]
    if stale:
        out.append(f"Lock is stale: {stale}")
    return out


def _workloads(diff: StackDiff) -> list[str]:
    """Each workload's monthly cost before and after, and its selection's change."""
    out: list[str] = []
    for item in diff.workloads:
        monthly = item.monthly
        before = usd(monthly.base_usd) if monthly.base_usd is not None else "-"
        after = usd(monthly.head_usd) if monthly.head_usd is not None else "-"
        out.append(f"Workload {item.workload}: monthly_usd {before} -> {after}")
        if item.option_changed and not diff.head_is_removed:
            out.append(f"  Selection changed: {item.base_option} -> {item.head_option}")
    return out


def _movers(diff: StackDiff) -> list[str]:
    """The resources whose monthly cost moved, as a table."""
    movers = diff.movers
    if not movers:
        return []
    rows = [[fmt.signed_usd(r.delta_usd), usd(r.before_usd), usd(r.after_usd), fmt.SYMBOL[r.action],
             fmt.short_type(r.type), r.name] for r in movers]
    return ["", "Cost movers (a month):",
            _indent(render_table(["change", "before", "after", "", "type", "resource"], rows))]


def _resources(diff: StackDiff) -> list[str]:
    """The changed resources by component, each with its replacement reason and changed inputs."""
    out = ["", "Resources:"] if diff.resources else []
    for component, members in diff.by_component().items():
        out.append(f"  {component}")
        for resource in members:
            protect = " [protected]" if resource.protect else ""
            out.append(f"    {fmt.SYMBOL[resource.action]:>2} {fmt.short_type(resource.type)} {resource.name}"
                       f"{protect}")
            if resource.action == "replace":
                out.append(f"         replaced: {fmt.replace_note(resource)}")
            for change in resource.changes:
                mark = "  (forces replacement)" if change.replaces_because else ""
                out.append(f"         {change.path}: {fmt.value_text(change.old)} -> {fmt.value_text(change.new)}"
                           f"{mark}")
    return out


def _violations(diff: StackDiff) -> list[str]:
    """The policy violations, each with its message."""
    if not diff.violations:
        return []
    out = ["", "Policy violations:"]
    for v in diff.violations:
        out += [f"  {v.status:<7} {v.level:<9} {v.policy} on {v.resource or '(stack)'}", f"          {v.message}"]
    return out


_SECTIONS: tuple[Callable[[StackDiff], list[str]], ...] = (
    _header, _summary, _selection, _workloads, _movers, _resources, _violations)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
