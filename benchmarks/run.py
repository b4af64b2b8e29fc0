"""Run every benchmark script in this folder (`./dev bench`) and print their figures. Nothing here asserts.

    ./dev bench            quick: one run of each measurement, the small inventories, one preview, the synthetic
                           SkyPilot catalog at a quarter of its size (well under a minute)
    ./dev bench --full     every script with its own defaults (several minutes: medians of 5-20 runs, 1,000 servers,
                           the full-size synthetic SkyPilot catalog)
    ./dev bench ARGS...    ARGS passed to every script as they are

Pulumi's gRPC event loop, torn down at interpreter exit, can print "Exception ignored ... Invalid file
descriptor" blocks on stderr; they say nothing about the benchmark and are dropped. Every other line of stderr
is passed through.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUICK_ARGS = {
    "bench_aws_components.py": ["--runs", "1"],
    "bench_baremetal.py": ["--servers", "4", "100", "--modes", "check", "preview"],  # full: also 10,000 servers
    # A quarter of the upstream size: the CPU-only rows it drops are skipped by the importer anyway, so the imported
    # catalog (and plan()) is the same as at full size; only the import itself is faster.
    "bench_catalog.py": ["--scale", "0.25", "--runs", "4"],
    "bench_fleet_plan.py": ["--runs", "1"],
    "bench_fleet_preview.py": ["--runs", "1"],
    "bench_gcp_components.py": ["--runs", "1"],
    "bench_plan_cli.py": ["--runs", "5", "--catalog", "shipped"],  # full: also the full-size imported catalog
    "bench_planner.py": ["--runs", "3"],
    "bench_preview.py": ["--runs", "1", "--stacks", "dev"],
}
_TEARDOWN_MARKS = ("Invalid file descriptor", "BaseEventLoop.__del__", "_UnixSelectorEventLoop", "asyncio",
                   "grpc._cython", "Event loop is closed")


def without_teardown_noise(lines: Iterable[str]) -> Iterator[str]:
    """Drop "Exception ignored in: ..." blocks that come from an event loop's teardown; keep everything else."""
    block: list[str] = []
    for line in lines:
        if block:
            block.append(line)
            if line.startswith((" ", "\t", "Traceback (most recent call last):")):
                continue
            if not any(mark in text for text in block for mark in _TEARDOWN_MARKS):
                yield from block
            block = []
            continue
        if line.startswith("Exception ignored in"):
            block = [line]
            continue
        yield line
    if block and not any(mark in text for text in block for mark in _TEARDOWN_MARKS):
        yield from block


def _forward_stderr(stream) -> None:
    for line in without_teardown_noise(stream):
        sys.stderr.write(line)
        sys.stderr.flush()


def main(argv: list[str]) -> int:
    full = "--full" in argv
    passed = [arg for arg in argv if arg != "--full"]
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        args = passed if passed or full else QUICK_ARGS.get(script.name, [])
        print(f"\n== {script.name} {' '.join(args)} ==", flush=True)
        process = subprocess.Popen([sys.executable, str(script), *args], stderr=subprocess.PIPE, text=True)
        forwarder = threading.Thread(target=_forward_stderr, args=(process.stderr,), daemon=True)
        forwarder.start()
        failed += process.wait() != 0
        forwarder.join()
    if not full and not passed:
        print("\n(quick run; `./dev bench --full` for the medians of several runs and the 1,000-server inventory)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
