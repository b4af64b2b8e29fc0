"""`accelfit lock --stack ENV`: pin the chosen option into the stack file (`accelfit:selection`)."""

from __future__ import annotations

import datetime as dt

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE


@click.command()
@click.option("--stack", "stack_name", required=True, help="The stack whose stacks/Pulumi.<STACK>.yaml to lock.")
@click.option("--fresh", is_flag=True, help="Lock a fresh plan even if the current lock is still valid.")
@click.pass_context
def lock(ctx: click.Context, stack_name: str, fresh: bool) -> None:
    """Plan the stack's workload and write the choice into its stack file."""
    from accelfit.catalog import load_catalog
    from accelfit.lockfile import write_selection
    from accelfit.planner import NoFeasiblePlan
    from accelfit.planner.lock import Selection, plan_with_lock
    from accelfit.stackfile import load_stack

    stack = load_stack(stack_name)
    current = None if fresh else stack.selection
    from accelfit.policy_config import stack_environment

    catalog = load_catalog()
    try:
        plan, status = plan_with_lock(stack.spec, catalog, stack_environment(stack, catalog), current)
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    if status.state == "used" and current is not None:
        click.echo(f"kept: {current.option} is still valid ({status.message}); use --fresh to re-plan")
        return
    selection = Selection.from_plan(plan, dt.date.today())
    write_selection(stack.path, stack.project, selection)
    click.echo(f"locked {selection.option} into {stack.path} (${selection.monthly_usd:,.0f}/month, "
               f"${selection.total_usd:,.0f} total)")
