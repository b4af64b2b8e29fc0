"""Read a real `pulumi preview --json` document (reference/pulumi.md 9.2) into neutral resources to price.

Steps that remove a resource (delete, discard, ...) carry no new state and are skipped; the stack itself and
component resources (`custom: false`) cost nothing themselves. For a fleet stack the component resources are kept
as records (`records_from_preview`): the workload group components they sit under say which workload a resource
belongs to (accelfit/preview/fleet_costs.py `attribute`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, Problem, problem, short_repr
from accelfit.jsonio import read_json
from accelfit.pricing.input_shapes import input_problems
from accelfit.pricing.resources import NeutralResource

REMOVING_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace",
                          "read-discard"})


@dataclass(frozen=True)
class PreviewRecord:
    """One resource of the preview with what attribution to a workload reads (the recorder's record shape)."""

    type: str
    name: str
    urn: str
    parent: str | None  # URN of the parent, None for children of the stack
    inputs: dict[str, Any]
    custom: bool


def resources_from_preview(document: Any, source: str) -> list[NeutralResource]:
    return [NeutralResource(type=record.type, name=record.name, props=record.inputs, urn=record.urn)
            for record in records_from_preview(document, source) if record.custom]


def records_from_preview(document: Any, source: str) -> list[PreviewRecord]:
    """Every resource the preview creates or keeps, components included, in the document's order."""
    if not isinstance(document, dict) or not isinstance(document.get("steps"), list):
        raise InputError([problem(source, "steps", "not a `pulumi preview --json` document (no steps list)",
                                  "run `pulumi preview --json > preview.json` and pass that file")])
    resources: list[PreviewRecord] = []
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
        if state.get("type") == "pulumi:pulumi:Stack":
            continue
        custom = state.get("custom") is not False
        urn = state.get("urn") or step.get("urn") or ""
        kind = state.get("type", "")
        if not isinstance(urn, str) or not isinstance(kind, str):
            problems.append(problem(source, where, "urn and type must be strings", "check the file"))
            continue
        name = urn.rsplit("::", 1)[-1]
        inputs = state.get("inputs")
        inputs = {} if inputs is None else inputs
        found = input_problems(source, f"{where} ({short_repr(name)})", kind, inputs) if custom else []
        if found:
            problems += found
            continue
        parent = state.get("parent")
        parent = parent if isinstance(parent, str) and "::pulumi:pulumi:Stack::" not in parent else None
        resources.append(PreviewRecord(type=kind, name=name, urn=urn, parent=parent,
                                       inputs=inputs if isinstance(inputs, dict) else {}, custom=custom))
    if problems:
        raise InputError(problems)
    return resources


def load_preview(path: Path) -> list[NeutralResource]:
    return resources_from_preview(_read(path), str(path))


def load_preview_records(path: Path) -> list[PreviewRecord]:
    return records_from_preview(_read(path), str(path))


def _read(path: Path) -> Any:
    return read_json(path, "pass the output of `pulumi preview --json`")
