"""`accelfit calibrate FILE...`: measured runs in, the team efficiency file out (used by every later plan)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import click


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--kind", type=click.Choice(["training", "serving"]),
              help="For a DCGM/Prometheus export: whether the GPUs were training or serving (measured-run files "
                   "say so per row).")
@click.option("--accelerator", help="For a DCGM/Prometheus export without modelName labels: the GPU model.")
@click.option("--output", type=click.Path(path_type=Path),
              help="Where to write the team efficiency file (default: $ACCELFIT_EFFICIENCY_FILE, else "
                   "${XDG_DATA_HOME:-~/.local/share}/accelfit/efficiency.yaml, where the planner looks).")
def calibrate(files: tuple[Path, ...], kind: str | None, accelerator: str | None, output: Path | None) -> None:
    """Turn measured runs into this team's efficiency figures, which plans then use over the catalog's.

    FILE is a CSV, JSON or YAML list of measured runs (one per row: kind, accelerator, count, model, precision,
    and tokens_per_second, step_time_s + tokens_per_step or mfu for training; requests_per_second, input_tokens,
    output_tokens and optionally latency_p99_ms and tensor_parallel for serving), or a DCGM-exporter /
    Prometheus export (.prom text or query-API .json) with --kind; its power draw (DCGM_FI_DEV_POWER_USAGE, no
    --kind needed for power alone) becomes the energy figure of owned servers. Bad measurements exit 2 naming the
    field.
    """
    from accelfit.calibration.compute import measure_dcgm, measure_runs, team_file
    from accelfit.calibration.dcgm import DRAM, TENSOR, looks_like_dcgm, read_dcgm
    from accelfit.calibration.measurements import read_runs
    from accelfit.calibration.store import efficiency_path, load_team_efficiency, write_team_efficiency
    from accelfit.catalog import load_catalog
    from accelfit.errors import InputError, Problem, problem
    from accelfit.inputfile import is_regular_file, read_bytes

    catalog = load_catalog()
    measured: list[Any] = []
    problems: list[Problem] = []
    for path in files:
        try:
            if not is_regular_file(path):
                read_bytes(path)  # says what the path is instead (missing, a directory, a FIFO or device, ...)
                raise InputError([problem(str(path), "", "not a regular file", "give the path of a measurements file")])
            if looks_like_dcgm(path):
                utilisation = read_dcgm(path, catalog, accelerator)
                if kind is None and any(item.mean(TENSOR) is not None or item.mean(DRAM) is not None
                                        for item in utilisation):
                    raise InputError([problem(str(path), "--kind", "a DCGM/Prometheus export does not say whether "
                                              "the GPUs trained or served", "pass --kind training or --kind serving")])
                measured += measure_dcgm(utilisation, kind or "power", str(path))
            else:
                measured += measure_runs(read_runs(path), catalog, str(path))
        except InputError as error:
            problems.extend(error.problems)
    if problems:
        raise InputError(problems)
    target = output or efficiency_path()
    existing = load_team_efficiency(target)
    team = team_file(measured, ", ".join(path.name for path in files), existing, dt.date.today())
    write_team_efficiency(team, target)
    for figure in team.training:
        click.echo(f"training  {figure.accelerator:12s} MFU {figure.mfu:.1%} from {figure.runs} run(s)")
    for served in team.serving:
        click.echo(f"serving   {served.accelerator:12s} decode {served.decode_bandwidth:.0%} of bandwidth, prefill "
                   f"{served.prefill_compute:.0%} of peak, from {served.runs} run(s)")
    for drawn in team.power:
        click.echo(f"power     {drawn.accelerator:12s} {drawn.power_w:,.0f} W per GPU (mean over {drawn.gpus} GPUs): "
                   "the energy term of owned servers")
    where = "" if target == efficiency_path() else (f"; plans use it when ACCELFIT_EFFICIENCY_FILE={target}")
    click.echo(f"wrote {target}{where}")
