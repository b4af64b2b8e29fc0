"""Where an imported catalog lives and how it is swapped in: `$ACCELFIT_CATALOG_DIR/imported/`.

Layout of the imported catalog (written by `accelfit catalog update`, read by `loader.load_catalog`):
    imported/manifest.yaml        kind, as_of (import date), source (directory or URL), upstream files + sha256
    imported/imported_aws.yaml    prices + availability rows, same schema as the shipped data files
    imported/imported_gcp.yaml
    compiled-catalog.pickle       the active catalog (shipped + imported) compiled for fast loading (`compiled.py`)

The imported rows overlay the shipped snapshot (same key, imported row wins); everything else (chip specs,
machine shapes, TPU slices, service prices, efficiency) comes from the shipped data.

A new import is written to a temporary sibling directory, loaded back through the same integrity checks as the
shipped data, and only then renamed into place, so a failed or interrupted import never leaves a half-written
catalog behind: the previous one stays in use.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from pathlib import Path

from accelfit.catalog.models import CatalogOrigin
from accelfit.paths import user_data_path

ENV_VAR = "ACCELFIT_CATALOG_DIR"
IMPORTED = "imported"
MANIFEST = "manifest.yaml"
IMPORTED_GLOB = "imported_*.yaml"


def catalog_dir() -> Path:
    """`$ACCELFIT_CATALOG_DIR`, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/catalog`."""
    return user_data_path(ENV_VAR, "catalog")


def imported_dir(base: Path | None = None) -> Path | None:
    """The imported catalog directory when one is installed (it has a manifest), else None."""
    target = (base or catalog_dir()) / IMPORTED
    return target if (target / MANIFEST).is_file() else None


def imported_files(directory: Path) -> list[Path]:
    """The files of an imported catalog that the loader reads: the manifest, then the row files in name order."""
    return [directory / MANIFEST, *sorted(directory.glob(IMPORTED_GLOB))]


def read_origin(directory: Path) -> CatalogOrigin:
    """The origin recorded in an imported catalog's manifest (loader validates the rest)."""
    from accelfit.validation import validate
    from accelfit.yamlio import read_yaml

    document = read_yaml(directory / MANIFEST)
    fields = {key: document.get(key) for key in ("as_of", "source")} if isinstance(document, dict) else {}
    return validate(CatalogOrigin, {"kind": "imported", **fields}, str(directory / MANIFEST), "")


def staging_dir(base: Path) -> Path:
    """A fresh temporary directory next to the installed catalog (same filesystem, so the rename is atomic)."""
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".import-", dir=base))


def install(staged: Path, base: Path) -> Path:
    """Swap a fully written and checked catalog into place; the previous one is removed only afterwards."""
    target = base / IMPORTED
    previous = None
    if target.exists():
        previous = base / f".previous-{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%S%f}"
        target.rename(previous)
    try:
        staged.rename(target)
    except OSError:
        if previous is not None:
            previous.rename(target)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)
    return target


def discard(staged: Path) -> None:
    shutil.rmtree(staged, ignore_errors=True)
