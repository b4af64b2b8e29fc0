"""Load a workload spec (standalone YAML, `accelfit:workload` in a stack file, or each of a fleet stack's
`accelfit:workloads`) and bare-metal inventories."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelfit.errors import InputError, Problem, problem
from accelfit.inputfile import is_regular_file
from accelfit.spec.models import WorkloadSpec
from accelfit.validation import validate
from accelfit.yamlio import read_yaml

if TYPE_CHECKING:  # the inventory's models load with the first inventory (load_inventory)
    from accelfit.spec.inventory import Inventory

# The config namespace is the Pulumi project's name (Pulumi.yaml `name`), as `pulumi.Config()` reads it in the
# program; these are the keys of the project named accelfit, and `workload_key`/`workloads_key` give any project's.
PROJECT = "accelfit"
WORKLOAD_KEY = "accelfit:workload"
WORKLOADS_KEY = "accelfit:workloads"  # the fleet form: a list of workload specs, names unique


def workload_key(project: str = PROJECT) -> str:
    return f"{project}:workload"


def workloads_key(project: str = PROJECT) -> str:
    return f"{project}:workloads"


@dataclass(frozen=True)
class LoadedWorkload:
    """A validated spec with where it came from; `inventory` is loaded when the spec names one."""

    spec: WorkloadSpec
    source: str
    inventory: Inventory | None
    inventory_path: Path | None


def is_stack_document(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("config"), dict)


def is_fleet_document(document: Any, project: str = PROJECT) -> bool:
    return is_stack_document(document) and workloads_key(project) in document["config"]


def workload_from_document(document: Any, source: str, project: str = PROJECT) -> tuple[WorkloadSpec, str]:
    """Validate the spec inside a parsed document; returns the spec and the field prefix it lives under. A stack
    document's keys are in the namespace of `project` (the Pulumi project's name)."""
    WORKLOAD_KEY, WORKLOADS_KEY = workload_key(project), workloads_key(project)  # noqa: N806
    if is_stack_document(document):
        config = document["config"]
        if WORKLOADS_KEY in config:
            workloads_from_document(document, source, project)  # the fleet form's own errors (both keys, empty, names) first
            raise InputError([problem(source, f"config.{WORKLOADS_KEY}", f"this stack holds a fleet ({WORKLOADS_KEY}) "
                                      "and this reads one workload", "use `accelfit plan|lock|preview --stack ENV` "
                                      "or `accelfit check` on the stack file: they read the fleet form")])
        if WORKLOAD_KEY not in config:
            raise InputError([problem(source, "config", f"no {WORKLOAD_KEY} in this stack file",
                                      f"add a {WORKLOAD_KEY} object (see `accelfit schema`)")])
        prefix = f"config.{WORKLOAD_KEY}"
        return validate(WorkloadSpec, config[WORKLOAD_KEY], source, prefix), prefix
    return validate(WorkloadSpec, document, source), ""


def workloads_from_document(document: Any, source: str,
                            project: str = PROJECT) -> tuple[tuple[WorkloadSpec, str], ...]:
    """Every workload of a stack document, single form or fleet form, each with the field prefix it lives under.

    The fleet form (`accelfit:workloads`) is a non-empty list of specs with unique names; it cannot be combined
    with `accelfit:workload`. Every problem in every spec is reported at once, each under its own index."""
    WORKLOAD_KEY, WORKLOADS_KEY = workload_key(project), workloads_key(project)  # noqa: N806
    if not is_fleet_document(document, project):
        return (workload_from_document(document, source, project),)
    config = document["config"]
    field = f"config.{WORKLOADS_KEY}"
    if WORKLOAD_KEY in config:
        raise InputError([problem(source, f"config.{WORKLOAD_KEY}", f"a stack holds {WORKLOAD_KEY} (one workload) "
                                  f"or {WORKLOADS_KEY} (a fleet), not both",
                                  f"move the {WORKLOAD_KEY} spec into the {WORKLOADS_KEY} list, or remove the list")])
    raw = config[WORKLOADS_KEY]
    if not isinstance(raw, list):
        raise InputError([problem(source, field, "must be a list of workload specs",
                                  "write each workload as a `- name: ...` item (see `accelfit schema`)", raw)])
    if not raw:
        raise InputError([problem(source, field, "the fleet holds no workload",
                                  f"list at least one workload spec, or use {WORKLOAD_KEY} for a single workload")])
    found: list[tuple[WorkloadSpec, str]] = []
    problems: list[Problem] = []
    for index, item in enumerate(raw):
        prefix = f"{field}[{index}]"
        try:
            found.append((validate(WorkloadSpec, item, source, prefix), prefix))
        except InputError as error:
            problems += error.problems
    first_index: dict[str, int] = {}
    for spec, prefix in found:
        if spec.name in first_index:
            problems.append(problem(source, f"{prefix}.name", f"workload name {spec.name!r} is already used by "
                                    f"{field}[{first_index[spec.name]}]; names name the workloads' resources, locks "
                                    "and queues, so they must be unique", "give each workload its own name"))
        else:
            first_index[spec.name] = int(prefix.rsplit("[", 1)[1].rstrip("]"))
    if problems:
        raise InputError(problems)
    return tuple(found)


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
    """The validated inventory; parsed once per version of the file in a process. A preview reads it twice (the
    stack file, then the Pulumi program): at 10,000 servers each parse is about 0.6 s per 1,000 servers."""
    from accelfit.spec.inventory import Inventory

    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return validate(Inventory, read_yaml(path), str(path))  # read_yaml says what is wrong with the path
    return _inventory_version(str(path), stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _inventory_version(path: str, device: int, inode: int, modified_ns: int, size: int) -> Inventory:
    """Keyed on the file's identity, modification time and size: a rewritten file is read again. Inventory is a
    frozen model, so sharing one between readers is safe."""
    from accelfit.spec.inventory import Inventory

    return validate(Inventory, read_yaml(path), path)
