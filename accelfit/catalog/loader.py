"""Load the versioned catalog data files into a validated, indexed `Catalog`.

Every `*.yaml` file in the data directory starts with `schema_version` and holds one or more sections
(`accelerators`, `instance_types`, `tpu_slices`, `prices`, `service_prices`, `efficiency`,
`zone_availability`), each a list of rows.
Rows are validated one by one so that every bad row is reported, with its file and field path
(`prices[12].hourly_usd`), in one `InputError`; cross-file rules (a price's SKU exists, ...) live in
`integrity.py` and are reported the same way.

The default data directory is loaded once per process (the CLI must start fast); pass `data_dir` to load
another copy, e.g. in tests, which is never cached.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel

from accelfit.catalog.integrity import Located, check_integrity
from accelfit.catalog.models import (
    Accelerator,
    Catalog,
    EfficiencyFigure,
    InstanceType,
    Price,
    ServicePrice,
    TpuSlice,
    ZoneAvailability,
)
from accelfit.errors import InputError, Problem, did_you_mean, join_path, problem
from accelfit.validation import validate
from accelfit.yamlio import read_yaml

DATA_DIR = Path(__file__).parent / "data"

# Bump when a data file's layout changes incompatibly; keep reading the old version while it is still shipped.
SCHEMA_VERSION = 1
SUPPORTED_SCHEMA_VERSIONS = frozenset({1})

SECTIONS: dict[str, type[BaseModel]] = {
    "accelerators": Accelerator,
    "instance_types": InstanceType,
    "tpu_slices": TpuSlice,
    "prices": Price,
    "service_prices": ServicePrice,
    "efficiency": EfficiencyFigure,
    "zone_availability": ZoneAvailability,
}


# The fields other rows use to refer to a row of each section (a TPU slice is priced by its generation).
_IDENTITY: dict[str, tuple[str, ...]] = {
    "accelerators": ("name",),
    "instance_types": ("name",),
    "tpu_slices": ("name", "accelerator"),
    "prices": (),
    "service_prices": (),
    "efficiency": ("accelerator",),
    "zone_availability": (),
}


def load_catalog(data_dir: Path | str | None = None) -> Catalog:
    """The catalog from `data_dir` (default: the packaged data, cached); raises InputError listing every problem."""
    if data_dir is None:
        return _load_default()
    return _load(Path(data_dir))


@functools.cache
def _load_default() -> Catalog:
    return _load(DATA_DIR)


def _load(data_dir: Path) -> Catalog:
    files = sorted(data_dir.glob("*.yaml"))
    if not files:
        raise InputError([problem(str(data_dir), "", "no catalog data files (*.yaml) found",
                                  "point at the directory that holds accelerators.yaml and the other catalog files")])
    problems: list[Problem] = []
    rows: dict[str, list[Located]] = {section: [] for section in SECTIONS}
    rejected: dict[str, set[str]] = {section: set() for section in SECTIONS}
    for path in files:
        problems.extend(_read_file(path, rows, rejected))
    problems.extend(check_integrity(rows, rejected))
    if problems:
        raise InputError(problems)
    return Catalog(schema_version=SCHEMA_VERSION,
                   **{section: tuple(item.row for item in items) for section, items in rows.items()})


def _read_file(path: Path, rows: dict[str, list[Located]], rejected: dict[str, set[str]]) -> list[Problem]:
    """Validate one data file's rows into `rows`; return its problems (never raise for bad content).

    The names a rejected row claimed go into `rejected`, so the integrity rules do not report every row that
    refers to it as a second, misleading problem.
    """
    file = str(path)
    try:
        document = read_yaml(path)
    except InputError as error:
        return list(error.problems)
    if not isinstance(document, dict):
        return [problem(file, "", "expected a mapping with schema_version and catalog sections",
                        "start the file with `schema_version: 1` and a section such as `prices:`")]

    version = document.get("schema_version")
    if version is None:
        return [problem(file, "schema_version", "required field is missing",
                        f"add `schema_version: {SCHEMA_VERSION}` at the top of the file")]
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        supported = ", ".join(str(v) for v in sorted(SUPPORTED_SCHEMA_VERSIONS))
        return [problem(file, "schema_version", "unsupported catalog schema version",
                        f"this accelfit reads schema_version {supported}; upgrade accelfit or convert the file",
                        version)]

    problems: list[Problem] = []
    for section, items in document.items():
        if section == "schema_version":
            continue
        model = SECTIONS.get(section)
        if model is None:
            close = did_you_mean(str(section), SECTIONS)
            fix = f"did you mean {close!r}?" if close else f"use one of: {', '.join(SECTIONS)}"
            problems.append(problem(file, str(section), f"unknown section {section!r}", fix))
            continue
        if not isinstance(items, list):
            problems.append(problem(file, section, "expected a list of rows",
                                    f"write each {model.__name__} as a `- {{...}}` item under {section}:"))
            continue
        for index, item in enumerate(items):
            where = join_path(section, index)
            try:
                rows[section].append(Located(validate(model, item, file, where), file, where))
            except InputError as error:
                problems.extend(error.problems)
                if isinstance(item, dict):
                    rejected[section].update(str(item[key]) for key in _IDENTITY[section] if key in item)
    return problems
