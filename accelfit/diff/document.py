"""An `accelfit preview --json` document read for diffing: checked once, where it enters, into frozen records.

The diff only relies on the keys the preview contract promises (design.md section 7). Everything else in the
document (the full plan, cost assumptions) is carried through untouched or ignored. A missing or mistyped key is
an `InputError` naming the file and the field path, so a truncated CI artifact or a hand-edited file fails with
exit 2 and a fix instead of a traceback.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, Problem, join_path, problem
from accelfit.jsonio import read_json

SUPPORTED_SCHEMA_VERSIONS = (1,)
STACK_LEVEL = "(stack)"
REGENERATE = "regenerate it with `accelfit preview --stack ENV --json` from the same accelfit version"


@dataclass(frozen=True)
class Resource:
    """One recorded resource. `key` is its identity across documents: the URN when present (as the engine
    matches resources), else type and name."""

    key: str
    type: str
    name: str
    parent: str | None
    custom: bool
    inputs: Mapping[str, Any]
    protect: bool
    monthly_usd: float
    workload: str | None = None  # a fleet's: the workload it belongs to (`<cluster>-shared` for shared items)
    ignore_changes: tuple[str, ...] = ()  # input paths the engine keeps from the state on an update


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str
    resource: str | None
    message: str

    @property
    def key(self) -> tuple[str, str]:
        """A violation is "the same" across documents when the same rule fails on the same resource; its message
        may differ (it quotes values such as the monthly total, which the change itself moves)."""
        return (self.policy, self.resource or "")


@dataclass(frozen=True)
class PreviewDocument:
    source: str
    stack: str
    environment: str
    option: str | None
    lock_state: str
    lock_message: str | None
    locked_option: str | None
    fresh_option: str | None
    max_monthly_usd: float | None
    monthly_usd: float
    full_scale_monthly_usd: float | None
    run_total_usd: float | None
    budget_lines: tuple[Mapping[str, Any], ...]
    resources: tuple[Resource, ...]
    policy_pack: str | None
    violations: tuple[Violation, ...]
    spec: Mapping[str, Any] | None = None  # the workload spec the plan came from (documents before it: None)
    new_stack: bool = False  # a stand-in for a stack that does not exist at the base revision
    removed_stack: bool = False  # a stand-in for a stack the change deletes (no stack file at the head revision)
    workload_costs: Mapping[str, Mapping[str, Any]] | None = None  # a fleet's cost.workloads (and shared items)


class _Reader:
    """Collects every problem in one document before raising, like the other loaders."""

    def __init__(self, source: str):
        self.source = source
        self.problems: list[Problem] = []

    def bad(self, path: str, message: str, fix: str, *value: object) -> None:
        self.problems.append(problem(self.source, path, message, fix, *value))

    def get(self, mapping: Mapping[str, Any], key: str, path: str, kinds: tuple[type, ...], *, required: bool = True,
            default: Any = None) -> Any:
        if key not in mapping or mapping[key] is None:
            if required:
                self.bad(join_path(path, key), "missing", REGENERATE)
            return default
        value = mapping[key]
        # bool is an int subclass; a boolean where a number belongs is a broken document, not a price of 1.
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(kind.__name__ for kind in kinds)
            self.bad(join_path(path, key), f"expected {names}", REGENERATE, value)
            return default
        if isinstance(value, float) and not math.isfinite(value):
            self.bad(join_path(path, key), "expected a finite number", REGENERATE, value)
            return default
        return value


def read_document(path: Path) -> PreviewDocument:
    """Load and check a preview document from a file."""
    return parse_document(read_json(path, REGENERATE), str(path))


def new_stack_document(stack: str) -> dict[str, Any]:
    """The base side for a stack that does not exist yet: nothing deployed, nothing spent, nothing failing."""
    return {"schema_version": 1, "stack": stack, "new_stack": True, "resources": [], "cost": {"monthly_usd": 0.0},
            "policies": {"violations": []}}


def removed_stack_document(stack: str) -> dict[str, Any]:
    """The head side for a stack the change deletes: nothing left, so every figure is zero (once it is destroyed)."""
    return {"schema_version": 1, "stack": stack, "removed_stack": True, "resources": [],
            "cost": {"monthly_usd": 0.0, "full_scale_monthly_usd": 0.0, "run_total_usd": 0.0},
            "policies": {"violations": []}}


def parse_document(data: Any, source: str) -> PreviewDocument:
    """Check an already-decoded document; `source` names it in error messages."""
    reader = _Reader(source)
    if not isinstance(data, Mapping):
        raise InputError([problem(source, "", "expected a JSON object (an `accelfit preview --json` document)",
                                  REGENERATE, type(data).__name__)])
    version = data.get("schema_version", 1)
    # `true == 1` in Python: a boolean version is a broken document, not version 1.
    if isinstance(version, bool) or not isinstance(version, int) or version not in SUPPORTED_SCHEMA_VERSIONS:
        reader.bad("schema_version", f"unsupported version; this accelfit reads {SUPPORTED_SCHEMA_VERSIONS}",
                   "preview base and head with the same accelfit version", version)
    stack = reader.get(data, "stack", "", (str,), default="?")
    environment = reader.get(data, "environment", "", (str,), required=False, default=stack)
    plan = reader.get(data, "plan", "", (Mapping,), required=False, default={})
    option = reader.get(plan, "option", "plan", (str,), required=False)
    lock = reader.get(data, "lock", "", (Mapping,), required=False, default={})
    budget = reader.get(data, "budget", "", (Mapping,), required=False, default={})
    cost = reader.get(data, "cost", "", (Mapping,), default={})
    policies = reader.get(data, "policies", "", (Mapping,), default={})
    raw_resources = reader.get(data, "resources", "", (list,), default=[])
    resources = tuple(filter(None, (_resource(reader, item, index) for index, item in enumerate(raw_resources))))
    duplicates = sorted(key for key, count in Counter(r.key for r in resources).items() if count > 1)
    if duplicates:
        reader.bad("resources", "two resources share an identity (urn, or type and name)", REGENERATE, duplicates)
    raw_violations = reader.get(policies, "violations", "policies", (list,), default=[])
    violations = tuple(filter(None, (_violation(reader, item, index) for index, item in enumerate(raw_violations))))
    document = PreviewDocument(
        source=source, stack=stack, environment=environment, option=option,
        lock_state=reader.get(lock, "state", "lock", (str,), required=False, default="none"),
        lock_message=reader.get(lock, "message", "lock", (str,), required=False),
        locked_option=reader.get(lock, "locked_option", "lock", (str,), required=False),
        fresh_option=reader.get(lock, "fresh_option", "lock", (str,), required=False),
        max_monthly_usd=_number(reader.get(budget, "max_monthly_usd", "budget", (int, float), required=False)),
        monthly_usd=float(reader.get(cost, "monthly_usd", "cost", (int, float), default=0.0)),
        full_scale_monthly_usd=_number(reader.get(cost, "full_scale_monthly_usd", "cost", (int, float),
                                                  required=False)),
        run_total_usd=_number(reader.get(cost, "run_total_usd", "cost", (int, float), required=False)),
        budget_lines=tuple(line for line in reader.get(budget, "lines", "budget", (list,), required=False,
                                                       default=[]) if isinstance(line, Mapping)),
        resources=resources,
        policy_pack=reader.get(policies, "pack", "policies", (str,), required=False),
        violations=violations,
        spec=reader.get(data, "spec", "", (Mapping,), required=False),
        new_stack=reader.get(data, "new_stack", "", (bool,), required=False, default=False),
        removed_stack=reader.get(data, "removed_stack", "", (bool,), required=False, default=False),
        workload_costs=_workload_costs(reader, cost, plan))
    if reader.problems:
        raise InputError(reader.problems)
    return document


def _workload_costs(reader: _Reader, cost: Mapping[str, Any],
                    plan: Mapping[str, Any]) -> dict[str, dict[str, Any]] | None:
    """A fleet document's three figures and chosen option per workload, and its shared clusters' figures (under
    `<cluster>-shared`)."""
    workloads = reader.get(cost, "workloads", "cost", (Mapping,), required=False)
    if workloads is None:
        return None
    options = {str(member.get("name")): (member.get("plan") or {}).get("option")
               for member in (plan.get("workloads") or []) if isinstance(member, Mapping)}
    out: dict[str, dict[str, Any]] = {}
    for name, figures in workloads.items():
        if isinstance(figures, Mapping):
            out[str(name)] = {key: _number(reader.get(figures, key, f"cost.workloads.{name}", (int, float),
                                                      required=key == "monthly_usd"))
                              for key in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd",
                                          "max_monthly_usd")}
            out[str(name)]["option"] = options.get(str(name))
    shared = reader.get(cost, "shared", "cost", (Mapping,), required=False, default={})
    for name, figures in shared.items():
        if isinstance(figures, Mapping):
            out[str(figures.get("workload") or f"{name}-shared")] = {
                key: _number(reader.get(figures, key, f"cost.shared.{name}", (int, float), required=False))
                for key in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd")}
    return out


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _resource(reader: _Reader, item: Any, index: int) -> Resource | None:
    path = join_path("resources", index)
    if not isinstance(item, Mapping):
        reader.bad(path, "expected an object", REGENERATE, item)
        return None
    type_ = reader.get(item, "type", path, (str,), default="")
    name = reader.get(item, "name", path, (str,), default="")
    urn = reader.get(item, "urn", path, (str,), required=False)
    return Resource(
        key=urn or f"{type_}::{name}", type=type_, name=name,
        parent=reader.get(item, "parent", path, (str,), required=False),
        # Components (custom=false) only group; documents without the flag predate it and list custom resources.
        custom=reader.get(item, "custom", path, (bool,), required=False, default=True),
        inputs=reader.get(item, "inputs", path, (Mapping,), default={}),
        protect=reader.get(item, "protect", path, (bool,), required=False, default=False),
        monthly_usd=float(reader.get(item, "monthly_usd", path, (int, float), default=0.0)),
        workload=reader.get(item, "workload", path, (str,), required=False),
        ignore_changes=tuple(str(entry) for entry in reader.get(item, "ignore_changes", path, (list,),
                                                                required=False, default=[]) or ()))


def _violation(reader: _Reader, item: Any, index: int) -> Violation | None:
    path = join_path("policies", "violations", index)
    if not isinstance(item, Mapping):
        reader.bad(path, "expected an object", REGENERATE, item)
        return None
    resource = reader.get(item, "resource", path, (str,), required=False)
    return Violation(policy=reader.get(item, "policy", path, (str,), default=""),
                     level=reader.get(item, "level", path, (str,), required=False, default="advisory"),
                     # Stack-level rules name no resource; the preview writes that as "(stack)".
                     resource=None if resource in (None, STACK_LEVEL) else resource,
                     message=reader.get(item, "message", path, (str,), default=""))
