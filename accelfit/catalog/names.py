"""Canonical accelerator names and their aliases, normalised once where input enters the system.

The names and aliases live in `data/accelerators.yaml` beside the chip specs, so adding an accelerator is a
data change. This module reads only that file (not the whole catalog), so validating a spec stays cheap.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from accelfit.clouds import UnknownCloud, cloud_named
from accelfit.errors import did_you_mean
from accelfit.yamlio import read_package_yaml

DATA_DIR = Path(__file__).parent / "data"

_FOLD = re.compile(r"[\s_]+")


def fold(name: str) -> str:
    """Case- and separator-insensitive key: 'NVIDIA H100_80GB' -> 'nvidia-h100-80gb'."""
    return _FOLD.sub("-", name.strip().lower())


_fold = fold


class UnknownAcceleratorError(ValueError):
    def __init__(self, name: str, suggestion: str | None, known: tuple[str, ...]):
        self.name = name
        self.suggestion = suggestion
        self.known = known
        hint = f"did you mean {suggestion!r}? " if suggestion else ""
        super().__init__(f"unknown accelerator {name!r}; {hint}known: {', '.join(known)}")


@functools.cache
def _alias_table(path: Path = DATA_DIR / "accelerators.yaml") -> tuple[dict[str, str], dict[str, str], dict[str, int]]:
    """(folded alias -> canonical, canonical -> kind, canonical -> most per server) from the accelerator file."""
    document = read_package_yaml(path)
    aliases: dict[str, str] = {}
    kinds: dict[str, str] = {}
    per_server: dict[str, int] = {}
    for row in document.get("accelerators", []):
        canonical = row["name"]
        kinds[canonical] = row["kind"]
        if "max_per_server" in row:
            per_server[canonical] = int(row["max_per_server"])
        for alias in (canonical, *row.get("aliases", ())):
            aliases[_fold(str(alias))] = canonical
    return aliases, kinds, per_server


def canonical_names() -> tuple[str, ...]:
    return tuple(_alias_table()[1])


def accelerator_kind(canonical: str) -> str:
    """'gpu' or 'tpu' for a canonical name."""
    return _alias_table()[1][canonical]


def max_per_server(canonical: str) -> int | None:
    """Most chips of this model one server holds (8 for HGX H100), or None where the data does not say."""
    return _alias_table()[2].get(canonical)


def canonical_accelerator(name: str) -> str:
    """Map any accepted spelling ('H100', 'nvidia-h100-80gb', 'v5litepod') to its canonical name."""
    aliases, kinds, _ = _alias_table()
    found = aliases.get(_fold(name))
    if found is None:
        close_alias = did_you_mean(_fold(name), aliases)
        raise UnknownAcceleratorError(name, aliases[close_alias] if close_alias else None, tuple(kinds))
    return found


def shipped_instance_types(cloud: str) -> tuple[str, ...]:
    """GPU instance / machine type names of one cloud in its catalog files (the shipped data folder's, or the folder
    a registered cloud keeps its own in: its record's catalog_dir and catalog_files), sorted: what a spec's
    `placement.reservations` may name (the catalog prices and places exactly these)."""
    try:
        record = cloud_named(cloud)
    except UnknownCloud:
        return ()
    return _instance_types_in(tuple((record.catalog_dir or DATA_DIR) / name for name in record.catalog_files))


@functools.cache
def _instance_types_in(paths: tuple[Path, ...]) -> tuple[str, ...]:
    return tuple(sorted(str(row["name"]) for path in paths if path.exists()
                        for row in (read_package_yaml(path) or {}).get("instance_types", [])))
