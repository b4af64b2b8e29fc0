"""`accelfit simulate SPEC | --stack ENV`: a day of the spec's traffic (or a trace) through the planned fleet and its
autoscaler, per hour: p50/p99 TTFT, TPOT and end to end, requests queued and failed, servers, nodes and cost."""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from accelfit.errors import InputError, problem

if TYPE_CHECKING:
    from accelfit.planner import Plan
    from accelfit.planner.team_efficiency import TeamEfficiency
    from accelfit.spec import WorkloadSpec


@click.command()
@click.argument("spec_file", required=False, type=click.Path(path_type=Path))
@click.option("--stack", "stack_name", help="Simulate the inference workloads of stacks/Pulumi.<STACK>.yaml as the "
              "stack builds them (its locked selection while it still meets the spec).")
@click.option("--trace", "trace_file", type=click.Path(path_type=Path),
              help="Replay this CSV (arrival_s,input_tokens,output_tokens per request) instead of the spec's traffic.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the spec's traffic: the same seed gives the same day.")
@click.option("--spike", help="A burst above the planned peak: FACTOR[x][@HH:MM][/MINUTES], e.g. 3x@12:00/10m "
              "(default: at the middle of the serving hours, for 10 minutes).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--markdown", is_flag=True, help="Print the result as markdown.")
@click.option("--chart", type=click.Path(path_type=Path),
              help="Write the day (arrivals, queue, servers ready and asked for, nodes) to an .svg or .png file.")
def simulate(spec_file: Path | None, stack_name: str | None, trace_file: Path | None, seed: int, spike: str | None,
             as_json: bool, markdown: bool, chart: Path | None) -> None:
    """Replay a day of traffic through the planned serving fleet, its autoscaler and nodes."""
    from accelfit.cli.plan_command import check_chart_target

    if (spec_file is None) == (stack_name is None):
        raise InputError([problem(None, "arguments", "give either a spec file or --stack ENV",
                                  "e.g. `accelfit simulate spec.yaml` or `accelfit simulate --stack dev`")])
    if chart is not None:
        check_chart_target(chart)
    trace = None
    if trace_file is not None:
        from accelfit.simulate.traffic import read_trace

        trace = read_trace(trace_file)  # bad input stops here, before any planning
    from accelfit.cli.simulated_days import prepare_day, run_days

    jobs = [prepare_day(spec, plan, efficiency, trace, trace_file, seed, spike)
            for spec, plan, efficiency in _plans(spec_file, stack_name)]
    if not jobs:
        raise InputError([problem(stack_name or str(spec_file), "kind", "no inference workload to simulate",
                                  "simulate a stack or spec whose workload has kind: inference")])
    _print(run_days(jobs, chart), as_json, markdown)


def _plans(spec_file: Path | None,
           stack_name: str | None) -> list[tuple[WorkloadSpec, Plan, TeamEfficiency | None]]:
    """(spec, plan, team efficiency) of each inference workload, planned as `accelfit plan` plans it."""
    from accelfit.calibration.store import load_team_efficiency
    from accelfit.catalog import load_catalog

    catalog = load_catalog()
    if stack_name is not None:
        from accelfit.stack_plan import plan_stack_fleet
        from accelfit.stackfile import load_stack

        stack = load_stack(stack_name)
        fleet, _ = _planned(lambda: plan_stack_fleet(stack, catalog))
        specs = {spec.name: spec for spec in stack.specs}
        return [(specs[member.name], member.plan, None) for member in fleet.workloads
                if specs[member.name].inference is not None]
    from accelfit.planner import Environment
    from accelfit.spec import load_workload
    from accelfit.stack_plan import plan_spec_fleet

    assert spec_file is not None  # simulate() asks for a spec file or --stack
    loaded = load_workload(spec_file)
    if loaded.spec.inference is None:
        return []
    team = load_team_efficiency()
    environment = Environment(name="dev", inventory=loaded.inventory, efficiency=team)
    # The fleet of one `plan SPEC` shows (its standby serving steps included), so `simulate SPEC` and
    # `plan SPEC --simulate` replay the same fleet.
    fleet = _planned(lambda: plan_spec_fleet(loaded.spec, catalog, environment))
    return [(loaded.spec, fleet.workloads[0].plan, team)]


_Planned = TypeVar("_Planned")


def _planned(make: Callable[[], _Planned]) -> _Planned:
    from accelfit.planner import NoFeasiblePlan

    try:
        return make()
    except NoFeasiblePlan as failure:
        from accelfit.cli.plan_command import report_infeasible

        report_infeasible(click.get_current_context(), failure)


def _print(results: list[tuple[dict[str, Any], str]], as_json: bool, markdown: bool) -> None:
    from accelfit.simulate.report import render_markdown, render_text

    if as_json:
        documents = [result | {"source": source} for result, source in results]
        click.echo(json.dumps(documents[0] if len(documents) == 1 else documents, indent=2, sort_keys=True))
        return
    render = render_markdown if markdown else render_text
    click.echo("\n\n".join(render(result, source) for result, source in results))
