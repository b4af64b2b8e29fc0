"""`accelfit lock --stack ENV`: pin the chosen option into the stack file (`accelfit:selection`)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE

if TYPE_CHECKING:
    from accelfit.stackfile import StackFile


@click.command()
@click.option("--stack", "stack_name", required=True, help="The stack whose stacks/Pulumi.<STACK>.yaml to lock.")
@click.option("--fresh", is_flag=True, help="Lock a fresh plan even if the current lock is still valid.")
@click.pass_context
def lock(ctx: click.Context, stack_name: str, fresh: bool) -> None:
    """Plan the stack's workload and write the choice into its stack file."""
    from accelfit.catalog import load_catalog
    from accelfit.lockfile import write_selection
    from accelfit.planner import NoFeasiblePlan
    from accelfit.stack_plan import plan_stack_fleet, single_view
    from accelfit.planner.lock import Selection
    from accelfit.stackfile import load_stack

    stack = load_stack(stack_name)
    if stack.is_fleet:
        _lock_fleet(ctx, stack, fresh)
        return
    current = None if fresh else stack.selection
    try:
        plan, status = single_view(*plan_stack_fleet(stack, load_catalog(), fresh=fresh))
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    selection = Selection.from_plan(plan, dt.date.today())
    # Kept while the owned option's lock is used and the overflow cluster (if any) is built from its lock too.
    if status.state == "used" and current is not None and current.overflow == selection.overflow:
        click.echo(f"kept: {current.option} is still valid ({status.message}); use --fresh to re-plan")
        return
    write_selection(stack.path, stack.project, selection)
    click.echo(f"locked {selection.option} into {stack.path} (${selection.monthly_usd:,.0f}/month, "
               f"${selection.total_usd:,.0f} total)")


def _lock_fleet(ctx: click.Context, stack: StackFile, fresh: bool) -> None:
    """Lock each workload of a fleet: keep a lock that is still valid (unless --fresh), lock a fresh plan for the
    others, and write the map of selections by workload name."""
    from accelfit.catalog import load_catalog
    from accelfit.stack_plan import plan_stack_fleet
    from accelfit.lockfile import write_selection
    from accelfit.planner import NoFeasiblePlan
    from accelfit.planner.lock import Selection

    current = {} if fresh else stack.selections
    try:
        fleet, locks = plan_stack_fleet(stack, load_catalog(), fresh=fresh)
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    today = dt.date.today()
    selections: dict[str, Selection] = {}
    lines = []
    for member in fleet.workloads:
        kept = current.get(member.name)
        overflow = member.plan.overflow.plan.option if member.plan.overflow is not None else None
        if kept is not None and locks[member.name].state == "used" and kept.overflow == overflow:
            selections[member.name] = kept
            lines.append(f"  {member.name}: kept {kept.option} ({locks[member.name].message})")
            continue
        selection = Selection.from_plan(member.plan, today)
        selections[member.name] = selection
        was = f" (was {kept.option}: {locks[member.name].message})" if kept is not None else ""
        lines.append(f"  {member.name}: locked {selection.option} (${selection.monthly_usd:,.0f}/month, "
                     f"${selection.total_usd:,.0f} total){was}")
    if selections == current:
        click.echo(f"kept: every workload of fleet {fleet.name} is still locked to a valid option; use --fresh to "
                   "re-plan")
        click.echo("\n".join(lines))
        return
    write_selection(stack.path, stack.project, selections)
    click.echo(f"locked fleet {fleet.name} ({len(selections)} workloads) into {stack.path}:")
    click.echo("\n".join(lines))
