"""Benchmark: time to build each AWS example stack under Pulumi mocks, and how many resources it makes.

    .venv/bin/python benchmarks/bench_aws_components.py [--runs 5]

"process" is a fresh Python process that imports everything, loads the catalog and builds once (what
`accelfit preview` pays); "build" is the building alone, in-process, with imports and catalog warm. Medians of
--runs runs. No test asserts these numbers; they are for spotting regressions.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "components" / "aws"
sys.path[:0] = [str(ROOT), str(FIXTURES)]
warnings.filterwarnings("ignore", category=DeprecationWarning)  # pulumi_aws.s3 warns on import (reference P10)

import aws_plans  # noqa: E402  (the example plans live with the tests)

import components.aws as aws_components  # noqa: E402
from accelfit.catalog import load_catalog  # noqa: E402
from accelfit.preview.recorder import record  # noqa: E402

_ONE_PROCESS = """
import sys, warnings
warnings.filterwarnings("ignore", category=DeprecationWarning)
sys.path[:0] = [{root!r}, {fixtures!r}]
import aws_plans
import components.aws as aws_components
from accelfit.preview.recorder import record
make, owner = aws_plans.EXAMPLES[{name!r}]
plan = make()
recording = record(lambda: aws_components.build(plan, owner(plan), access=aws_plans.ACCESS))
assert recording.resources and not recording.duplicate_urns
"""


def time_process(name: str) -> float:
    code = _ONE_PROCESS.format(root=str(ROOT), fixtures=str(FIXTURES), name=name)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    return time.perf_counter() - start


def time_build(name: str, catalog) -> tuple[float, int]:
    make, owner = aws_plans.EXAMPLES[name]
    plan = make()
    start = time.perf_counter()
    recording = record(lambda: aws_components.build(plan, owner(plan), catalog, aws_plans.ACCESS))
    elapsed = time.perf_counter() - start
    assert recording.resources and not recording.duplicate_urns
    return elapsed, len(recording.resources)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    catalog = load_catalog()
    time_build("example-aws-l4-inference", catalog)  # warm the lazy SDK submodules for the in-process timings
    print(f"{'example':<28} {'resources':>9} {'process s':>10} {'build s':>8}   (median of {runs})")
    for name in sorted(aws_plans.EXAMPLES):
        builds = [time_build(name, catalog) for _ in range(runs)]
        processes = [time_process(name) for _ in range(runs)]
        print(f"{name:<28} {builds[0][1]:>9} {statistics.median(processes):>10.2f} "
              f"{statistics.median(b[0] for b in builds):>8.3f}")


if __name__ == "__main__":
    main()
