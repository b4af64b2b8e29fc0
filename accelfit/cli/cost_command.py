"""`accelfit cost --pulumi-preview FILE --stack ENV`: price a real `pulumi preview --json` with the same code as
the offline preview. A fleet stack (`accelfit:workloads`) is priced per workload: each resource attributed to its
workload (its group component, its `accelfit.io/workload` label; shared items to `<cluster>-shared`) and priced
with that workload's plan (accelfit/preview/fleet_document.py, the offline preview's code), plus the fleet total."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click


@click.command()
@click.option("--pulumi-preview", "preview_file", required=True, type=click.Path(path_type=Path),
              help="The output of `pulumi preview --json`.")
@click.option("--stack", "stack_name", required=True, help="The stack it previews (for regions and data sizes).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--markdown", is_flag=True, help="Print markdown.")
def cost(preview_file: Path, stack_name: str, as_json: bool, markdown: bool) -> None:
    """Monthly cost of every priced resource in a real Pulumi preview, with the assumptions stated; a fleet stack's
    cost by workload and for the fleet."""
    from accelfit.catalog import load_catalog
    from accelfit.stackfile import load_stack

    stack = load_stack(stack_name)
    catalog = load_catalog()
    if stack.is_fleet:
        _fleet_cost(stack, catalog, preview_file, as_json, markdown)
        return
    from accelfit.stack_plan import plan_stack_fleet
    from accelfit.preview.fleet_document import fleet_costs
    from accelfit.preview.run import pricing_context
    from accelfit.pricing.pulumi_preview import load_preview_records

    # The single form's fleet of one, priced as every fleet is; its one workload owns every resource.
    fleet, _ = plan_stack_fleet(stack, catalog)
    costs, _ = fleet_costs(load_preview_records(preview_file), stack, fleet, catalog,
                           lambda spec, plan: pricing_context(stack, plan, spec))
    report = costs.own[fleet.workloads[0].name]
    if as_json:
        click.echo(json.dumps({"stack": stack.name, **report.figures_json(), "assumptions": list(report.assumptions),
                               "resources": [_resource_json(c) for c in report.resources + report.usage]},
                              indent=2, sort_keys=True))
        return
    _print_resources([(c, None) for c in report.resources + report.usage], markdown)
    _print_figures(report.figures_json(), report.assumptions)


def _fleet_cost(stack: Any, catalog: Any, preview_file: Path, as_json: bool, markdown: bool) -> None:
    from accelfit.stack_plan import plan_stack_fleet
    from accelfit.preview.fleet_document import fleet_cost_section, fleet_costs
    from accelfit.preview.run import pricing_context
    from accelfit.pricing.pulumi_preview import load_preview_records

    records = load_preview_records(preview_file)
    fleet, _ = plan_stack_fleet(stack, catalog)
    from accelfit.errors import InputError

    try:
        costs, owners = fleet_costs(records, stack, fleet, catalog,
                                    lambda spec, plan: pricing_context(stack, plan, spec))
    except InputError as error:  # e.g. a parent cycle: the problem is in the preview file
        raise error.naming_file(str(preview_file), (None,)) from None
    assumptions = list(dict.fromkeys([*costs.report().assumptions, *(
        line for member in fleet.workloads for line in member.plan.estimate.cost_assumptions)]))
    section = fleet_cost_section(fleet, costs, assumptions, stack.specs)
    unattributed = [record.name for record in records if record.custom and not owners.get(record.urn)]
    if unattributed:
        # price_fleet prices what it can attribute; a resource outside every workload and shared cluster is named,
        # not silently dropped from the totals.
        section["assumptions"].append(
            f"Not attributed to a workload or a shared cluster, so not priced: {', '.join(sorted(unattributed))} "
            "(a resource outside the fleet's group components and without an accelfit.io/workload label).")
    rows = [(cost, owners.get(cost.urn, "") or None) for cost in costs.resources] + \
           [(line, name) for name, line in costs.usage]
    if as_json:
        click.echo(json.dumps({"stack": stack.name, "fleet": fleet.name, **section, "unattributed": unattributed,
                               "resources": [{**_resource_json(cost), "workload": owner} for cost, owner in rows]},
                              indent=2, sort_keys=True))
        return
    from accelfit.durations import usd
    from accelfit.reports.table import render_markdown_table, render_table

    render = render_markdown_table if markdown else render_table
    title = f"Fleet {fleet.name}, stack {stack.name}: cost by workload"
    click.echo(f"### {title}\n" if markdown else f"{title}\n{'=' * len(title)}")
    groups = [[name, figures["cluster"] or "(alone)", usd(figures["monthly_usd"]),
               usd(figures["full_scale_monthly_usd"]), _usd_or_dash(figures["run_total_usd"]),
               usd(figures["own_monthly_usd"])] for name, figures in section["workloads"].items()]
    groups += [[f"{item['workload']} (shared by {', '.join(item['workloads'])})", name, usd(item["monthly_usd"]),
                usd(item["full_scale_monthly_usd"]), _usd_or_dash(item["run_total_usd"]), usd(item["monthly_usd"])]
               for name, item in section["shared"].items()]
    groups.append(["fleet total (shared counted once)", "", usd(section["monthly_usd"]),
                   usd(section["full_scale_monthly_usd"]), _usd_or_dash(section["run_total_usd"]), ""])
    click.echo(render(["workload", "cluster", "monthly", "full scale", "run total", "own monthly"], groups))
    click.echo("\nPer workload: its own resources plus an even share of its cluster's shared items.\n")
    _print_resources(rows, markdown)
    _print_figures(section, section["assumptions"])


def _usd_or_dash(value: float | None) -> str:
    from accelfit.durations import usd

    return "-" if value is None else usd(value)


def _resource_json(cost: Any) -> dict[str, Any]:
    return {"urn": cost.urn, "type": cost.type, "name": cost.name, "monthly_usd": cost.monthly_usd,
            "full_scale_monthly_usd": cost.full_scale_monthly_usd, "run_usd": cost.run_usd, "basis": cost.basis}


def _print_resources(rows: list[tuple[Any, str | None]], markdown: bool) -> None:
    from accelfit.durations import usd
    from accelfit.reports.table import render_markdown_table, render_table

    fleet = any(owner is not None for _, owner in rows)
    headers = ["resource", *(["workload"] if fleet else []), "type", "monthly", "full scale", "basis"]
    table = [[c.name, *([owner or ""] if fleet else []), c.type, usd(c.monthly_usd), usd(c.full_scale_monthly_usd),
              c.basis] for c, owner in rows]
    click.echo(render_markdown_table(headers, table) if markdown else render_table(headers, table))


def _print_figures(figures: dict[str, Any], assumptions: Any) -> None:
    from accelfit.reports.cost_figures import figures_line

    click.echo("\n" + figures_line(figures))
    for line in assumptions:
        click.echo(f"- {line}")
