"""Read a real `pulumi preview --json` document (reference/pulumi.md 9.2) into neutral resources to price.

Steps that remove a resource (delete, discard, ...) carry no new state and are skipped; the stack itself and
component resources (`custom: false`) cost nothing themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accelfit.errors import InputError, Problem, problem, short_repr
from accelfit.jsonio import read_json
from accelfit.pricing.input_shapes import input_problems
from accelfit.pricing.resources import NeutralResource

REMOVING_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace",
                          "read-discard"})


def resources_from_preview(document: Any, source: str) -> list[NeutralResource]:
    if not isinstance(document, dict) or not isinstance(document.get("steps"), list):
        raise InputError([problem(source, "steps", "not a `pulumi preview --json` document (no steps list)",
                                  "run `pulumi preview --json > preview.json` and pass that file")])
    resources: list[NeutralResource] = []
    problems: list[Problem] = []
    for index, step in enumerate(document["steps"]):
        where = f"steps[{index}]"
        if not isinstance(step, dict):
            problems.append(problem(source, where, "a step must be an object", "check the file"))
            continue
        if step.get("op") in REMOVING_OPS:
            continue
        state = step.get("newState")
        if state is None:
            continue
        if not isinstance(state, dict):
            problems.append(problem(source, f"{where}.newState", "expected an object", "check the file"))
            continue
        if state.get("type") == "pulumi:pulumi:Stack" or state.get("custom") is False:
            continue
        urn = state.get("urn") or step.get("urn") or ""
        kind = state.get("type", "")
        if not isinstance(urn, str) or not isinstance(kind, str):
            problems.append(problem(source, where, "urn and type must be strings", "check the file"))
            continue
        name = urn.rsplit("::", 1)[-1]
        inputs = state.get("inputs")
        inputs = {} if inputs is None else inputs
        found = input_problems(source, f"{where} ({short_repr(name)})", kind, inputs)
        if found:
            problems += found
            continue
        resources.append(NeutralResource(type=kind, name=name, props=inputs, urn=urn))
    if problems:
        raise InputError(problems)
    return resources


def load_preview(path: Path) -> list[NeutralResource]:
    document = read_json(path, "pass the output of `pulumi preview --json`")
    return resources_from_preview(document, str(path))
