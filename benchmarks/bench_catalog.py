"""Planning over a full imported SkyPilot catalog: import, catalog load (parsed vs compiled cache), plan() and the
`accelfit plan` process. Targets (issue 18): plan() < 50 ms and the process < 0.5 s with that catalog.

The catalog is synthetic, of the upstream size and layout (`synthetic_skypilot.py`, `--scale 1` = the upstream
file sizes), written to a temporary directory and imported there with the real `accelfit catalog update`;
nothing on this machine's own catalog directory is touched.

Run: ./dev bench --full   (or .venv/bin/python benchmarks/bench_catalog.py --scale 1 --runs 20)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
ACCELFIT = ROOT / ".venv" / "bin" / "accelfit"
EXAMPLES = ("jax-pretrain.yaml", "llama2-7b-a100.yaml", "pytorch-finetune-custom-kernels.yaml",
            "realtime-inference.yaml")
LOAD_SNIPPET = ("import time; from accelfit.catalog import load_catalog; started = time.perf_counter(); "
                "catalog = load_catalog(); print(time.perf_counter() - started, len(catalog.prices))")


def _seconds(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def _load_in_child(env: dict[str, str]) -> tuple[float, float, int]:
    """(process seconds, load_catalog() seconds, price rows) of a fresh interpreter loading the catalog."""
    started = time.perf_counter()
    output = subprocess.run([sys.executable, "-c", LOAD_SNIPPET], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True).stdout.split()
    return time.perf_counter() - started, float(output[0]), int(output[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="synthetic catalog size, 1 = upstream (default)")
    parser.add_argument("--runs", type=int, default=20, help="plan() runs per spec; processes a quarter (at least 3)")
    arguments = parser.parse_args()
    runs, process_runs = arguments.runs, max(3, arguments.runs // 4)

    with tempfile.TemporaryDirectory(prefix="accelfit-bench-catalog-") as scratch:
        upstream, base = Path(scratch) / "v8", Path(scratch) / "catalog"
        sys.path.insert(0, str(HERE))
        import synthetic_skypilot

        sizes = synthetic_skypilot.write_catalog(upstream, arguments.scale)
        print(f"synthetic SkyPilot v8 catalog, scale {arguments.scale:g}: "
              + ", ".join(f"{name} {chars:,} characters" for name, chars in sizes.items()))
        env = {**os.environ, "ACCELFIT_CATALOG_DIR": str(base)}
        seconds = _seconds([str(ACCELFIT), "catalog", "update", "--from", str(upstream)], env)
        print(f"`accelfit catalog update --from DIR` process: {seconds:.2f} s (imports, checks, compiles)")
        first = _seconds([str(ACCELFIT), "plan", f"examples/{EXAMPLES[0]}"], env)
        print(f"first `accelfit plan examples/{EXAMPLES[0]}` after the import: {first:.2f} s")

        from accelfit.catalog.compiled import CACHE_FILE

        cache = base / CACHE_FILE
        cache.unlink(missing_ok=True)
        process, load, prices = _load_in_child(env)
        print(f"catalog load, parsed and checked (no cache): {load * 1000:6.0f} ms in a {process:.2f} s process "
              f"({prices:,} price rows)")
        warm = [_load_in_child(env) for _ in range(process_runs)]
        print(f"catalog load from the compiled cache:       {statistics.median(w[1] for w in warm) * 1000:6.0f} ms "
              f"in a {statistics.median(w[0] for w in warm):.2f} s process (median of {len(warm)})")

        os.environ["ACCELFIT_CATALOG_DIR"] = str(base)
        from accelfit.catalog import load_catalog
        from bench_planner import plan_medians

        print(f"\n{'spec (medians; target < 50 ms)':36} {'offers':>6} {'plan() ms wall':>14} {'cpu':>6}  chosen")
        for label, offers, wall_ms, cpu_ms, option in plan_medians(load_catalog(), runs):
            print(f"{label:36} {offers:6} {wall_ms:14.1f} {cpu_ms:6.1f}  {option}")

        print(f"\n{'`accelfit plan examples/...` process':48} {'median s':>8}   (target < 0.5 s)")
        cache.unlink(missing_ok=True)
        cold = _seconds([str(ACCELFIT), "plan", f"examples/{EXAMPLES[0]}"], env)
        print(f"{EXAMPLES[0] + ' (no cache: parses, checks, writes it)':48} {cold:8.2f}")
        for example in EXAMPLES:
            times = [_seconds([str(ACCELFIT), "plan", f"examples/{example}"], env) for _ in range(process_runs)]
            print(f"{example:48} {statistics.median(times):8.2f}")


if __name__ == "__main__":
    main()
