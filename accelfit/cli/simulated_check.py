"""`plan --simulate` and `check --simulate`: the plan's serving workloads each replay a day of their spec's traffic
(seed 0, as `accelfit simulate` runs it) through the fleet and autoscaler as built, and the command fails (exit 1)
when a simulated p99 misses its target or a request fails. One check, shared, so `check` runs what `plan` runs."""

from __future__ import annotations

from typing import Any

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE, InputError, problem


def misses(result: dict[str, Any]) -> list[str]:
    """What a simulated day breaks: each p99 over its target, and failed requests."""
    day = result["day"]
    found = [f"{result['workload']}: simulated {name.upper() if name != 'e2e' else name} p99 "
             f"{day[f'{name}_ms'][1]:,.1f} ms is over its {target:g} ms target"
             for name, target in day["targets_ms"].items()
             if target is not None and day[f"{name}_ms"][1] is not None and day[f"{name}_ms"][1] > target]
    if day["failed"]:
        found.append(f"{result['workload']}: {day['failed']:,} of {day['requests']:,} simulated requests failed")
    return found


def require_serving(specs: list[Any], source: str) -> None:
    """Before any planning: --simulate on what serves nothing changes nothing, so it is refused."""
    if not any(spec.inference is not None for spec in specs):
        raise InputError([problem(source, "--simulate", "nothing to simulate: no inference workload",
                                  "drop --simulate (it replays a day of serving traffic)")])


def simulate_planned(ctx: click.Context, pairs: list[tuple[Any, Any, Any]], source: str,
                     as_json: bool) -> list[dict[str, Any]]:
    """Simulate each (spec, plan, team efficiency) of an inference workload; print the day lines (to stderr with
    --json, so the JSON stays one document) and exit 1 on a miss. Returns the summaries."""
    from accelfit.cli.simulated_days import prepare_day, run_days
    from accelfit.simulate.report import day_lines

    require_serving([spec for spec, _, _ in pairs], source)
    serving = [(spec, plan, team) for spec, plan, team in pairs if spec.inference is not None]
    jobs = [prepare_day(spec, plan, team, None, None, 0, None) for spec, plan, team in serving]
    results = [result for result, _ in run_days(jobs, None)]
    for result in results:
        click.echo(f"Simulated {result['workload']} (a day of its spec's traffic, seed 0): "
                   + " ".join(day_lines(result)), err=as_json)
    broken = [line for result in results for line in misses(result)]
    if broken:
        for line in broken:
            click.echo(f"simulation: {line}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
    return results
