"""The planner's cost model (accelfit/planner/costing/option_costs.py) is a module the sizing calls, not a hub the
walk keeps returning to: while `planner.plan` walks a spec, control enters option_costs.py only from the sizing
(evaluate.py) and the plan's assembly (build.py), through a handful of entry points, and option_costs.py imports
nothing of the walk."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import plan
from accelfit.planner.planner import Environment
from accelfit.spec.loader import load_workload

ROOT = Path(__file__).resolve().parents[2]
COSTING = ROOT / "accelfit" / "planner" / "costing" / "option_costs.py"
# The walk: the modules that enumerate, size, choose and assemble options. The cost model may use data types and
# pure helpers (model, options' Offer, memory, data transfer), never these.
WALK = {"accelfit.planner.planner", "accelfit.planner.evaluate", "accelfit.planner.build",
        "accelfit.planner.choose", "accelfit.planner.candidates", "accelfit.planner.training.sizing",
        "accelfit.planner.fleet.stack"}


def _entries(spec_file: str) -> set[tuple[str, str, str]]:
    """(calling module file, calling function, costing function) of every entry into option_costs.py from outside
    it."""
    loaded = load_workload(ROOT / "examples" / spec_file)
    edges: set[tuple[str, str, str]] = set()
    target = str(COSTING)

    def profile(frame, event, arg):  # noqa: ARG001 (sys.setprofile's signature)
        if event != "call" or frame.f_code.co_filename != target:
            return
        caller = frame.f_back
        if caller is not None and caller.f_code.co_filename != target:
            edges.add((Path(caller.f_code.co_filename).name, caller.f_code.co_name, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        plan(loaded.spec, load_catalog(), Environment())
    finally:
        sys.setprofile(None)
    return edges


@pytest.mark.parametrize("spec_file", ["llama2-7b-a100.yaml", "moe-serving.yaml"])
def test_the_walk_enters_the_cost_model_only_from_the_sizing(spec_file):
    edges = _entries(spec_file)
    assert edges, "the plan is priced by option_costs.py"
    assert {module for module, _, _ in edges} <= {"evaluate.py", "build.py"}
    assert len(edges) <= 8, sorted(edges)  # 6-7 today: cost_parts, plan_figures, cost_assumptions, storage...


def test_the_cost_model_imports_nothing_of_the_walk():
    tree = ast.parse(COSTING.read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {f"{node.module}.{alias.name}" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and node.module for alias in node.names}
    assert not imported & WALK, sorted(imported & WALK)
