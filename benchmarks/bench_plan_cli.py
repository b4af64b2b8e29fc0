"""`accelfit plan` of a training spec as a whole process: CPU seconds (user + system, the figure that holds on a
loaded machine) and wall seconds, median of N runs each in a fresh process, against two floors measured the same
way in the same run:

    python   the virtualenv's interpreter starting and exiting (`python -c pass`)
    libs     the interpreter importing the libraries a plan cannot do without (pydantic, click, PyYAML)

Also where a plan's CPU goes, in one process: importing accelfit's modules, loading the catalog, validating the
spec, planning and rendering. Run with the shipped catalog (default) or an imported full-size synthetic SkyPilot
catalog (`--catalog full`, as bench_catalog.py builds it). Target (issue 39): 0.2 CPU-s for the shipped catalog.

Run: ./dev bench   (or .venv/bin/python benchmarks/bench_plan_cli.py --runs 15 --catalog shipped full)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
PYTHON = ROOT / ".venv" / "bin" / "python"
ACCELFIT = ROOT / ".venv" / "bin" / "accelfit"
SPEC = "examples/jax-pretrain.yaml"
TARGET_CPU_S = 0.2

# One process, its stages timed by CPU (process_time): what `accelfit plan SPEC` does, step by step.
_STAGES = """
import json, sys, time
marks = [("start", time.process_time())]
import accelfit.cli.main, accelfit.cli.plan_command, accelfit.planner, accelfit.catalog, accelfit.spec
marks.append(("import accelfit", time.process_time()))
from accelfit.catalog import load_catalog
catalog = load_catalog()
marks.append(("load the catalog", time.process_time()))
from accelfit.spec import load_workload
loaded = load_workload(sys.argv[1])
marks.append(("read and validate the spec", time.process_time()))
from accelfit.cli.main import main
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["plan", sys.argv[1]])
marks.append(("plan and render (the command)", time.process_time()))
print(json.dumps({"code": code, "stages": [(name, after - before) for (_, before), (name, after)
                                          in zip(marks, marks[1:])]}))
"""


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds of the child, user + system; wall seconds) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def _medians(command: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    _run(command, env)  # a first run writes the compiled catalog cache and warms the file cache
    figures = [_run(command, env) for _ in range(runs)]
    return statistics.median(cpu for cpu, _ in figures), statistics.median(wall for _, wall in figures)


def _full_catalog(base: Path, env: dict[str, str]) -> None:
    sys.path.insert(0, str(HERE))
    import synthetic_skypilot

    synthetic_skypilot.write_catalog(base / "v8", 1.0)
    subprocess.run([str(ACCELFIT), "catalog", "update", "--from", str(base / "v8")], cwd=ROOT, env=env, check=True,
                   capture_output=True)


def measure(catalog: str, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="accelfit-bench-plan-") as scratch:
        env = {**os.environ, "ACCELFIT_CATALOG_DIR": str(Path(scratch) / "catalog")}
        if catalog == "full":
            _full_catalog(Path(scratch), env)
        python_cpu, python_wall = _medians([str(PYTHON), "-c", "pass"], env, runs)
        libs_cpu, libs_wall = _medians([str(PYTHON), "-c", "import pydantic, click, yaml"], env, runs)
        plan_cpu, plan_wall = _medians([str(ACCELFIT), "plan", SPEC], env, runs)
        print(f"\n`accelfit plan {SPEC}`, {catalog} catalog, median of {runs} processes")
        print(f"{'':28} {'CPU s':>7} {'wall s':>7} {'CPU / floor':>12}")
        print(f"{'floor: python':28} {python_cpu:7.3f} {python_wall:7.3f} {'':>12}")
        print(f"{'floor: python + libraries':28} {libs_cpu:7.3f} {libs_wall:7.3f} {'':>12}")
        print(f"{'accelfit plan':28} {plan_cpu:7.3f} {plan_wall:7.3f} {plan_cpu / libs_cpu:11.1f}x"
              f"   (target {TARGET_CPU_S} CPU-s{': met' if plan_cpu <= TARGET_CPU_S else ''})")
        output = subprocess.run([str(PYTHON), "-c", _STAGES, SPEC], cwd=ROOT, env=env, check=True,
                                capture_output=True, text=True).stdout
        stages = json.loads(output.strip().splitlines()[-1])
        print("where one plan's CPU goes (in-process, after the interpreter started):")
        for name, seconds in stages["stages"]:
            print(f"  {name:34} {seconds:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--catalog", nargs="+", choices=("shipped", "full"), default=["shipped", "full"])
    arguments = parser.parse_args()
    for catalog in arguments.catalog:
        measure(catalog, arguments.runs)


if __name__ == "__main__":
    main()
