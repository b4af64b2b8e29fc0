"""Offline preview speed: the whole `accelfit preview --stack ENV` process and its parts (imports, program under
mocks, pricing, policies), with the resource count. Target: under 5 s for a stack of about 100 resources.

Run: ./dev bench --full   (or .venv/bin/python benchmarks/bench_preview.py --runs 5 [--stacks dev prod])
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STACKS = ("dev", "prod", "example-aws-h100-training", "example-gcp-gke-h100-training")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--stacks", nargs="+", default=list(STACKS), help="stacks to preview")
    arguments = parser.parse_args()
    runs = arguments.runs
    accelfit = str(ROOT / ".venv" / "bin" / "accelfit")
    print(f"{'stack':34} {'resources':>9} {'process s':>9}  parts (median of the last run's timings)")
    for stack in arguments.stacks:
        if not (ROOT / "stacks" / f"Pulumi.{stack}.yaml").exists():
            continue
        times, parts = [], ""
        for _ in range(runs):
            started = time.perf_counter()
            done = subprocess.run([accelfit, "preview", "--stack", stack, "--json", "--timings"], cwd=ROOT,
                                  capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - started)
            parts = done.stderr.strip().splitlines()[0] if done.stderr.strip() else ""
        count = len(json.loads(done.stdout)["resources"]) if done.stdout.strip() else 0
        print(f"{stack:34} {count:9d} {statistics.median(times):9.2f}  {parts}")


if __name__ == "__main__":
    main()
