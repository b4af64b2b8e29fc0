"""`accelfit tco SPEC | --stack NAME --utilization CURVE`: owning the planned servers against renting the same
accelerators from each cloud, month by month; break-even utilization and month per option (issue 38)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from accelfit.errors import InputError, problem

if TYPE_CHECKING:
    from accelfit.catalog.models import Catalog
    from accelfit.planner import Plan
    from accelfit.spec import Inventory
    from accelfit.stackfile import StackFile


@click.command()
@click.argument("spec_file", required=False, type=click.Path(path_type=Path))
@click.option("--stack", "stack_name", help="Compare for the workload of stacks/Pulumi.<STACK>.yaml.")
@click.option("--utilization", "curve", required=True,
              help="Share of each month the accelerators are busy: a constant (0.6), monthly figures "
                   "(0.2,0.5,0.9) or a .csv file with one figure per month.")
@click.option("--months", type=click.IntRange(1, 240), default=None,
              help="Horizon for a constant utilization (default 36); a list or CSV sets its own.")
@click.option("--chart", type=click.Path(path_type=Path),
              help="Write the cumulative cost of owning and of each cloud option to an .svg or .png file.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON (stable keys).")
def tco(spec_file: Path | None, stack_name: str | None, curve: str, months: int | None, chart: Path | None,
        as_json: bool) -> None:
    """Buy versus rent: the planned owned servers against on-demand, spot and committed cloud capacity."""
    from accelfit.catalog import load_catalog
    from accelfit.pricing.onprem import owned_server_cost
    from accelfit.pricing.tco import compare, rent_options
    from accelfit.pricing.utilization import parse_curve
    from accelfit.reports import tco_report

    if (spec_file is None) == (stack_name is None):
        raise InputError([problem(None, "arguments", "give either a spec file or --stack NAME",
                                  "e.g. `accelfit tco examples/onprem-training.yaml --utilization 0.6`")])
    utilization = parse_curve(curve, months)
    if chart is not None:
        from accelfit.cli.plan_command import check_chart_target

        check_chart_target(chart)
    catalog = load_catalog()
    plan, inventory, source = _owned_plan(spec_file, stack_name, catalog)
    hosts, per_node = plan.accelerator.nodes, plan.accelerator.per_node
    assert hosts is not None and per_node is not None  # owned servers are GPU nodes: plan_accelerator sets both
    ownership = inventory.ownership
    owned = owned_server_cost(catalog.accelerator(plan.accelerator.name).power_w, per_node,
                              ownership.model_dump(exclude={"purchased"}), ownership.purchased,
                              # the team's measured draw, where the plan priced with it
                              next((pool.measured_power_w for pool in plan.node_pools if pool.measured_power_w), None))
    options = rent_options(catalog, plan.accelerator.name, per_node, hosts)
    if not options:
        raise InputError([problem(source, "placement.inventory", f"no cloud sells {plan.accelerator.per_node} x "
                                  f"{plan.accelerator.name} per instance in the catalog, so there is nothing to "
                                  "rent against", "compare a pool of a GPU model the clouds sell")])
    result = compare(owned, hosts, options, utilization)
    if chart is not None:
        try:
            tco_report.write_chart(chart, result, plan.workload)
        except OSError as error:
            raise InputError([problem(str(chart), "--chart", f"could not write the chart ({error.strerror or error})",
                                      "pass a path in a folder you can write to")]) from None
    if as_json:
        click.echo(json.dumps(tco_report.tco_json(result, plan.workload), indent=2, sort_keys=True))
    else:
        click.echo(tco_report.render_text(result, plan.workload))


def _owned_plan(spec_file: Path | None, stack_name: str | None, catalog: Catalog) -> tuple[Plan, Inventory, str]:
    """(plan, inventory, source file) for a workload planned onto owned servers; exit 2 for anything else.

    One way to plan: a stack's plan is the one its program builds (its lock respected), a spec file's the fleet of
    one `plan SPEC` shows."""
    from accelfit.planner import Environment, NoFeasiblePlan
    from accelfit.stack_plan import plan_spec_fleet, plan_stack_fleet, single_view

    stack: StackFile | None = None  # a spec file has no stack
    if stack_name is not None:
        from accelfit.stackfile import load_stack

        stack = load_stack(stack_name)
        if stack.is_fleet:
            raise InputError([problem(str(stack.path), "--stack", "tco compares one workload's owned servers, and "
                                      "this stack holds a fleet", "run tco on one workload's spec file")])
        loaded, source = stack.workload, str(stack.path)
    else:
        from accelfit.spec import load_workload

        assert spec_file is not None
        loaded, source = load_workload(spec_file), str(spec_file)
    if loaded.inventory is None:
        raise InputError([problem(source, "placement.inventory", "tco compares owned servers against the cloud, "
                                  "and this workload lists no inventory of owned servers",
                                  "add placement.inventory: the file listing the servers (and their ownership:)")])
    try:
        if stack is not None:
            result, _ = single_view(*plan_stack_fleet(stack, catalog))
        else:
            fleet = plan_spec_fleet(loaded.spec, catalog, Environment("dev", loaded.inventory))
            result = fleet.workloads[0].shown_plan()
    except NoFeasiblePlan as failure:
        raise InputError([problem(source, "placement", f"no feasible plan: {failure.message}",
                                  "run `accelfit plan` on it to see why")]) from None
    from accelfit.clouds import cloud_of_platform

    if not cloud_of_platform(result.platform.value).owned:
        raise InputError([problem(source, "placement", f"the plan runs on {result.platform.value}, not the owned "
                                  "servers", "let the workload run on the inventory (placement.inventory alone)")])
    return result, loaded.inventory, source
