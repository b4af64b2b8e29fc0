"""`accelfit preview --stack ENV`: the program run offline under mocks, priced and policy-checked."""

from __future__ import annotations

import atexit
import gc
import json

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE


@click.command()
@click.option("--stack", "stack_name", required=True, help="The stack to preview (stacks/Pulumi.<STACK>.yaml).")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON document (input of `accelfit diff`).")
@click.option("--markdown", is_flag=True, help="Print markdown (for pull-request comments).")
@click.option("--timings", is_flag=True, help="Print how long each part took to stderr.")
@click.option("--locked", is_flag=True,
              help="Build only the locked selection; fail (exit 1) when there is none or it is stale instead of "
                   "building a fresh plan. CI: set ACCELFIT_LOCKED=1.")
@click.pass_context
def preview(ctx: click.Context, stack_name: str, as_json: bool, markdown: bool, timings: bool, locked: bool) -> None:
    """Preview a stack in-process: plan, resources, monthly cost and policy results. Exit 1 on a mandatory
    policy violation or when no plan fits."""
    from accelfit.planner import NoFeasiblePlan
    from accelfit.planner.lock import LockRequired
    from accelfit.lock_setting import env_lock_required
    from accelfit.preview.run import preview_stack

    locked = locked or env_lock_required()  # ACCELFIT_LOCKED, read as the program reads it

    # The program under mocks leaves some 10^5 objects behind (a 700-resource fleet); the interpreter's last
    # garbage collections at exit would walk them all for about a second. Frozen objects are left out of those
    # collections (finalizers and output flushing still run), so the process ends when the work does.
    atexit.register(gc.freeze)

    try:
        result = preview_stack(stack_name, locked=locked)
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    except LockRequired as failure:
        click.echo(f"lock required: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    for warning in result.document.get("warnings", []):
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        click.echo(json.dumps(result.document, indent=2, sort_keys=True))
    elif markdown:
        from accelfit.reports.preview_report import render_markdown

        click.echo(render_markdown(result.document))
    else:
        from accelfit.reports.preview_report import render_text

        click.echo(render_text(result.document))
    if timings:
        t = result.timings
        click.echo(f"timings: imports {t.imports_s:.2f}s, program {t.program_s:.2f}s, pricing {t.pricing_s:.3f}s, "
                   f"policies {t.policies_s:.3f}s", err=True)
    if result.mandatory_violations:
        click.echo(f"{result.mandatory_violations} mandatory policy violation(s)", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
