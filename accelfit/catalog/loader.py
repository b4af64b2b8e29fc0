"""Load the versioned catalog data files into a validated, indexed `Catalog`.

Every `*.yaml` file in the data directory, and each catalog file of a registered cloud whose record names a folder
of its own (`Cloud.catalog_dir`: a cloud not shipped with accelfit keeps its rows beside its module), starts with
`schema_version` and holds one or more sections (`accelerators`, `instance_types`, `tpu_slices`, `prices`,
`service_prices`, `efficiency`, `availability`, `not_sold`), each a list of rows.
Rows are validated one by one so that every bad row is reported, with its file and field path
(`prices[12].hourly_usd`), in one `InputError`; cross-file rules (a price's SKU exists, ...) live in
`integrity.py` and are reported the same way.

`load_catalog()` with no argument loads the active catalog: the shipped snapshot, overlaid with the catalog
imported by `accelfit catalog update` when one is installed (see `store.py`); it is loaded once per process and
catalog directory, and across processes from a compiled copy keyed on the files' hash (`compiled.py`), because
the CLI must start fast. Pass `data_dir` to load another copy, e.g. in tests, never cached.

Availability is its own section (`availability` rows): an instance type's `regions` are filled from it here, so a
price row in a region the availability data does not list is an integrity problem, never an offer.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from accelfit.catalog.integrity import Located, check_integrity
from accelfit.catalog import compiled, store
from accelfit.clouds import all_clouds
from accelfit.catalog.models import (
    Accelerator,
    Availability,
    Catalog,
    CatalogOrigin,
    EfficiencyFigure,
    InstanceType,
    NotSold,
    Price,
    ServicePrice,
    TpuSlice,
)
from accelfit.errors import InputError, Problem, did_you_mean, join_path, problem, remember_lines, remembered_lines
from accelfit.inputfile import read_text
from accelfit.validation import validate
from accelfit.yamlio import parse_yaml

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
    "availability": Availability,
    "not_sold": NotSold,
}

# Sections an imported catalog may hold, and the key under which its row replaces a shipped row.
OVERLAY_KEYS: dict[str, Callable[[Any], tuple[object, ...]]] = {
    "prices": lambda row: (row.cloud, row.sku, row.region, row.pricing),
    "availability": lambda row: (row.cloud, row.sku, row.region),
}


# The fields other rows use to refer to a row of each section (a TPU slice is priced by its generation).
_IDENTITY: dict[str, tuple[str, ...]] = {
    "accelerators": ("name",),
    "instance_types": ("name",),
    "tpu_slices": ("name", "accelerator"),
    "prices": (),
    "service_prices": (),
    "efficiency": ("accelerator",),
    "availability": (),
    "not_sold": (),
}


def load_catalog(data_dir: Path | str | None = None, imported: Path | str | None = None) -> Catalog:
    """The catalog from `data_dir` (default: the active catalog, cached) and the registered clouds' own folders,
    overlaid with the imported catalog directory `imported` when given; raises InputError listing every problem."""
    if data_dir is None and imported is None:
        return _load_active(str(store.catalog_dir()), _own_folder_clouds())
    return _load(Path(data_dir) if data_dir is not None else DATA_DIR,
                 Path(imported) if imported is not None else None)


def cloud_files() -> list[Path]:
    """The catalog files of the registered clouds that keep them in a folder of their own, in registry order (the
    shipped clouds' files are in the data folder, read with it)."""
    return [cloud.catalog_dir / name for cloud in all_clouds() if cloud.catalog_dir is not None
            for name in cloud.catalog_files]


def _data_files(data_dir: Path) -> list[Path]:
    return sorted(data_dir.glob("*.yaml")) + cloud_files()


def _own_folder_clouds() -> str:
    """What the active catalog depends on beyond the files: the records of the registered clouds with a folder of
    their own, whose fields the integrity checks follow (the shipped records are in the compiled key's code). Each
    field as its repr, a function as its qualified name (a repr would hold its address); "" with none registered."""
    def shown(value: object) -> str:
        return f"{value.__module__}.{value.__qualname__}" if callable(value) else repr(value)  # type: ignore[attr-defined]

    return "\n".join("|".join(shown(getattr(cloud, item.name)) for item in dataclasses.fields(cloud))
                     for cloud in all_clouds() if cloud.catalog_dir is not None)


@functools.cache
def _load_active(base: str, records: str) -> Catalog:
    """Once per process and set of registered clouds (`records`); across processes from the compiled cache while
    the files and those records are unchanged (`compiled.py`)."""
    directory = Path(base)

    def files() -> list[Path]:
        imported = store.imported_dir(directory)
        return _data_files(DATA_DIR) + (store.imported_files(imported) if imported is not None else [])

    return compiled.load_cached(directory / compiled.CACHE_FILE, files,
                                lambda: _load(DATA_DIR, store.imported_dir(directory)), records)


def forget_active() -> None:
    """Drop the cached active catalog (after `accelfit catalog update` installed a new one)."""
    _load_active.cache_clear()


def compile_active(base: Path) -> Catalog:
    """Load the catalog installed under `base` afresh and write its compiled cache, so the first command after an
    import starts as fast as every later one."""
    forget_active()
    return _load_active(str(base), _own_folder_clouds())


def _load(data_dir: Path, imported: Path | None = None) -> Catalog:
    if not any(data_dir.glob("*.yaml")):
        raise InputError([problem(str(data_dir), "", "no catalog data files (*.yaml) found",
                                  "point at the directory that holds accelerators.yaml and the other catalog files")])
    problems: list[Problem] = []
    rows: dict[str, list[Located]] = {section: [] for section in SECTIONS}
    rejected: dict[str, set[str]] = {section: set() for section in SECTIONS}
    for path in _data_files(data_dir):
        problems.extend(_read_file(path, rows, rejected))
    origin = None
    if imported is not None:
        origin, overlay_problems = _overlay(imported, rows, rejected)
        problems.extend(overlay_problems)
    problems.extend(_fill_regions(rows))
    problems.extend(check_integrity(rows, rejected))
    if problems:
        raise InputError(problems)
    sections = {section: tuple(item.row for item in items) for section, items in rows.items()}
    if origin is None:
        newest = max((row.as_of for row in sections["prices"] if isinstance(row, Price)), default=None)
        origin = CatalogOrigin(kind="shipped", as_of=newest, source="accelfit shipped snapshot") if newest else None
    return Catalog(schema_version=SCHEMA_VERSION, origin=origin, **sections)


def _overlay(imported: Path, rows: dict[str, list[Located]],
             rejected: dict[str, set[str]]) -> tuple[CatalogOrigin | None, list[Problem]]:
    """Replace shipped price and availability rows by the imported rows with the same key; add the others."""
    try:
        origin = store.read_origin(imported)
    except InputError as error:
        return None, list(error.problems)
    extra: dict[str, list[Located]] = {section: [] for section in SECTIONS}
    problems: list[Problem] = []
    for path in sorted(imported.glob(store.IMPORTED_GLOB)):
        problems.extend(_read_file(path, extra, rejected))
    for section, items in extra.items():
        if section not in OVERLAY_KEYS:
            problems.extend(item.at("", f"an imported catalog holds only {' and '.join(OVERLAY_KEYS)} rows",
                                    "re-run `accelfit catalog update`") for item in items)
            continue
        key = OVERLAY_KEYS[section]
        replaced = {key(item.row) for item in items}
        rows[section] = [item for item in rows[section] if key(item.row) not in replaced] + items
    return origin, problems


def _fill_regions(rows: dict[str, list[Located]]) -> list[Problem]:
    """Set each instance type's `regions` from the availability rows (in their order); a region written in an
    instance-type row is a problem, because availability lives in one place."""
    regions: dict[tuple[object, str], list[str]] = {}
    for item in rows["availability"]:
        offered = item.row
        assert isinstance(offered, Availability)  # the section's model (SECTIONS)
        regions.setdefault((offered.cloud, offered.sku), []).append(offered.region)
    problems: list[Problem] = []
    filled: list[Located] = []
    for item in rows["instance_types"]:
        row = item.row
        assert isinstance(row, InstanceType)
        if row.regions:
            problems.append(item.at("regions", "regions come from the availability rows",
                                    "remove `regions` here and list each region in gpu_availability.yaml"))
        found = tuple(dict.fromkeys(regions.get((row.cloud, row.name), ())))
        filled.append(Located(row.model_copy(update={"regions": found}), item.file, item.path))
    rows["instance_types"] = filled
    return problems


# The validated rows of clean data files this process has read, by the SHA-256 of the file's text: a command that
# loads the catalog more than once (`accelfit catalog update` reads the shipped files to map the import, to check
# the staged import and to compile the installed one) parses and validates each unchanged file once, since parsing
# is most of a load. A changed file has another digest; a file with any problem is never kept; rows are frozen
# models, so sharing them is safe. Bounded: small files (the shipped ones are kilobytes), the most recent few.
_CLEAN_FILES: dict[str, tuple[dict[str, list[tuple[BaseModel, str]]], Mapping[str, int]]] = {}
_CLEAN_FILES_KEPT = 128
_CLEAN_FILE_MAX_CHARS = 1 << 20


def _read_file(path: Path, rows: dict[str, list[Located]], rejected: dict[str, set[str]]) -> list[Problem]:
    """Validate one data file's rows into `rows`; return its problems (never raise for bad content).

    The names a rejected row claimed go into `rejected`, so the integrity rules do not report every row that
    refers to it as a second, misleading problem.
    """
    file = str(path)
    try:
        text = read_text(path)
    except InputError as error:
        return list(error.problems)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest() if len(text) <= _CLEAN_FILE_MAX_CHARS else None
    known = _CLEAN_FILES.get(digest) if digest is not None else None
    if known is not None:
        kept, lines = known
        remember_lines(file, lines)  # a problem found later (integrity) still names this file's lines
        for section, pairs in kept.items():
            rows[section].extend(Located(row, file, where) for row, where in pairs)
        return []
    found: dict[str, list[Located]] = {section: [] for section in SECTIONS}
    problems = _validate_file(file, text, found, rejected)
    for section, items in found.items():
        rows[section].extend(items)
    if digest is not None and not problems:
        if len(_CLEAN_FILES) >= _CLEAN_FILES_KEPT:
            del _CLEAN_FILES[next(iter(_CLEAN_FILES))]
        _CLEAN_FILES[digest] = ({section: [(item.row, item.path) for item in items]
                                 for section, items in found.items() if items}, remembered_lines(file))
    return problems


def _validate_file(file: str, text: str, rows: dict[str, list[Located]], rejected: dict[str, set[str]]
                   ) -> list[Problem]:
    try:
        document = parse_yaml(text, file)
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
