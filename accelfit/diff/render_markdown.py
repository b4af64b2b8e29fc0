"""The diff as a pull-request comment: what a reviewer needs in seconds first (budget call-outs, cost, counts,
new violations, biggest cost movers), everything else folded in <details>.

A GitHub comment holds at most 65,536 characters. The summary is always kept whole; the folded details are cut
resource by resource when they would not fit, with a note saying how many were left out and where to find them
(the `--json` output holds everything). The comment starts with a hidden marker naming the stack, which the CI
workflow uses to find and update its own comment instead of adding a new one on every push.
"""

from __future__ import annotations

from collections.abc import Callable

from accelfit.diff import format as fmt
from accelfit.diff.model import FigureChange, ResourceDiff, StackDiff, ViolationDiff
from accelfit.durations import usd
from accelfit.reports.table import render_markdown_table

GITHUB_COMMENT_LIMIT_CHARS = 65_536
DEFAULT_MAX_CHARS = 64_000  # headroom under GitHub's limit for anything a workflow appends
MOVERS_SHOWN = 10
INPUTS_SHOWN_PER_RESOURCE = 20
_CLOSE_AND_NOTE_CHARS = 400  # reserved for the closing tags and the truncation note


def marker(stack: str) -> str:
    """The hidden line that identifies this stack's comment on a pull request."""
    return f"<!-- accelfit:{stack} -->"


def render_markdown(diff: StackDiff, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    summary = _summary(diff)
    policy_details = _policy_details(diff)
    blocks = _resource_blocks(diff)
    room = max_chars - len(summary) - len(policy_details) - _CLOSE_AND_NOTE_CHARS
    shown: list[str] = []
    for block in blocks:
        if len(block) + 1 > room:
            break
        shown.append(block)
        room -= len(block) + 1
    out = summary + policy_details
    if blocks:
        groups = "workload(s)" if diff.is_fleet else "component(s)"
        out += (f"<details><summary>Resources: {len(diff.resources)} changed in {len(diff.components)} "
                f"{groups}</summary>\n\n" + "\n".join(shown))
        left_out = len(blocks) - len(shown)
        if left_out:
            out += (f"\n_{left_out} more resource change(s) not shown: the comment would exceed GitHub's "
                    f"{GITHUB_COMMENT_LIMIT_CHARS:,}-character limit. Run `accelfit diff --json` (or open the "
                    "workflow's artifact) for the complete list._\n")
        out += "\n</details>\n"
    return out


def _summary(diff: StackDiff) -> str:
    out = [line for section in _SUMMARY_SECTIONS for line in section(diff)]
    return "\n".join(out) + "\n"


def _summary_header(diff: StackDiff) -> list[str]:
    """The marker, the title and the notes on what is compared (another base stack, a new or removed stack)."""
    out = [marker(diff.stack), f"### accelfit diff: `{diff.stack}` ({diff.environment})", ""]
    if diff.base_stack != diff.stack:
        out += [f"_Comparing stack `{diff.base_stack}` (base) with `{diff.stack}` (head)._", ""]
    if fmt.new_stack_text(diff):
        out += [f"_New stack: {_md(fmt.new_stack_text(diff) or '')}._", ""]
    if fmt.removed_stack_text(diff):
        out += [f"_Removed stack: {_md(fmt.removed_stack_text(diff) or '')}._", ""]
    return out


def _summary_callouts(diff: StackDiff) -> list[str]:
    callouts = fmt.callouts(diff)
    if not callouts:
        return []
    # GitHub renders this as a red "Caution" box; elsewhere it degrades to a plain quote.
    out = ["> [!CAUTION]"]
    for index, (title, text) in enumerate(callouts):
        out += ([">"] if index else []) + [f"> **{title}:** {_md(text)}"]
    out.append("")
    return out


def _summary_figures(diff: StackDiff) -> list[str]:
    """The cost figures, the budget, and the resource and policy counts."""
    out = [f"- **Monthly cost:** {_md(fmt.cost_line(diff, arrow='→'))}"]
    for line in fmt.figure_lines(diff, arrow="→"):
        name, _, rest = line.partition(": ")
        out.append(f"  - `{name}`: {_md(rest)}")
    note = fmt.figures_note(diff)
    if note:
        out.append(f"  - _{_md(note)}_")
    for line in fmt.budget_lines(diff):
        source, _, rest = line.partition(": ")
        out.append(f"- **Budget** ({_md(source)}): {_md(rest)}")
    out += [f"- **Resources:** {fmt.resources_line(diff)}",
            f"- **Policies:** {fmt.policies_line(diff)}"]
    return out


def _summary_selection(diff: StackDiff) -> list[str]:
    """The selected options' changes (the stack's and each workload's), the spec changes, and a stale lock."""
    out: list[str] = []
    selection, stale = diff.selection, fmt.lock_stale_text(diff)
    if selection.option_changed and not diff.head_is_removed:
        out.append(f"- **Selection changed:** {_code(selection.base_option or '(none)')} → "
                   f"{_code(selection.head_option or '(none)')}")
    for workload in diff.workloads:
        if workload.option_changed and not diff.head_is_removed:
            out.append(f"- **Selection changed ({_code(workload.workload)}):** {_code(workload.base_option or '')} → "
                       f"{_code(workload.head_option or '')}")
    if diff.spec_changes:
        out.append("- **Spec changes:** " + ", ".join(_code(fmt.spec_change_text(change, arrow="→"))
                                                     for change in diff.spec_changes[:20]))
    if stale:
        out.append(f"- **Lock is stale:** {_md(stale)}")
    out.append("")
    return out


def _summary_tables(diff: StackDiff) -> list[str]:
    """Cost by workload, the new policy violations."""
    out: list[str] = []
    if diff.workloads:
        out += ["#### Cost by workload (a month as planned)", "", _workload_table(diff), ""]
    new = diff.violations_with("new")
    if new:
        out += [f"#### New policy violations ({len(new)})", "", _violation_table(new), ""]
    return out


def _summary_movers(diff: StackDiff) -> list[str]:
    """The largest cost movers, as a table (the rest are under Resources)."""
    movers = diff.movers
    if not movers:
        return []
    rows = [[fmt.signed_usd(r.delta_usd), usd(r.before_usd), usd(r.after_usd), _code(fmt.SYMBOL[r.action]),
             _code(r.name), r.component] for r in movers[:MOVERS_SHOWN]]
    out = ["#### Cost movers (a month)", "",
           render_markdown_table(["change", "before", "after", "", "resource",
                                  "workload" if diff.is_fleet else "component"], rows,
                                 align=["r", "r", "r", "l", "l", "l"])]
    if len(movers) > MOVERS_SHOWN:
        out.append(f"\n_{len(movers) - MOVERS_SHOWN} smaller movers are listed under Resources below._")
    out.append("")
    return out


_SUMMARY_SECTIONS: tuple[Callable[[StackDiff], list[str]], ...] = (
    _summary_header, _summary_callouts, _summary_figures, _summary_selection, _summary_tables, _summary_movers)


def _workload_table(diff: StackDiff) -> str:
    """A fleet's three figures per workload, before → after (shared items as `<cluster>-shared`, counted once)."""
    def cell(change: FigureChange) -> str:
        if change.base_usd is None and change.head_usd is None:
            return "-"
        if change.head_usd is not None and change.base_usd == change.head_usd:
            return usd(change.head_usd)
        delta = f" ({fmt.signed_usd(change.delta_usd)})" if change.delta_usd is not None else ""
        return f"{usd(change.base_usd) if change.base_usd is not None else '-'} → " \
               f"{usd(change.head_usd) if change.head_usd is not None else '-'}{delta}"

    rows = [[_code(item.workload), *(cell(change) for change in item.figures)] for item in diff.workloads]
    return render_markdown_table(["workload", "monthly_usd", "full_scale_monthly_usd", "run_total_usd"], rows)


def _policy_details(diff: StackDiff) -> str:
    out = ""
    for status, title in (("failing", "Still failing"), ("fixed", "Fixed")):
        violations = diff.violations_with(status)  # type: ignore[arg-type]
        if violations:
            out += (f"<details><summary>{title}: {len(violations)} policy violation(s)</summary>\n\n"
                    f"{_violation_table(violations)}\n\n</details>\n\n")
    return out


def _resource_blocks(diff: StackDiff) -> list[str]:
    """One block per changed resource; the first of each component carries the component heading."""
    blocks: list[str] = []
    for component, members in diff.by_component().items():
        counts = ", ".join(f"{sum(r.action == a for r in members)} {fmt.VERB[a]}"
                           for a in ("add", "change", "replace", "remove") if any(r.action == a for r in members))
        delta = sum(r.delta_usd for r in members)
        heading = f"**{_code(component)}** · {counts} · {fmt.signed_usd(delta)} a month\n\n"
        for index, resource in enumerate(members):
            blocks.append((heading if index == 0 else "") + _resource_block(resource))
    return blocks


def _resource_block(resource: ResourceDiff) -> str:
    cost = ""
    if resource.delta_usd:
        cost = (f" · {usd(resource.before_usd)} → {usd(resource.after_usd)} "
                f"({fmt.signed_usd(resource.delta_usd)})")
    elif resource.after_usd or resource.before_usd:
        cost = f" · {usd(resource.after_usd or resource.before_usd)} a month"
    protect = " · protected" if resource.protect else ""
    line = (f"- {_code(fmt.SYMBOL[resource.action])} {resource.action} {_code(resource.name)} "
            f"({fmt.short_type(resource.type)}){cost}{protect}")
    if resource.action == "replace":
        line += f"  \n  replaced because: {_md(fmt.replace_note(resource))}"
    elif resource.action == "remove" and resource.protect:
        line += "  \n  The resource is protected: the engine will refuse to delete it."
    if not resource.changes:
        return line + "\n"
    rows = [[_code(c.path) + (" ⚠ replaces" if c.replaces_because else ""), _code(fmt.value_text(c.old)),
             _code(fmt.value_text(c.new))] for c in resource.changes[:INPUTS_SHOWN_PER_RESOURCE]]
    table = render_markdown_table(["input", "before", "after"], rows)
    hidden = len(resource.changes) - INPUTS_SHOWN_PER_RESOURCE
    more = f"\n\n  _{hidden} more changed input(s) in the JSON output._" if hidden > 0 else ""
    # A table must start after a blank line and be indented to stay inside the list item.
    return line + "\n\n" + "\n".join("  " + row for row in table.splitlines()) + more + "\n"


def _violation_table(violations: tuple[ViolationDiff, ...]) -> str:
    rows = [[v.level, _code(v.policy), _code(v.resource) if v.resource else "(stack)", _md(v.message)]
            for v in violations]
    return render_markdown_table(["level", "policy", "resource", "message"], rows)


def _code(text: str) -> str:
    """An inline code span that survives backticks inside the text."""
    text = text.replace("\n", " ")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _md(text: str) -> str:
    """Plain text in a markdown line: no line breaks; HTML-like angle brackets escaped."""
    return " ".join(text.split()).replace("<", "&lt;").replace(">", "&gt;")
