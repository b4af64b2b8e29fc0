"""`accelfit plan` of a training spec as a whole process: CPU seconds (user + system, the figure that holds on a
loaded machine) and wall seconds, median of N runs each in a fresh process, against three floors measured the
same way in the same run:

    python   the virtualenv's interpreter starting and exiting (`python -c pass`)
    libs     the interpreter importing the libraries a plan cannot do without (pydantic, click, PyYAML)
    models   the same, then defining one pydantic model: pydantic imports its schema machinery, its plugin loader
             (importlib.metadata) and pydantic-core on the first model a program defines, about 50 ms that any
             program with pydantic models pays; what is above this floor is accelfit's own

Also where a plan's CPU goes, in one process: importing accelfit's modules, loading the catalog, validating the
spec, planning and rendering. Run with the shipped catalog (default) or an imported full-size synthetic SkyPilot
catalog (`--catalog full`, as bench_catalog.py builds it). Target (issue 39): 0.2 CPU-s for the shipped catalog.

Run: ./dev bench   (or .venv/bin/python benchmarks/bench_plan_cli.py --runs 15 --catalog shipped full)

With `--skypilot PYTHON` (an interpreter with SkyPilot installed, outside this project: it is no dependency) and the
full catalog, SkyPilot's optimizer is timed the same way on the same synthetic catalog (skypilot_optimizer.py says
how) and the plan is reported as a ratio to it (target, issue 39: x0.05).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
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
TARGET_SKYPILOT_RATIO = 0.05
# What the SkyPilot task may run on: the accelerators accelfit weighs for the example spec (GPUs in 8-GPU nodes, a
# 256- or 512-chip slice of each TPU generation), any of them on AWS or GCP, the cheapest wins.
SKYPILOT_ACCELERATORS = ("A100:8,A100-80GB:8,H100:8,H200:8,B200:8,L4:8,L40S:8,"
                         "tpu-v4-256,tpu-v5litepod-256,tpu-v5p-512,tpu-v6e-256")

# The models floor: the libraries, then the first pydantic model a program defines.
_ONE_MODEL = "import pydantic, click, yaml\nclass Floor(pydantic.BaseModel):\n    x: int = 0\n"

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


def _skypilot_runtime(base: Path) -> Path:
    """A SkyPilot runtime folder holding the synthetic catalog and the index files SkyPilot derives from it upstream
    (which accelerator each cloud sells; no GPU memory table, which the optimizer does not read)."""
    runtime = base / "sky"
    catalogs = runtime / ".sky" / "catalogs" / "v8"
    clouds_of: dict[str, set[str]] = {}
    for cloud in ("aws", "gcp"):
        (catalogs / cloud).mkdir(parents=True)
        shutil.copyfile(base / "v8" / cloud / "vms.csv", catalogs / cloud / "vms.csv")
        with (catalogs / cloud / "vms.csv").open(encoding="utf-8", newline="") as rows:
            for row in csv.DictReader(rows):
                if row["AcceleratorName"]:
                    clouds_of.setdefault(row["AcceleratorName"], set()).add(cloud.upper())
    (catalogs / "common").mkdir()
    with (catalogs / "common" / "accelerators.csv").open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["AcceleratorName", "Clouds"])
        writer.writerows([name, str(sorted(clouds))] for name, clouds in sorted(clouds_of.items()))
    (catalogs / "common" / "metadata.csv").write_text("GPU,MemoryGB,Manufacturer\n", encoding="utf-8")
    return runtime


def measure_skypilot(python: str, base: Path, runs: int, plan_cpu: float) -> None:
    runtime = _skypilot_runtime(base)
    env = {**os.environ, "SKY_RUNTIME_DIR": str(runtime), "HOME": str(runtime)}
    command = [python, str(HERE / "skypilot_optimizer.py"), SKYPILOT_ACCELERATORS]
    cpu, wall = _medians(command, env, runs)
    output = subprocess.run(command, cwd=runtime, env=env, check=True, capture_output=True, text=True).stdout
    figures = json.loads(output.strip().splitlines()[-1])
    print(f"SkyPilot's optimizer on the same catalog (median of {runs} processes; chose {figures['chosen']})")
    print(f"{'skypilot: process':28} {cpu:7.3f} {wall:7.3f}   of which import {figures['import_cpu_s']:.3f}, "
          f"Optimizer.optimize {figures['optimize_cpu_s']:.3f} CPU-s")
    print(f"{'accelfit plan / skypilot':28} x{plan_cpu / cpu:.3f} of the process, x{plan_cpu / figures['optimize_cpu_s']:.3f}"
          f" of optimize alone   (target x{TARGET_SKYPILOT_RATIO}"
          f"{': met' if plan_cpu / cpu <= TARGET_SKYPILOT_RATIO else ''})")


def measure(catalog: str, runs: int, skypilot: str | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="accelfit-bench-plan-") as scratch:
        env = {**os.environ, "ACCELFIT_CATALOG_DIR": str(Path(scratch) / "catalog")}
        if catalog == "full":
            _full_catalog(Path(scratch), env)
        python_cpu, python_wall = _medians([str(PYTHON), "-c", "pass"], env, runs)
        libs_cpu, libs_wall = _medians([str(PYTHON), "-c", "import pydantic, click, yaml"], env, runs)
        models_cpu, models_wall = _medians([str(PYTHON), "-c", _ONE_MODEL], env, runs)
        plan_cpu, plan_wall = _medians([str(ACCELFIT), "plan", SPEC], env, runs)
        print(f"\n`accelfit plan {SPEC}`, {catalog} catalog, median of {runs} processes")
        print(f"{'':28} {'CPU s':>7} {'wall s':>7} {'CPU / floor':>12}")
        print(f"{'floor: python':28} {python_cpu:7.3f} {python_wall:7.3f} {'':>12}")
        print(f"{'floor: python + libraries':28} {libs_cpu:7.3f} {libs_wall:7.3f} {'':>12}")
        print(f"{'floor: + one pydantic model':28} {models_cpu:7.3f} {models_wall:7.3f} {'':>12}")
        print(f"{'accelfit plan':28} {plan_cpu:7.3f} {plan_wall:7.3f} {plan_cpu / models_cpu:11.1f}x"
              f"   (target {TARGET_CPU_S} CPU-s{': met' if plan_cpu <= TARGET_CPU_S else ''};"
              f" accelfit's own {plan_cpu - models_cpu:.3f})")
        output = subprocess.run([str(PYTHON), "-c", _STAGES, SPEC], cwd=ROOT, env=env, check=True,
                                capture_output=True, text=True).stdout
        stages = json.loads(output.strip().splitlines()[-1])
        print("where one plan's CPU goes (in-process, after the interpreter started):")
        for name, seconds in stages["stages"]:
            print(f"  {name:34} {seconds:6.3f} s")
        if skypilot and catalog == "full":
            measure_skypilot(skypilot, Path(scratch), min(runs, 3), plan_cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--catalog", nargs="+", choices=("shipped", "full"), default=["shipped", "full"])
    parser.add_argument("--skypilot", metavar="PYTHON",
                        help="an interpreter with SkyPilot installed: time its optimizer on the full catalog too")
    arguments = parser.parse_args()
    if arguments.skypilot and "full" not in arguments.catalog:
        parser.error("--skypilot compares on the full catalog: add --catalog full")
    for catalog in arguments.catalog:
        measure(catalog, arguments.runs, arguments.skypilot)


if __name__ == "__main__":
    main()
