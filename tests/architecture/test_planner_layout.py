"""The planner's parts import each other one way only, as each subpackage's `__init__` says (issue 35).

The shared values at the package top are read by every part; training/, serving/ and costing/ are the models the
search puts together; the search (planner.py, evaluate.py, ...) imports them; fleet/ plans a stack on top of it all.
A part that reaches up (serving/ importing the search, costing/ importing fleet/) would tie two roles back into
one, which is what the layout undid.
"""

from __future__ import annotations

from tests.test_import_cycles import import_graph

PLANNER = "accelfit.planner"
# The package top: the values every part reads, and the search that puts the parts together.
VALUES = frozenset({"model", "options", "sizes", "memory", "preferences", "constraints", "limits", "software",
                    "team_efficiency", "gpu_vms", "balance", "stack_placement"})
SEARCH = frozenset({"planner", "candidates", "eligibility", "evaluate", "choose", "build", "lock", "missing_prices"})
# What each part may import from the planner, besides itself.
MAY_IMPORT: dict[str, frozenset[str]] = {
    # The Plan carries the serving route's type; serving/traffic.py imports no other planner module.
    "values": frozenset({"values", "serving.traffic"}),
    "training": frozenset({"values"}),
    "serving": frozenset({"values", "training"}),
    "costing": frozenset({"values", "serving"}),
    "search": frozenset({"values", "training", "serving", "costing"}),
    "fleet": frozenset({"values", "training", "serving", "costing", "search"}),
}


def part_of(module: str) -> str | None:
    """The planner part a module belongs to (None outside the planner and for the package itself)."""
    if not module.startswith(PLANNER + "."):
        return None
    rest = module[len(PLANNER) + 1:].split(".")
    if len(rest) > 1:
        return rest[0]
    if rest[0] in VALUES:
        return "values"
    if rest[0] in SEARCH:
        return "search"
    return rest[0]  # a subpackage's own __init__


def wrong_imports(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, targets in graph.items():
        part = part_of(module)
        if part is None:
            continue
        allowed = MAY_IMPORT.get(part, frozenset()) | {part}
        for target in targets:
            other = part_of(target)
            if other is None or other in allowed or target.removeprefix(PLANNER + ".") in allowed:
                continue
            found.append(f"{module} ({part}) imports {target} ({other})")
    return sorted(found)


def test_every_planner_module_has_a_part():
    parts = {part_of(module) for module in import_graph()} - {None}
    assert parts == set(MAY_IMPORT), f"place these in VALUES, SEARCH or a subpackage: {sorted(parts - set(MAY_IMPORT))}"


def test_the_planner_parts_import_one_way():
    wrong = wrong_imports(import_graph())
    assert not wrong, "planner parts importing what their __init__ does not allow:\n" + "\n".join(wrong)


def test_the_check_sees_a_wrong_import():
    """Not vacuous: serving importing the search, and training importing serving, are both found."""
    graph = {"accelfit.planner.serving.layout": {"accelfit.planner.evaluate"},
             "accelfit.planner.training.sizing": {"accelfit.planner.serving.sizing", "accelfit.planner.memory"}}
    assert wrong_imports(graph) == [
        "accelfit.planner.serving.layout (serving) imports accelfit.planner.evaluate (search)",
        "accelfit.planner.training.sizing (training) imports accelfit.planner.serving.sizing (serving)",
    ]
