"""The neutral view of a resource every rule reads: type token, name, camelCase props, protect, parent.

Rules never see `ResourceValidationArgs` directly, so they can be called on recorded resources, on a
`pulumi preview --json` document or on test dicts alike. Props stay whatever Mapping the caller gave: the engine
hands policies an unknown-checking proxy (a Mapping, not a dict), so nothing here assumes `dict`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy.proxy import UnknownValueError


@dataclass(frozen=True)
class ResourceView:
    type: str
    name: str
    props: Mapping[str, Any]
    urn: str = ""
    protect: bool = False
    parent: str | None = field(default=None, metadata={"doc": "URN of the parent resource, if any."})

    @property
    def label(self) -> str:
        """How messages name the resource: its short type and name, e.g. `NodePool 'llm-train-gpu-pool'`."""
        return f"{self.type.rsplit(':', 1)[-1]} '{self.name}'"


def get(props: Any, path: str, default: Any = None) -> Any:
    """Value at a dotted path (`nodeConfig.spot`); `default` when any step is missing or not a Mapping.

    Unknown preview values still raise UnknownValueError from the proxy, which the analyzer reports as an
    advisory "can't run policy during preview" (reference/pulumi.md 6.2) rather than a wrong verdict."""
    current = props
    for key in path.split("."):
        if not isinstance(current, Mapping) or key not in current:
            return default
        current = current[key]
    return default if current is None else current


def items(value: Any) -> list[Any]:
    """A list input as a Python list (the proxy's list is a Sequence, not a list); [] for missing."""
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return list(value)
    return []


def truthy(value: Any) -> bool:
    """Booleans from the wire: True, or the string "true" (some AWS inputs such as ebs.encrypted are strings)."""
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value is True


def number(value: Any) -> float | None:
    """Numbers arrive as floats (reference P5), sometimes as numeric strings; None when absent or not numeric."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def fmt(value: float | int | None) -> str:
    """Whole numbers without the '.0' the wire adds (8.0 -> '8'); None -> 'unset'."""
    if value is None:
        return "unset"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:,.2f}"


def plain(value: Any) -> Any:
    """A plain, JSON-able copy of props, dropping values unknown during preview.

    For consumers that need the whole document (pricing): one unknown id somewhere must not stop the budget
    check, so unknown leaves are left out instead of raising."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in value:
            try:
                out[str(key)] = plain(value[key])
            except UnknownValueError:
                continue
        return out
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        result = []
        for index in range(len(value)):
            try:
                result.append(plain(value[index]))
            except UnknownValueError:
                continue
        return result
    return value
