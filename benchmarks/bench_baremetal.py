"""Benchmark: a bare-metal inventory of N servers previewed under Pulumi mocks: every server prepared over SSH
(two remote commands), a node patch each, and the Kubernetes layer. Time and peak memory of a whole process.

    .venv/bin/python benchmarks/bench_baremetal.py [--servers 4 100 1000]

Each size runs in a fresh process that imports everything, validates the inventory, builds and records (what
`accelfit preview` pays); the child reports its own wall time, the build alone, and its peak RSS from
resource.getrusage. No test asserts these numbers (target: the 1,000-server process under 15 s on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "components" / "baremetal"

_CHILD = """
import json, resource, sys, time
started = time.perf_counter()
sys.path[:0] = [{root!r}, {fixtures!r}]
import metal_stack
from accelfit.spec.inventory import Inventory
rows = [metal_stack.server(index) for index in range({servers})]
inventory = Inventory.model_validate({{"site": "lab-rack-a", "servers": rows}})
plan = metal_stack.plan_for(inventory)
built = time.perf_counter()
recording, error = metal_stack.record_build(plan, inventory)
assert error is None, error
assert not recording.duplicate_urns
done = time.perf_counter()
print(json.dumps({{"resources": len(recording.resources), "process_s": done - started, "build_s": done - built,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def measure(servers: int) -> dict:
    code = _CHILD.format(root=str(ROOT), fixtures=str(FIXTURES), servers=servers)
    output = subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, nargs="+", default=[4, 100, 1000])
    sizes = parser.parse_args().servers
    print(f"{'servers':>8} {'resources':>9} {'process s':>10} {'build s':>8} {'peak RSS MB':>12}")
    for servers in sizes:
        figures = measure(servers)
        print(f"{servers:>8} {figures['resources']:>9} {figures['process_s']:>10.2f} {figures['build_s']:>8.2f} "
              f"{figures['peak_rss_mb']:>12.0f}")


if __name__ == "__main__":
    main()
