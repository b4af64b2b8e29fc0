"""`accelfit ephemeral up|down|sweep`: short-lived scaled copies of a stack for a pull request
(accelfit.ephemeral). `up` writes stacks/Pulumi.<name>.yaml, previews it offline (priced, policy-checked under
policies/config/ephemeral.json) and, unless --no-deploy, runs `pulumi stack init` and `pulumi up` where the Pulumi
CLI is installed and logged in."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import click

from accelfit.ephemeral import DEFAULT_AUTOSTOP
from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE

_ORG = click.option("--org", envvar="PULUMI_ORG", default="", help="The Pulumi organization the stack lives in "
                    "(default: $PULUMI_ORG; none: the logged-in user's).")


def _ref(org: str, name: str) -> str:
    return f"{org}/{name}" if org else name


def _logged_in() -> bool:
    from accelfit.ephemeral.lifecycle import pulumi_cli

    cli = pulumi_cli()
    return cli is not None and subprocess.run([cli, "whoami"], capture_output=True, check=False).returncode == 0


@click.group()
def ephemeral() -> None:
    """Short-lived, scaled copies of a stack (one per pull request), with a TTL and a cost cap."""


@ephemeral.command()
@click.option("--from", "source", required=True, help="The stack to copy (stacks/Pulumi.<STACK>.yaml).")
@click.option("--name", required=True, help="The copy's stack name, e.g. pr-123.")
@click.option("--ttl", default="24h", show_default=True, help="Time to live, 1h to 7d; then `sweep` destroys it.")
@click.option("--autostop", default=None, help="Serving copies: serve this long a day from now (15m to 23h), then "
              f"the servers go once idle and their nodes follow. [default: {DEFAULT_AUTOSTOP}]")
@click.option("--no-deploy", is_flag=True, help="Write and preview offline only.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (the workflow's comment reads it).")
@_ORG
@click.pass_context
def up(ctx: click.Context, source: str, name: str, ttl: str, autostop: str | None, no_deploy: bool, as_json: bool,
       org: str) -> None:
    """Create the ephemeral copy NAME of stack --from."""
    from accelfit.ephemeral import parse_autostop
    from accelfit.expiry import parse_ttl
    from accelfit.ephemeral.lifecycle import create, run_pulumi, tag_stack
    from accelfit.stackfile import find_project_dir

    life = parse_ttl(ttl)  # every argument is checked before anything is written
    autostop_hours = None if autostop is None else parse_autostop(autostop)
    project_dir = find_project_dir()
    from accelfit.planner import NoFeasiblePlan

    now = dt.datetime.now(dt.UTC)
    try:
        created = create(project_dir, source, name, life, now, autostop_hours)
    except NoFeasiblePlan as failure:  # e.g. nothing fits the ephemeral cap: the file is already removed
        click.echo(f"no feasible plan for {name} (file removed): {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    deployed = None
    if not created.mandatory_violations and not no_deploy:
        deployed = _logged_in()
        if deployed:
            run_pulumi(["stack", "init", _ref(org, name)], project_dir)
            tag_stack(project_dir, _ref(org, name), created, now)  # the scheduled sweep finds it by these
            run_pulumi(["up", "--yes", "--stack", _ref(org, name), "--policy-pack", "policies",
                        "--policy-pack-config", "policies/config/ephemeral.json"], project_dir)
    report = {"stack": name, "source": source, "file": str(created.path.relative_to(project_dir)),
              "expires_at": created.expires_at, "cap_monthly_usd": created.cap_usd,
              "monthly_usd": created.monthly_usd, "source_monthly_usd": created.source_monthly_usd,
              "mandatory_violations": created.mandatory_violations, "autostop": created.autostop or None,
              "deployed": deployed}
    click.echo(json.dumps(report, indent=2) if as_json else
               f"{name}: ${created.monthly_usd:,.2f}/month (source {source}: ${created.source_monthly_usd:,.2f}), "
               f"cap ${created.cap_usd or 0:,.0f}, expires {created.expires_at}; "
               + (f"autostop: serves {created.autostop['hours_per_day']:g} h a day from "
                  f"{created.autostop['from_utc']} UTC; " if created.autostop else "")
               + ("not deployed: mandatory policy violations, file removed" if created.mandatory_violations else
                  "previewed only (--no-deploy)" if no_deploy else
                  "deployed" if deployed else "not deployed: no Pulumi CLI logged in here"))
    if created.mandatory_violations:
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)


@ephemeral.command()
@click.option("--name", required=True, help="The ephemeral stack to destroy.")
@click.option("--plan", "plan_only", is_flag=True, help="Print what the destroy removes; change nothing.")
@click.option("--missing-file-ok", is_flag=True, help="Destroy the backend stack NAME (pr-<number>) even without "
              "its stack file (a CI run that did not write it).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON with the cost so far (the "
              "workflow's closing comment reads it).")
@_ORG
def down(name: str, plan_only: bool, missing_file_ok: bool, as_json: bool, org: str) -> None:
    """Destroy ephemeral stack NAME, remove it from the backend and delete its stack file."""
    import re

    from accelfit.errors import InputError, problem
    from accelfit.ephemeral.lifecycle import destroy_plan, existing_stacks, is_ephemeral
    from accelfit.stackfile import find_project_dir

    project_dir = find_project_dir()
    if missing_file_ok and not plan_only and name not in existing_stacks(project_dir):
        if not re.fullmatch(r"pr-[0-9]{1,9}", name):  # only the names the workflow gives its copies
            raise InputError([problem(None, "--name", "--missing-file-ok destroys only pr-<number> stacks",
                                      "name the pull request's copy, e.g. --name pr-123", name)])
        _destroy_and_report(project_dir, name, _ref(org, name), as_json, f"destroyed {name}")
        return
    if not is_ephemeral(project_dir, name):
        raise InputError([problem(f"stacks/Pulumi.{name}.yaml", "--name", "not an ephemeral stack (its "
                                  "accelfit:environment is not ephemeral)", "name a stack `ephemeral up` made", name)])
    if plan_only:
        click.echo(json.dumps(destroy_plan(project_dir, name), indent=2))
        return
    _destroy_and_report(project_dir, name, _ref(org, name), as_json,
                        f"destroyed {name} and removed stacks/Pulumi.{name}.yaml")


def _destroy_and_report(project_dir: Path, name: str, ref: str, as_json: bool, done: str) -> None:
    """Destroy, then say so with what the copy cost while it lived (its tags, read before the stack goes)."""
    from accelfit.ephemeral.lifecycle import cost_so_far, destroy

    cost = cost_so_far(project_dir, ref, dt.datetime.now(dt.UTC))
    destroy(project_dir, name, ref)
    if as_json:
        click.echo(json.dumps({"stack": name, "destroyed": True, "cost_so_far": cost}, indent=2))
        return
    click.echo(done + (f"; about ${cost['usd']:,.2f} over {cost['hours']:.1f} h at its planned "
                       f"${cost['hourly_usd']:,.2f}/h" if cost else ""))


@ephemeral.command()
@click.option("--plan", "plan_only", is_flag=True, help="List the expired stacks; change nothing.")
@click.option("--backend", is_flag=True, help="Also the backend's stacks tagged accelfit:expiresAt (`ephemeral up` "
              "tags them): the scheduled sweep's way, where no stack file was committed.")
@_ORG
def sweep(plan_only: bool, backend: bool, org: str) -> None:
    """Destroy every ephemeral stack whose accelfit:expiresAt has passed."""
    from accelfit.ephemeral.lifecycle import backend_expired_stacks, destroy, expired_stacks
    from accelfit.stackfile import find_project_dir

    project_dir = find_project_dir()
    now = dt.datetime.now(dt.UTC)
    names = set(expired_stacks(project_dir, now))
    if backend:
        names |= set(backend_expired_stacks(project_dir, now, org))
    for name in sorted(names):
        if not plan_only:
            destroy(project_dir, name, _ref(org, name))
        click.echo(f"{'expired' if plan_only else 'destroyed'}: {name}")
