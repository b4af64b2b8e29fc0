"""`accelfit cost --pulumi-preview FILE --stack ENV`: price a real `pulumi preview --json` with the same code as
the offline preview."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
@click.option("--pulumi-preview", "preview_file", required=True, type=click.Path(path_type=Path),
              help="The output of `pulumi preview --json`.")
@click.option("--stack", "stack_name", required=True, help="The stack it previews (for regions and data sizes).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--markdown", is_flag=True, help="Print markdown.")
def cost(preview_file: Path, stack_name: str, as_json: bool, markdown: bool) -> None:
    """Monthly cost of every priced resource in a real Pulumi preview, with the assumptions stated."""
    from accelfit.catalog import load_catalog
    from accelfit.planner.lock import plan_with_lock
    from accelfit.preview.run import pricing_context
    from accelfit.pricing import price_resources
    from accelfit.pricing.pulumi_preview import load_preview
    from accelfit.reports.durations import usd
    from accelfit.reports.table import render_markdown_table, render_table
    from accelfit.stackfile import load_stack

    stack = load_stack(stack_name)
    catalog = load_catalog()
    selection = stack.selection
    from accelfit.policy_config import stack_environment

    plan, _ = plan_with_lock(stack.spec, catalog, stack_environment(stack, catalog), selection)
    report = price_resources(load_preview(preview_file), catalog, pricing_context(stack, plan))
    if as_json:
        click.echo(json.dumps({"stack": stack.name, **report.figures_json(), "assumptions": list(report.assumptions),
                               "resources": [{"urn": c.urn, "type": c.type, "name": c.name,
                                              "monthly_usd": c.monthly_usd,
                                              "full_scale_monthly_usd": c.full_scale_monthly_usd,
                                              "run_usd": c.run_usd, "basis": c.basis}
                                             for c in report.resources + report.usage]},
                              indent=2, sort_keys=True))
        return
    rows = [[c.name, c.type, usd(c.monthly_usd), usd(c.full_scale_monthly_usd), c.basis]
            for c in report.resources + report.usage]
    headers = ["resource", "type", "monthly", "full scale", "basis"]
    table = render_markdown_table(headers, rows) if markdown else render_table(headers, rows)
    click.echo(table)
    from accelfit.reports.cost_figures import figures_line

    click.echo("\n" + figures_line(report.figures_json()))
    for line in report.assumptions:
        click.echo(f"- {line}")
