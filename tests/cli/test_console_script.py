"""The `accelfit` console script is `run()`: main()'s exit code, young collections in batches of 200,000 new
objects while it runs, and the survivors moved out of the collector's view before exit (gc.freeze) so the
interpreter's last full collection does not walk them; main() itself, which tests and other callers use in-process,
leaves the collector alone."""

from __future__ import annotations

import gc
import subprocess
import sys
import tomllib
from pathlib import Path

from accelfit.cli.main import main

ROOT = Path(__file__).parents[2]
_PROBE = """
import gc, sys
from accelfit.cli import main as entry
seen = {}
real_exit = sys.exit
def record(code=0):
    seen["frozen"] = gc.get_freeze_count()
    print(gc.get_threshold()[0], file=sys.stderr)
    print(seen["frozen"], file=sys.stderr)
    real_exit(code)
sys.exit = record
sys.argv = ["accelfit", *sys.argv[1:]]
entry.run()
"""


def test_the_console_script_is_run():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"accelfit": "accelfit.cli.main:run"}


def test_run_exits_with_mains_code_and_freezes_what_is_left(tmp_path):
    good = subprocess.run([sys.executable, "-c", _PROBE, "plan", "examples/jax-pretrain.yaml", "--json"], cwd=ROOT,
                          capture_output=True, text=True)
    assert good.returncode == 0 and '"platform"' in good.stdout
    assert int(good.stderr.strip().splitlines()[-1]) > 10_000  # the imported models and the plan, frozen
    assert int(good.stderr.strip().splitlines()[-2]) == 200_000  # young collections in batches, as mypy's build
    bad = subprocess.run([sys.executable, "-c", _PROBE, "plan", str(tmp_path / "missing.yaml")], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "error:" in bad.stderr and "Traceback" not in bad.stderr


def test_main_in_process_leaves_the_collector_alone(capsys):
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    assert main(["plan", str(ROOT / "examples" / "jax-pretrain.yaml"), "--json"]) == 0
    assert gc.get_freeze_count() == frozen and gc.isenabled() and gc.get_threshold() == threshold
