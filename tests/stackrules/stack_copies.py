"""Copies of the project with one shipped stack changed, and the strings its recorded preview carries: what the
stack-setting tests compare."""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DELETE = object()


def project(tmp_path: Path) -> Path:
    """The project file, every shipped stack (and inventory) and the policy config, in `tmp_path`."""
    if not (tmp_path / "Pulumi.yaml").exists():
        shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
        shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
        shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    return tmp_path


def shipped(stack: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))


def _set_path(document: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        document = document.setdefault(part, {})
    if value is DELETE:
        document.pop(last, None)
    else:
        document[last] = value


def write_stack(root: Path, base: str, name: str, config: Mapping[str, Any] | None = None,
                spec: Mapping[str, Any] | None = None) -> str:
    """Stack `name`: shipped stack `base` with `config` keys set (DELETE removes one) and `spec` fields set on its
    workload, or on each workload of a fleet ("placement.regions": [...]). Returns the stack's name."""
    document = copy.deepcopy(shipped(base))
    settings = document["config"]
    for key, value in (config or {}).items():
        if value is DELETE:
            settings.pop(key, None)
        else:
            settings[key] = value
    workloads = settings.get("accelfit:workloads") or [settings.get("accelfit:workload")]
    for workload in workloads:
        for path, value in (spec or {}).items():
            _set_path(workload, path, value)
    (project(root) / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(document, sort_keys=False),
                                                                   encoding="utf-8")
    return name


def strings(value: Any) -> Iterator[str]:
    """Every string inside a recorded value (JSON text inside a string is walked too: manifests, policies)."""
    if isinstance(value, str):
        yield value
        text = value.strip()
        if text[:1] in ("{", "[") and len(text) < 1_000_000:
            with contextlib.suppress(ValueError):
                yield from strings(json.loads(text))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)
