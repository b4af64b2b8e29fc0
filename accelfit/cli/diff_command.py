"""`accelfit diff BASE HEAD`: what a change does to an environment, from two `accelfit preview --json` documents.

Exit codes: 0 fine (also when costs rose, unless a guard below was asked for); 1 a guard that was asked for
tripped (`--fail-on-increase PCT`, `--fail-over-budget`), naming the flag on stderr; 2 invalid input (a document
that cannot be read, names the file and the field).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE, InputError, problem

if TYPE_CHECKING:
    from accelfit.diff import PreviewDocument, StackDiff


@click.command()
@click.argument("base", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.argument("head", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--base-ref", metavar="REF", help="Preview --stack at this git revision as BASE (a temporary "
              "worktree); HEAD defaults to the working tree's preview.")
@click.option("--stack", "stack_name", metavar="ENV", help="The stack to preview with --base-ref.")
@click.option("--markdown", is_flag=True, help="Print a pull-request comment (summary first, details folded).")
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON.")
@click.option("--fail-on-increase", "fail_on_increase_pct", type=click.FloatRange(min=0), metavar="PCT",
              help="Exit 1 when the monthly cost rises by more than PCT percent.")
@click.option("--different-stacks", is_flag=True, help="Allow BASE and HEAD to be previews of two different "
              "stacks (e.g. staging against prod); without it that is an error.")
@click.option("--fail-over-budget", is_flag=True, help="Exit 1 when the change raises the cost of an "
              "environment that is then over its budget.max_monthly_usd (in a fleet: of a workload then over its "
              "spec's budget).")
@click.pass_context
def diff(ctx: click.Context, base: Path | None, head: Path | None, base_ref: str | None, stack_name: str | None,
         markdown: bool, as_json: bool, fail_on_increase_pct: float | None, different_stacks: bool,
         fail_over_budget: bool) -> None:
    """Compare two previews of one stack: resources added, changed, replaced and removed by component; monthly
    cost before and after with the biggest movers; policy violations new, fixed and still failing."""
    from accelfit.diff import diff_documents

    if markdown and as_json:
        raise InputError([problem(None, "--markdown/--json", "choose one output format", "pass only one of them")])
    base_doc, head = _base_document(base, head, base_ref, stack_name)
    head_doc = _head_document(ctx, head, base_doc, stack_name)
    if head_doc is None:
        return
    if base_doc.stack != head_doc.stack and not base_doc.new_stack and not different_stacks:
        raise InputError([problem(head_doc.source, "stack", f"BASE previews stack {base_doc.stack!r} but HEAD "
                                  f"previews {head_doc.stack!r}", "compare previews of the same stack, or pass "
                                  "--different-stacks to compare two stacks on purpose")])
    result = diff_documents(base_doc, head_doc, fail_on_increase_pct)
    _print(result, markdown, as_json)
    tripped = _tripped(result, fail_on_increase_pct, fail_over_budget)
    for line in tripped:
        click.echo(f"failed: {line}", err=True)
    if tripped:
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)


def _base_document(base: Path | None, head: Path | None, base_ref: str | None,
                   stack_name: str | None) -> tuple[PreviewDocument, Path | None]:
    """BASE (a file, or --stack previewed at --base-ref) and the HEAD file left to read (a lone file given with
    --base-ref is HEAD)."""
    from accelfit.diff import parse_document, read_document

    if base_ref is not None:
        if base is not None and head is None:
            head, base = base, None  # `accelfit diff --base-ref main --stack dev head.json`
        if base is not None or not stack_name:
            raise InputError([problem(None, "--base-ref", "takes --stack ENV and at most a HEAD file, not BASE",
                                      "use `accelfit diff --base-ref REF --stack ENV [HEAD]`")])
        from accelfit.stackfile import check_stack_name

        check_stack_name(stack_name)
        return parse_document(*_preview_at(base_ref, stack_name)), head
    if base is None or head is None:
        raise InputError([problem(None, "BASE HEAD", "two preview documents are needed",
                                  "run `accelfit diff base.json head.json`, or `--base-ref REF --stack ENV`")])
    return read_document(base), head


def _head_document(ctx: click.Context, head: Path | None, base_doc: PreviewDocument,
                   stack_name: str | None) -> PreviewDocument | None:
    """HEAD: the file given, an empty stack when the change deletes it, or the working tree's preview; None when
    the working tree has no feasible plan (said on stderr, exit code set)."""
    from accelfit.diff import parse_document, read_document

    if head is not None:
        return read_document(head)
    if not base_doc.new_stack and not _exists_here(stack_name or ""):
        # The change deletes the stack (its file is gone from the working tree): everything is to be removed.
        from accelfit.diff.document import removed_stack_document

        return parse_document(removed_stack_document(stack_name or ""), f"{stack_name} (working tree, removed)")
    from accelfit.planner import NoFeasiblePlan

    try:
        return parse_document(*_preview_here(stack_name or ""))
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan for the working tree's {stack_name}: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return None


def _print(result: StackDiff, markdown: bool, as_json: bool) -> None:
    from accelfit.diff import render_markdown, render_text

    if as_json:
        click.echo(json.dumps(result.to_json_dict(), indent=2, sort_keys=True))
    elif markdown:
        click.echo(render_markdown(result), nl=False)
    else:
        click.echo(render_text(result))


def _tripped(result: StackDiff, fail_on_increase_pct: float | None, fail_over_budget: bool) -> list[str]:
    """The --fail-on-increase / --fail-over-budget gates the change trips, each as the line stderr shows."""
    from accelfit.diff.format import pct_text

    tripped = []
    if result.budget.increase_exceeded:
        tripped.append(f"--fail-on-increase {fail_on_increase_pct:g}: the monthly cost rose "
                       f"{pct_text(result.budget.increase_pct)}")
    if fail_over_budget and result.budget.pushes_over_budget:
        tripped.append(f"--fail-over-budget: {result.budget.head_monthly_usd:,.2f} USD a month is over the budget "
                       f"of {result.budget.max_monthly_usd:,.2f}")
    for workload in result.workloads if fail_over_budget else ():
        if workload.pushes_over_budget:
            tripped.append(f"--fail-over-budget: workload {workload.workload} costs "
                           f"{workload.monthly.head_usd or 0.0:,.2f} USD a month, over its budget of "
                           f"{workload.max_monthly_usd:,.2f}")
    return tripped


def _preview_at(ref: str, stack: str) -> tuple[object, str]:
    from accelfit.diff.at_revision import preview_at_revision
    from accelfit.stackfile import find_project_dir

    return preview_at_revision(ref, stack, find_project_dir())


def _exists_here(stack: str) -> bool:
    from accelfit.diff.at_revision import stack_exists
    from accelfit.stackfile import find_project_dir

    return stack_exists(find_project_dir(), stack)


def _preview_here(stack: str) -> tuple[object, str]:
    """HEAD for --base-ref: the working tree's preview, run in this process."""
    from accelfit.preview.run import preview_stack

    return preview_stack(stack).document, f"{stack} (working tree)"
