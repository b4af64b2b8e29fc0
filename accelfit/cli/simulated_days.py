"""A serving workload's simulated day, prepared (everything that can refuse the input) and run; a fleet's days side
by side. Shared by `accelfit simulate` and the `--simulate` check of `plan` and `check`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelfit.errors import InputError, problem

if TYPE_CHECKING:
    from accelfit.planner import Plan
    from accelfit.planner.team_efficiency import TeamEfficiency
    from accelfit.simulate.engine import Requests
    from accelfit.spec import WorkloadSpec


@dataclass(frozen=True)
class Day:
    """One workload's day, ready to run: everything that can refuse the input is done before any is run."""

    fleet: Any
    requests: Any
    whole_day: bool
    burst: str | None
    source: str


def prepare_day(spec: WorkloadSpec, plan: Plan, team: TeamEfficiency | None, trace: Requests | None,
                trace_file: Path | None, seed: int, spike: str | None) -> Day:
    from accelfit.catalog import load_catalog
    from accelfit.planner.serving.replica import Efficiency
    from accelfit.simulate.fleet import build_fleet, spec_requests
    from accelfit.simulate.traffic import parse_spike

    if not plan.serving or not plan.serving.pools:
        raise InputError([problem(spec.name, "model.architecture", "the plan has no serving pool to simulate",
                                  "simulate a transformer model (the serving model covers transformers)")])
    efficiency = None
    measured = team.serving_for(plan.accelerator.name) if team else None
    if measured is not None:
        efficiency = Efficiency(measured.decode_bandwidth, measured.prefill_compute)
    fleet = build_fleet(spec, plan, load_catalog(), efficiency)
    burst = parse_spike(spike, fleet.serving_start_s, spec.inference_block.hours_per_day) if spike else None
    if trace is not None and burst is not None:
        raise InputError([problem(None, "--spike", "a trace already says when requests come",
                                  "give --trace or --spike, not both")])
    requests = trace if trace is not None else spec_requests(fleet, seed, burst)
    source = (f"trace {trace_file}" if trace is not None else
              f"a day of the spec's {spec.inference_block.traffic.value} traffic at {spec.inference_block.requests_per_second:g} "
              f"req/s, seed {seed}")
    return Day(fleet, requests, trace is None, burst.describe() if burst else None, source)


def finish_day(job: Day, chart: Path | None) -> tuple[dict[str, Any], str]:
    """Run one workload's day; its summary (and the chart, when asked for this one)."""
    from accelfit.simulate.fleet import run_fleet
    from accelfit.simulate.report import summary

    run = run_fleet(job.fleet, job.requests, whole_day=job.whole_day)
    if chart is not None:
        from accelfit.simulate.report import write_chart

        write_chart(chart, run, summary(run, job.burst))
    return summary(run, job.burst), job.source


# The jobs of a fleet, set before the worker processes fork so that they inherit them instead of receiving a pickled
# copy of every request of the day.
_FORKED_JOBS: list[Day] = []


def _finish_forked(index: int, chart: Path | None) -> tuple[dict[str, Any], str]:
    return finish_day(_FORKED_JOBS[index], chart)


def run_days(jobs: list[Day], chart: Path | None) -> list[tuple[dict[str, Any], str]]:
    """The workloads' days are independent: a fleet's run side by side, one process per core (forked, where the
    platform forks), each workload's result the same as run alone. The chart is the first workload's."""
    import multiprocessing
    import os

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [finish_day(job, chart if index == 0 else None) for index, job in enumerate(jobs)]
    from concurrent.futures import ProcessPoolExecutor

    _FORKED_JOBS[:] = jobs
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_finish_forked, index, chart if index == 0 else None)
                       for index in range(len(jobs))]
            return [future.result() for future in futures]
    finally:
        _FORKED_JOBS.clear()
