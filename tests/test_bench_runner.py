"""`./dev bench` drops the event-loop teardown noise and nothing else."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("bench_run", Path(__file__).resolve().parents[1] / "benchmarks" / "run.py")
assert _SPEC is not None and _SPEC.loader is not None
bench_run = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_run)
QUICK_ARGS, without_teardown_noise = bench_run.QUICK_ARGS, bench_run.without_teardown_noise


def test_teardown_blocks_are_dropped_and_other_lines_kept():
    lines = ["figure 1\n", "Exception ignored in: <function BaseEventLoop.__del__ at 0x7f>\n",
             "Traceback (most recent call last):\n", '  File "base_events.py", line 1, in __del__\n',
             "ValueError: Invalid file descriptor: -1\n", "figure 2\n",
             "Exception ignored in: <function Thing.__del__>\n", "Traceback (most recent call last):\n",
             "RuntimeError: a real problem\n", "figure 3\n"]
    kept = list(without_teardown_noise(lines))
    assert kept == ["figure 1\n", "figure 2\n", "Exception ignored in: <function Thing.__del__>\n",
                    "Traceback (most recent call last):\n", "RuntimeError: a real problem\n", "figure 3\n"]


def test_every_benchmark_has_a_quick_setting():
    scripts = {path.name for path in (Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py")}
    assert scripts == set(QUICK_ARGS)
