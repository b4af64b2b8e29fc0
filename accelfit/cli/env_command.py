"""`accelfit env new NAME --from ENV` and `accelfit env list [--json]`: environments are their policy
configuration (policies/config/<name>.json, accelfit.environments); nothing else lists them."""

from __future__ import annotations

import json

import click


@click.group()
def env() -> None:
    """Create and list environments (each is its policy configuration, policies/config/NAME.json)."""


@env.command("new")
@click.argument("name")
@click.option("--from", "source", required=True, help="The environment to copy (e.g. staging).")
def new(name: str, source: str) -> None:
    """Write policies/config/NAME.json as a copy of ENV's, named NAME: edit its caps, then point a stack at it
    with `accelfit:environment: NAME`."""
    from accelfit.environments import new_environment_config, write_environment
    from accelfit.stackfile import find_project_dir

    project_dir = find_project_dir()
    path = write_environment(project_dir, name, new_environment_config(project_dir, name, source))
    click.echo(f"wrote {path.relative_to(project_dir)} (copied from {source}); set accelfit:environment: {name} in "
               "a stack file, and create the GitHub environments "
               f"{name} and {name}-preview (README: Deploy access)")


@env.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the environments as JSON (what the workflows read).")
def list_command(as_json: bool) -> None:
    """The project's environments with their cap, lock requirement and deploy approvals."""
    from accelfit.environments import list_environments
    from accelfit.stackfile import find_project_dir

    found = list_environments(find_project_dir())
    if as_json:
        click.echo(json.dumps([item.as_json() for item in found], indent=2))
        return
    for item in found:
        cap = "no cap" if item.max_monthly_usd is None else f"cap ${item.max_monthly_usd:,.0f}/month ({item.budget_level})"
        click.echo(f"{item.name}: {cap}; rules {item.default_level}; lock {'required' if item.require_lock else 'optional'}; "
                   f"deploy {'needs reviewers' if item.required_reviewers else 'unreviewed'}")
