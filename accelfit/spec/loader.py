"""Load a workload spec (standalone YAML, or `accelfit:workload` in a stack file) and bare-metal inventories."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.inputfile import is_regular_file
from accelfit.spec.inventory import Inventory
from accelfit.spec.models import WorkloadSpec
from accelfit.validation import validate
from accelfit.yamlio import read_yaml

WORKLOAD_KEY = "accelfit:workload"


@dataclass(frozen=True)
class LoadedWorkload:
    """A validated spec with where it came from; `inventory` is loaded when the spec names one."""

    spec: WorkloadSpec
    source: str
    inventory: Inventory | None
    inventory_path: Path | None


def is_stack_document(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("config"), dict)


def workload_from_document(document: Any, source: str) -> tuple[WorkloadSpec, str]:
    """Validate the spec inside a parsed document; returns the spec and the field prefix it lives under."""
    if is_stack_document(document):
        config = document["config"]
        if WORKLOAD_KEY not in config:
            raise InputError([problem(source, "config", f"no {WORKLOAD_KEY} in this stack file",
                                      f"add a {WORKLOAD_KEY} object (see `accelfit schema`)")])
        prefix = f"config.{WORKLOAD_KEY}"
        return validate(WorkloadSpec, config[WORKLOAD_KEY], source, prefix), prefix
    return validate(WorkloadSpec, document, source), ""


def load_workload(path: Path | str) -> LoadedWorkload:
    """Load and validate a spec file or stack file, and the inventory it names (relative to that file)."""
    path = Path(path)
    spec, prefix = workload_from_document(read_yaml(path), str(path))
    return with_inventory(spec, path, prefix)


def with_inventory(spec: WorkloadSpec, source_path: Path, prefix: str = "") -> LoadedWorkload:
    if not spec.placement.inventory:
        return LoadedWorkload(spec, str(source_path), None, None)
    inventory_path = (source_path.parent / spec.placement.inventory)
    if not is_regular_file(inventory_path):
        field = f"{prefix}.placement.inventory" if prefix else "placement.inventory"
        raise InputError([problem(str(source_path), field, f"inventory file {str(inventory_path)!r} not found",
                                  "give a path relative to this file", spec.placement.inventory)])
    return LoadedWorkload(spec, str(source_path), load_inventory(inventory_path), inventory_path)


def load_inventory(path: Path | str) -> Inventory:
    path = Path(path)
    return validate(Inventory, read_yaml(path), str(path))
