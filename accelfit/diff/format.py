"""Words and numbers shared by the text and markdown renderings of a diff, so they say the same thing."""

from __future__ import annotations

import json
import math
from typing import Any

from accelfit.diff.inputs import MISSING
from accelfit.diff.model import Action, InputChange, ResourceDiff, StackDiff
from accelfit.durations import usd
from accelfit.sizes import format_count

VALUE_CHARS = 60  # a changed input longer than this is cut; the JSON output carries it whole
SYMBOL = {"add": "+", "replace": "+-", "change": "~", "remove": "-"}  # the signs `pulumi preview` uses
VERB = {"add": "to add", "replace": "to replace", "change": "to change", "remove": "to remove"}


def signed_usd(amount: float) -> str:
    if round(amount, 2) == 0:
        return "$0"
    return ("+" if amount > 0 else "-") + usd(abs(amount))


def pct_text(pct: float | None) -> str:
    if pct is None:
        return "no change"
    if math.isinf(pct):
        return "new cost"
    return f"{pct:+.1f}%"


def value_text(value: Any, limit: int = VALUE_CHARS) -> str:
    if value is MISSING:
        return "(unset)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit - 1] + "…"


# Spec fields people write with a suffix (70B, 2T); shown the same way in a diff.
_COUNT_FIELDS = ("model.parameters", "training.tokens")


def spec_change_text(change: InputChange, arrow: str = "->") -> str:
    """'model.parameters: 1B -> 3B'."""
    def shown(value: Any) -> str:
        if change.path in _COUNT_FIELDS and isinstance(value, (int, float)) and not isinstance(value, bool):
            return format_count(value)
        return value_text(value, 60)

    return f"{change.path}: {shown(change.old)} {arrow} {shown(change.new)}"


def new_stack_text(diff: StackDiff) -> str | None:
    if not diff.base_is_new:
        return None
    return f"stack {diff.stack} does not exist on the base side: a new stack, every resource is new"


def removed_stack_text(diff: StackDiff) -> str | None:
    if not diff.head_is_removed:
        return None
    # Deleting the stack file stops the deploys, not the spending: the resources run until the stack is destroyed.
    return (f"stack {diff.stack} does not exist on the head side: the change deletes it, every resource is to be "
            f"removed and its cost goes to $0 a month once it is destroyed (`pulumi destroy --stack {diff.stack}`; "
            "deleting the stack file alone leaves it running)")


def short_type(token: str) -> str:
    """'gcp:container/nodePool:NodePool' -> 'gcp:NodePool'."""
    provider, _, rest = token.partition(":")
    return f"{provider}:{rest.rsplit(':', 1)[-1]}"


def cost_line(diff: StackDiff, arrow: str = "->") -> str:
    guard = diff.budget
    return (f"{usd(guard.base_monthly_usd)} {arrow} {usd(guard.head_monthly_usd)} a month as planned "
            f"({signed_usd(guard.delta_usd)}, {pct_text(guard.increase_pct)})")


FIGURE_WORDS = {"monthly_usd": "a month as planned", "full_scale_monthly_usd": "a month at full scale",
                "run_total_usd": "for the whole run"}


def figure_lines(diff: StackDiff, arrow: str = "->") -> list[str]:
    """The three cost figures, base to head, with the names the plan, the preview and the README use."""
    out = []
    for change in diff.figures:
        if change.base_usd is None and change.head_usd is None:
            continue
        base = usd(change.base_usd) if change.base_usd is not None else "n/a"
        head = usd(change.head_usd) if change.head_usd is not None else "n/a"
        delta = f" ({signed_usd(change.delta_usd)})" if change.delta_usd is not None else ""
        out.append(f"{change.figure}: {base} {arrow} {head} {FIGURE_WORDS[change.figure]}{delta}")
    return out


def figures_note(diff: StackDiff) -> str | None:
    """Why a month costs more than a short run, where both figures are shown."""
    figures = {change.figure: change.head_usd for change in diff.figures}
    monthly, run = figures.get("monthly_usd"), figures.get("run_total_usd")
    if monthly is None or run is None or monthly <= run:
        return None
    return (f"monthly_usd ({usd(monthly)}) is above run_total_usd ({usd(run)}): the always-on parts bill all month "
            "while the stack exists, the run pays them only while it lasts.")


def budget_lines(diff: StackDiff) -> list[str]:
    """One line per budget source (the spec's own, the environment's policy), named, head's figures."""
    out = []
    for line in diff.budget_lines:
        state = "within" if line.get("within") else "OVER"
        out.append(f"{line.get('source')}: {line.get('figure')} {usd(float(line.get('actual_usd', 0)))} of "
                   f"{usd(float(line.get('limit_usd', 0)))} ({state}, {line.get('level')})")
    if not out and diff.budget.max_monthly_usd is not None:
        out.append(f"spec budget.max_monthly_usd: monthly_usd {usd(diff.budget.head_monthly_usd)} of "
                   f"{usd(diff.budget.max_monthly_usd)}")
    return out


def resources_line(diff: StackDiff) -> str:
    shown: tuple[Action, ...] = ("add", "change", "replace", "remove")
    counts = ", ".join(f"{diff.count(action)} {VERB[action]}" for action in shown)
    repriced = f", {len(diff.repriced)} of them repriced" if diff.repriced else ""
    return f"{counts} ({diff.unchanged} unchanged{repriced})"


def policies_line(diff: StackDiff) -> str:
    new = diff.violations_with("new")
    mandatory = sum(1 for v in new if v.level == "mandatory")
    detail = f" ({mandatory} mandatory)" if mandatory else ""
    return (f"{len(new)} new{detail}, {len(diff.violations_with('fixed'))} fixed, "
            f"{len(diff.violations_with('failing'))} still failing")


def callouts(diff: StackDiff) -> list[tuple[str, str]]:
    """The budget guard's findings as (title, text), most serious first; empty when there is nothing to call
    out."""
    guard = diff.budget
    out = []
    if guard.over_budget and guard.max_monthly_usd is not None:
        over = guard.head_monthly_usd - guard.max_monthly_usd
        when = ("this change pushes it over" if not guard.was_over_budget
                else "it was already over; this change " + ("raises" if guard.delta_usd > 0 else "does not raise")
                + " the cost")
        out.append(("Over budget", f"{usd(guard.head_monthly_usd)} a month as planned against a budget of "
                   f"{usd(guard.max_monthly_usd)} (over by {usd(over)}); {when}."))
    for workload in diff.workloads:
        if workload.over_budget and workload.max_monthly_usd is not None:
            head = workload.monthly.head_usd or 0.0
            when = "this change pushes it over" if workload.pushes_over_budget else "this change does not raise it"
            out.append((f"Workload {workload.workload} over budget",
                        f"{usd(head)} a month as planned (its own resources and its share of the cluster) against "
                        f"its spec's budget of {usd(workload.max_monthly_usd)} (over by "
                        f"{usd(head - workload.max_monthly_usd)}); {when}."))
    if guard.increase_exceeded:
        out.append(("Cost increase", f"{pct_text(guard.increase_pct)} ({signed_usd(guard.delta_usd)} a month) "
                                     f"exceeds the {guard.fail_on_increase_pct:g}% allowed by --fail-on-increase."))
    return out


def lock_stale_text(diff: StackDiff) -> str | None:
    """The lock line, when the lock is stale (a fresh plan would choose differently than the locked option)."""
    if not diff.selection.lock_stale:
        return None
    return diff.selection.lock_message or "a fresh plan would choose a different option than the locked one"


def replace_note(resource: ResourceDiff) -> str:
    reasons = "; ".join(resource.replace_reasons)
    refused = " The resource is protected: the engine will refuse to replace it." if resource.protect else ""
    return f"{reasons}.{refused}" if reasons else refused.strip()
