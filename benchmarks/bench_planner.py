"""Planner speed: median time of plan() over the full catalog for representative specs, and of the whole
`accelfit plan` process (which must not import Pulumi). Targets: plan() < 50 ms, the process < 0.5 s.
The same over a full-size imported SkyPilot catalog: bench_catalog.py.

Run: ./dev bench   (or .venv/bin/python benchmarks/bench_planner.py --runs 20)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPECS = {
    "jax-pretrain-70b (gcp+aws)": {
        "name": "pretrain", "kind": "training", "framework": "jax", "model": {"parameters": "70B"},
        "training": {"tokens": "2T", "deadline_days": 30}, "placement": {"clouds": ["gcp", "aws"]}},
    "pytorch-finetune-custom-kernels": {
        "name": "finetune", "kind": "fine-tuning", "framework": "pytorch",
        "model": {"parameters": "13B", "custom_kernels": True},
        "training": {"tokens": "5B", "deadline_days": 3, "method": "lora"}, "placement": {"clouds": ["gcp", "aws"]}},
    "realtime-inference-8b": {
        "name": "serve", "kind": "inference", "framework": "pytorch", "model": {"parameters": "8B"},
        "inference": {"requests_per_second": 40, "latency_p99_ms": 10000}, "placement": {"clouds": ["gcp", "aws"]}},
    "onprem-h100 (inventory)": {
        "name": "onprem", "kind": "training", "framework": "pytorch", "model": {"parameters": "8B"},
        "training": {"tokens": "200B", "deadline_days": 14},
        "placement": {"deployment": "any", "inventory": "inventory-lab.yaml", "clouds": ["aws"]}},
}


def plan_medians(catalog, runs: int) -> Iterator[tuple[str, int, float, float, str]]:
    """(spec label, offers, median plan() wall ms, median CPU ms over `runs`, chosen option) for each spec in SPECS.
    CPU time is the steadier figure on a shared machine; wall time is what the target is about."""
    from accelfit.planner import Environment, plan
    from accelfit.planner.candidates import offers_for
    from accelfit.spec import WorkloadSpec, load_inventory

    inventory = load_inventory(ROOT / "tests" / "fixtures" / "inventory-lab.yaml")
    for label, document in SPECS.items():
        spec = WorkloadSpec.model_validate(document)
        environment = Environment("dev", inventory if spec.placement.inventory else None)
        offers = len(offers_for(spec, catalog, environment.inventory).offers)
        wall, cpu = [], []
        for _ in range(runs):
            started, started_cpu = time.perf_counter(), time.process_time()
            result = plan(spec, catalog, environment)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
        yield label, offers, statistics.median(wall), statistics.median(cpu), result.option


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs

    from accelfit.catalog import load_catalog

    print(f"{'spec':36} {'offers':>6} {'plan() ms wall':>14} {'cpu':>6}  chosen")
    for label, offers, wall_ms, cpu_ms, option in plan_medians(load_catalog(), runs):
        print(f"{label:36} {offers:6} {wall_ms:14.1f} {cpu_ms:6.1f}  {option}")

    times = []
    for _ in range(max(3, runs // 4)):
        started = time.perf_counter()
        subprocess.run([str(ROOT / ".venv" / "bin" / "accelfit"), "plan", "--stack", "prod", "--json"], cwd=ROOT,
                       check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    print(f"\n`accelfit plan --stack prod --json` whole process: median {statistics.median(times):.2f} s "
          f"over {len(times)} runs")


if __name__ == "__main__":
    main()
