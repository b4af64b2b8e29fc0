"""`accelfit preflight --stack NAME`: the live quotas, zone offerings, reservations and enabled APIs of the user's
cloud account against what the stack's plan needs at full scale and for each fallback step.

Exit codes: 0 everything fits; 1 a shortfall (each named with the quota, region, needed, limit, in use and the
request to file), a check the cloud would not answer (denied, throttled past the retries, missing from the answer:
not verified is not passed), or no feasible plan; 2 bad input, the SDKs missing, or no/rejected credentials (the
message says how to log in).
"""

from __future__ import annotations

from typing import Any

import json

import click

from accelfit.clouds import cloud_named
from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE, InputError, problem


@click.command()
@click.option("--stack", "stack_name", required=True, help="Check stacks/Pulumi.<STACK>.yaml's plan.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--markdown", is_flag=True, help="Print the findings as markdown (the PR comment).")
@click.pass_context
def preflight(ctx: click.Context, stack_name: str, as_json: bool, markdown: bool) -> None:
    """Check quotas, zone offerings, reservations and APIs with your own credentials before `pulumi up`."""
    from accelfit.catalog import load_catalog
    from accelfit.cli.plan_command import report_infeasible
    from accelfit.planner import NoFeasiblePlan
    from accelfit.preflight import render, run
    from accelfit.preflight.needs import stack_needs
    from accelfit.preflight.stack import stack_members
    from accelfit.stackfile import load_stack

    stack = load_stack(stack_name)
    catalog = load_catalog()
    try:
        members = stack_members(stack, catalog)
    except NoFeasiblePlan as failure:
        report_infeasible(ctx, failure)
        return
    by_cloud: dict[str, list[Any]] = {}
    for member in members:
        by_cloud.setdefault(member.plan.cloud.value, []).append(member)
    needs_by_cloud = {}
    for cloud, chosen in by_cloud.items():
        record = cloud_named(cloud)
        if not record.preflight_reader:  # owned servers: nothing for preflight to read
            continue
        project = ""
        if record.preflight_project_key:
            key = record.preflight_project_key
            project = str(stack.get(key) or "")
            if not project:
                raise InputError([problem(str(stack.path), f"config.{key}", f"preflight reads a {record.title} "
                                          "project and the stack names none", f"pulumi config set {key} PROJECT_ID")])
        needs_by_cloud[cloud] = stack_needs(stack.name, chosen, catalog, project=project)
    if not needs_by_cloud:
        click.echo(f"preflight {stack.name}: nothing to check (no cloud resources)")
        return
    reports = run.check(needs_by_cloud)
    if as_json:
        click.echo(json.dumps({"stack": stack.name, "fits": all(r.fits for r in reports),
                               "reports": [render.to_json(r) for r in reports]}, indent=2, sort_keys=True))
    elif markdown:
        click.echo("\n\n".join(render.render_markdown(r) for r in reports))
    else:
        click.echo("\n\n".join(render.render_text(r) for r in reports))
    if not all(r.fits for r in reports):
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
