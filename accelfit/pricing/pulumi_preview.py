"""Read a real `pulumi preview --json` document (reference/pulumi.md 9.2) into neutral resources to price.

Steps that remove a resource (delete, discard, ...) carry no new state and are skipped; the stack itself and
component resources (`custom: false`) cost nothing themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.jsonio import read_json
from accelfit.pricing.resources import NeutralResource

REMOVING_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace",
                          "read-discard"})


def resources_from_preview(document: Any, source: str) -> list[NeutralResource]:
    if not isinstance(document, dict) or not isinstance(document.get("steps"), list):
        raise InputError([problem(source, "steps", "not a `pulumi preview --json` document (no steps list)",
                                  "run `pulumi preview --json > preview.json` and pass that file")])
    resources: list[NeutralResource] = []
    for index, step in enumerate(document["steps"]):
        if not isinstance(step, dict):
            raise InputError([problem(source, f"steps[{index}]", "a step must be an object", "check the file")])
        if step.get("op") in REMOVING_OPS:
            continue
        state = step.get("newState")
        if not isinstance(state, dict):
            continue
        if state.get("type") == "pulumi:pulumi:Stack" or state.get("custom") is False:
            continue
        urn = str(state.get("urn") or step.get("urn") or "")
        resources.append(NeutralResource(type=str(state.get("type", "")), name=urn.rsplit("::", 1)[-1],
                                         props=state.get("inputs") or {}, urn=urn))
    return resources


def load_preview(path: Path) -> list[NeutralResource]:
    document = read_json(path, "pass the output of `pulumi preview --json`")
    return resources_from_preview(document, str(path))
