"""Benchmark: time to build each GCP example stack under Pulumi mocks, and how many resources it makes.

    .venv/bin/python benchmarks/bench_gcp_components.py [--runs 5]

"process" is a fresh Python process that imports everything and builds once (what `accelfit preview` pays);
"build" is the building alone, in-process, after the imports are warm. Medians of --runs runs. No test asserts
these numbers; they are for spotting regressions.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "components" / "gcp"
sys.path[:0] = [str(ROOT), str(FIXTURES)]

import gcp_plans  # noqa: E402  (the example plans live with the tests)

_ONE_PROCESS = """
import sys
sys.path[:0] = [{root!r}, {fixtures!r}]
import gcp_plans
recording, error = gcp_plans.record_plan(gcp_plans.EXAMPLES[{name!r}]())
assert error is None, error
"""


def time_process(name: str) -> float:
    code = _ONE_PROCESS.format(root=str(ROOT), fixtures=str(FIXTURES), name=name)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    return time.perf_counter() - start


def time_build(name: str) -> tuple[float, int]:
    plan = gcp_plans.EXAMPLES[name]()
    start = time.perf_counter()
    recording, error = gcp_plans.record_plan(plan)
    elapsed = time.perf_counter() - start
    assert error is None, error
    return elapsed, len(recording.resources)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    gcp_plans.record_plan(gcp_plans.EXAMPLES["l4-inference"]())  # warm the imports for the in-process timings
    print(f"{'example':<20} {'resources':>9} {'process s':>10} {'build s':>8}   (median of {runs})")
    for name in sorted(gcp_plans.EXAMPLES):
        builds = [time_build(name) for _ in range(runs)]
        processes = [time_process(name) for _ in range(runs)]
        count = builds[0][1]
        print(f"{name:<20} {count:>9} {statistics.median(processes):>10.2f} "
              f"{statistics.median(b[0] for b in builds):>8.3f}")


if __name__ == "__main__":
    main()
