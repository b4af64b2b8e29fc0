"""Helm's merge of a release's values over the chart's defaults (helm/helm pkg/chartutil/coalesce.go,
`coalesceTablesFullKey`): maps merge key by key, recursively; a list or a scalar given by the release replaces the
default whole; a key the release sets to null is deleted from the result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def helm_merge(defaults: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = dict(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)  # null deletes the default
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = helm_merge(merged[key], value)
        elif isinstance(value, Mapping):
            # A map where the default was a scalar or absent: Helm takes the release's map (dropping its nulls).
            merged[key] = helm_merge({}, value)
        else:
            merged[key] = value
    return merged


def at_path(values: Mapping[str, Any], dotted: str) -> Any:
    current: Any = values
    for part in dotted.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
    return current
