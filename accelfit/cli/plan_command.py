"""`accelfit plan SPEC | --stack ENV`: the chosen option, why, the estimate, the alternatives and what was rejected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE, InputError, problem

if TYPE_CHECKING:
    from accelfit.catalog.models import Catalog
    from accelfit.planner import Environment, NoFeasiblePlan, Plan
    from accelfit.planner.fleet.model import FleetWorkload
    from accelfit.planner.lock import LockStatus
    from accelfit.spec.loader import LoadedWorkload
    from accelfit.stackfile import StackFile


@click.command()
@click.argument("spec_file", required=False, type=click.Path(path_type=Path))
@click.option("--stack", "stack_name", help="Plan the workload (or the fleet of workloads) of "
              "stacks/Pulumi.<STACK>.yaml.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (stable keys).")
@click.option("--markdown", is_flag=True, help="Print the plan as markdown.")
@click.option("--top", default=5, show_default=True, type=click.IntRange(0, 100), help="Alternatives to show.")
@click.option("--environment", "environment_option",
              help="Plan a spec file under this environment's policy configuration (policies/config/ENV.json); "
                   "a --stack plan always uses its stack's environment.")
@click.option("--chart", type=click.Path(path_type=Path),
              help="Write a chart of every eligible option to an .svg or .png file: total cost against training "
                   "days (training), monthly cost against accelerators (inference); the chosen option is starred.")
@click.option("--simulate", is_flag=True,
              help="Also replay a day of each serving workload's traffic through the planned fleet (as `accelfit "
                   "simulate` does, seed 0); exit 1 when a simulated p99 misses its target or a request fails.")
@click.pass_context
def plan(ctx: click.Context, spec_file: Path | None, stack_name: str | None, as_json: bool, markdown: bool,
         top: int, environment_option: str | None, chart: Path | None, simulate: bool) -> None:
    """Choose accelerators, count and platform for a workload, and explain the choice with its cost."""
    from accelfit.catalog import load_catalog
    from accelfit.planner import NoFeasiblePlan, evaluate_spec
    from accelfit.spec import load_workload

    if (spec_file is None) == (stack_name is None):
        raise InputError([problem(None, "arguments", "give either a spec file or --stack ENV",
                                  "e.g. `accelfit plan spec.yaml` or `accelfit plan --stack dev`")])
    if chart is not None:
        check_chart_target(chart)
    if stack_name is not None:
        from accelfit.stackfile import load_stack

        stack = load_stack(stack_name)
        if simulate:
            from accelfit.cli.simulated_check import require_serving

            require_serving(list(stack.specs), stack_name)
        if stack.is_fleet:
            _plan_fleet(ctx, stack, as_json, markdown, top, chart, simulate)
            return
        loaded, environment_name = stack.workload, stack.environment
    else:
        assert spec_file is not None  # plan asks for a spec file or --stack before this
        loaded, environment_name = load_workload(spec_file), environment_option or "dev"
        if simulate:
            from accelfit.cli.simulated_check import require_serving

            require_serving([loaded.spec], str(spec_file))
    catalog = load_catalog()
    if stack_name is not None:
        from accelfit.policy_config import stack_environment

        environment = stack_environment(stack, catalog)  # exactly as the stack's program plans
    else:
        environment = _spec_environment(loaded, environment_name, environment_option, catalog)
    lock = None
    try:
        # One way: a spec file plans as the fleet of one a stack of it builds (its fallback chain and standby
        # serving steps included), so `plan SPEC` and `plan --stack` of the same workload give the same chain.
        from accelfit.stack_plan import plan_spec_fleet, plan_stack_fleet, single_view

        if stack_name:
            fleet, locks = plan_stack_fleet(stack, catalog, top=max(top, 8))
            result, lock = single_view(fleet, locks)  # the locked selection while it still meets the spec
        else:
            fleet = plan_spec_fleet(loaded.spec, catalog, environment, top=max(top, 8))
            result = fleet.workloads[0].shown_plan()  # a spec file has no stack, so no lock to report
        member = fleet.workloads[0]
    except NoFeasiblePlan as failure:
        report_infeasible(ctx, failure)
        return
    if chart is not None:
        from accelfit.reports.plan_chart import write_chart

        evaluation, _ = evaluate_spec(loaded.spec, catalog, environment)
        try:
            write_chart(chart, result, evaluation.feasible)
        except OSError as error:
            raise InputError([problem(str(chart), "--chart", f"could not write the chart ({error.strerror or error})",
                                      "pass a path in a folder you can write to")]) from None
    _print_plan(result, member, lock, as_json, markdown, top, stack_name)
    if simulate:
        from accelfit.cli.simulated_check import simulate_planned

        # The efficiency `accelfit simulate` uses: the team's measured one for a spec file, none for a stack.
        team = None if stack_name else environment.efficiency
        simulate_planned(ctx, [(loaded.spec, member.plan, team)], stack_name or str(spec_file), as_json)


def _spec_environment(loaded: LoadedWorkload, environment_name: str, environment_option: str | None,
                      catalog: Catalog) -> Environment:
    """A spec file's environment: dev, or --environment's policy constraints (discovered from policies/config)."""
    from accelfit.calibration.store import load_team_efficiency
    from accelfit.planner import Environment

    constraints = None
    if environment_option:
        from accelfit.environments import environment_names
        from accelfit.policy_config import plan_constraints
        from accelfit.stackfile import find_project_dir

        project_dir = find_project_dir()
        known = environment_names(project_dir)
        if environment_name not in known:  # discovered from policies/config, never a fixed list
            raise InputError([problem(None, "--environment", "unknown environment",
                                      f"use one of: {', '.join(known)}, or add one with `accelfit env new "
                                      "NAME --from staging`", environment_name)])
        constraints = plan_constraints(project_dir, environment_name, catalog)
    return Environment(name=environment_name, inventory=loaded.inventory, efficiency=load_team_efficiency(),
                       constraints=constraints)


def _print_plan(result: Plan, member: FleetWorkload, lock: LockStatus | None, as_json: bool, markdown: bool, top: int,
                stack_name: str | None) -> None:
    if as_json:
        document = member.shown_json()
        if lock is not None:
            document["lock"] = lock.to_json_dict()
        click.echo(json.dumps(document, indent=2, sort_keys=True))
    elif markdown:
        from accelfit.reports.plan_report import render_markdown

        click.echo(render_markdown(result, top=top, stack=stack_name, lock=lock.message if lock else None,
                                   member=member))
    else:
        from accelfit.reports.plan_report import render_text

        click.echo(render_text(result, top=top, stack=stack_name, lock=lock.message if lock else None,
                               member=member))


def _plan_fleet(ctx: click.Context, stack: StackFile, as_json: bool, markdown: bool, top: int, chart: Path | None,
                simulate: bool = False) -> None:
    """A fleet stack: each workload's plan, placement, fallback chain and cost, and the fleet's totals."""
    from accelfit.catalog import load_catalog
    from accelfit.stack_plan import plan_stack_fleet
    from accelfit.planner import NoFeasiblePlan
    from accelfit.reports import fleet_report

    if chart is not None:
        raise InputError([problem(str(stack.path), "--chart", "charts show one workload's options, and this stack "
                                  "holds a fleet", "plan one workload's spec file with --chart")])
    try:
        fleet, locks = plan_stack_fleet(stack, load_catalog(), top=max(top, 8))
    except NoFeasiblePlan as failure:
        report_infeasible(ctx, failure)
        return
    if as_json:
        click.echo(json.dumps(fleet_report.fleet_json(fleet, locks), indent=2, sort_keys=True))
    elif markdown:
        click.echo(fleet_report.render_markdown(fleet, locks, top=top, stack=stack.name))
    else:
        click.echo(fleet_report.render_text(fleet, locks, top=top, stack=stack.name))
    if simulate:
        from accelfit.cli.simulated_check import simulate_planned

        specs = {spec.name: spec for spec in stack.specs}
        simulate_planned(ctx, [(specs[member.name], member.plan, None) for member in fleet.workloads],
                         str(stack.path), as_json)


def report_infeasible(ctx: click.Context, failure: NoFeasiblePlan) -> NoReturn:
    """No feasible plan: the binding constraint, the first rejected options, exit 1."""
    click.echo(f"no feasible plan: {failure.message}", err=True)
    for rejection in failure.rejected[:20]:
        click.echo(f"  rejected [{rejection.rule}] {rejection.option}: {rejection.reason}", err=True)
    ctx.exit(EXIT_POLICY_OR_INFEASIBLE)


def check_chart_target(chart: Path) -> None:
    """Before any planning: the chart can be written there, in a format we make, with matplotlib installed."""
    import importlib.util

    problems = []
    if chart.suffix.lower() not in (".svg", ".png"):
        problems.append(problem(str(chart), "--chart", "unsupported chart format", "end the file name in .svg or .png",
                                chart.suffix))
    if chart.is_dir():
        problems.append(problem(str(chart), "--chart", "is a directory", "give a file name, e.g. plan.svg"))
    elif not chart.parent.is_dir():
        problems.append(problem(str(chart), "--chart", f"the folder {str(chart.parent)!r} does not exist",
                                "create it first, or write the chart elsewhere"))
    if importlib.util.find_spec("matplotlib") is None:
        problems.append(problem(None, "--chart", "charts need matplotlib, which is not installed",
                                "pip install 'accelfit[chart]' (or pip install matplotlib)"))
    if problems:
        raise InputError(problems)
