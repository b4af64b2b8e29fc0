"""Where an imported catalog lives and how it is swapped in: `$ACCELFIT_CATALOG_DIR/imported/`.

Layout of the imported catalog (written by `accelfit catalog update`, read by `loader.load_catalog`):
    imported -> imports/catalog-<time>-<random>   a symbolic link: the one pointer to the installed import
    imports/catalog-.../manifest.yaml             kind, as_of (import date), source (directory or URL), upstream files
    imports/catalog-.../imported_aws.yaml         prices + availability rows, same schema as the shipped data files
    imports/catalog-.../imported_gcp.yaml
    compiled-catalog.json                         the active catalog compiled for fast loading (`compiled.py`)

The imported rows overlay the shipped snapshot (same key, imported row wins); everything else (chip specs,
machine shapes, TPU slices, service prices, efficiency) comes from the shipped data.

A new import is written to a temporary directory under `imports/`, loaded back through the same integrity checks
as the shipped data, and only then made current by one atomic step: a new symbolic link renamed over `imported`.
A failed or killed import therefore leaves either the previous catalog or the new one in use, never none (an
earlier install of two renames could leave no `imported/` and plans silently reverted to the shipped prices).
A real `imported/` directory from an older accelfit is still read. The first new install upgrades it without a
moment where no import is in use: it first points `imported.next` at the new import (read whenever `imported` is
absent), then moves the old directory aside, then swaps the `imported` pointer in and removes `imported.next`. A
kill at any step leaves the old import, or the new one, in use; the next install finishes the job.

Every failure to use the folder (it is a file, /dev/null, read-only, another user's, a path too long) is an
`InputError` naming the folder and the fix, never a traceback.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import secrets
import shutil
import stat
import tempfile
import time
from pathlib import Path

from accelfit.catalog.models import CatalogOrigin
from accelfit.errors import InputError, problem
from accelfit.paths import user_data_path

ENV_VAR = "ACCELFIT_CATALOG_DIR"
IMPORTED = "imported"
# Read when `imported` is absent: the new import's pointer while an older layout's real `imported/` is moved aside.
UPGRADING = "imported.next"
IMPORTS = "imports"  # the installed import and, briefly, the one being written
MANIFEST = "manifest.yaml"
IMPORTED_GLOB = "imported_*.yaml"
_INSTALLED_PREFIX = "catalog-"
_STAGING_PREFIX = ".import-"
# An import directory that is not current and has not changed for this long is left over (a replaced import, or
# the staging of a killed one): the next install removes it. Younger ones may belong to an import running now.
_ABANDONED_AFTER_S = 600


def catalog_dir() -> Path:
    """`$ACCELFIT_CATALOG_DIR`, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/catalog`."""
    return user_data_path(ENV_VAR, "catalog")


def folder_error(base: Path, error: OSError | str, action: str) -> InputError:
    """The catalog folder cannot be used: name it, say why, and how to fix it."""
    why = error if isinstance(error, str) else (error.strerror or error.__class__.__name__)
    return InputError([problem(str(base), ENV_VAR, f"cannot {action} the catalog folder ({why})",
                               f"point {ENV_VAR} at a folder of your own that you can write (or remove what is in "
                               "the way); the shipped catalog is used when no import is installed")])


def imported_dir(base: Path | None = None) -> Path | None:
    """The imported catalog directory when one is installed (it has a manifest), else None.

    Nothing there (no folder, no import, the folder path is a file) is None; a folder that exists but cannot be
    read (another user's, a manifest that is not a regular file) is an InputError, not a silent revert to the
    shipped prices."""
    base = base or catalog_dir()
    target = base / IMPORTED
    if not os.path.lexists(target) and os.path.lexists(base / UPGRADING):
        target = base / UPGRADING  # an upgrade from the older layout was stopped between its steps
    try:
        info = os.stat(target / MANIFEST)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise folder_error(base, error, "read") from None
    except ValueError as error:  # a NUL byte in the path
        raise folder_error(base, str(error), "read") from None
    if not stat.S_ISREG(info.st_mode):
        raise folder_error(base, f"{IMPORTED}/{MANIFEST} is not a regular file", "read")
    return target


def imported_files(directory: Path) -> list[Path]:
    """The files of an imported catalog that the loader reads: the manifest, then the row files in name order."""
    try:
        rows = sorted(directory.glob(IMPORTED_GLOB))
    except OSError as error:
        raise folder_error(directory, error, "read") from None
    return [directory / MANIFEST, *rows]


def read_origin(directory: Path) -> CatalogOrigin:
    """The origin recorded in an imported catalog's manifest (loader validates the rest)."""
    from accelfit.validation import validate
    from accelfit.yamlio import read_yaml

    document = read_yaml(directory / MANIFEST)
    fields = {key: document.get(key) for key in ("as_of", "source")} if isinstance(document, dict) else {}
    return validate(CatalogOrigin, {"kind": "imported", **fields}, str(directory / MANIFEST), "")


def staging_dir(base: Path) -> Path:
    """A fresh temporary directory under `base/imports` (same filesystem as the pointer, so the swap is atomic)."""
    try:
        imports = base / IMPORTS
        imports.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=imports))
    except (OSError, ValueError) as error:
        raise folder_error(base, error if isinstance(error, OSError) else str(error), "write to") from None


def install(staged: Path, base: Path) -> Path:
    """Make a fully written and checked catalog the installed one with one atomic rename of the pointer; the
    previous import is removed only afterwards."""
    target = base / IMPORTED
    try:
        final = staged.with_name(f"{_INSTALLED_PREFIX}{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S%f}-"
                                 f"{secrets.token_hex(4)}")
        staged.rename(final)
        _fsync_directory(final.parent)
        if target.is_dir() and not target.is_symlink():
            _move_older_layout_aside(base, final.name)
        _point(base, IMPORTED, final.name)
        with contextlib.suppress(FileNotFoundError):  # `imported` is in place: the upgrade's pointer is not needed
            os.unlink(base / UPGRADING)
        _fsync_directory(base)
    except OSError as error:
        raise folder_error(base, error, "write to") from None
    _prune(base, keep=final.name)
    return target


def _move_older_layout_aside(base: Path, current: str) -> None:
    """An older accelfit's real `imported/` directory cannot be replaced by a pointer in one rename: the new import
    is made readable as `imported.next` first, so that while the directory is moved aside some import is in use."""
    _point(base, UPGRADING, current)
    with contextlib.suppress(FileNotFoundError):  # a concurrent install moved it already
        os.rename(base / IMPORTED, base / IMPORTS / f"{_INSTALLED_PREFIX}legacy-{secrets.token_hex(4)}")


def _point(base: Path, name: str, current: str) -> None:
    """`base/name` becomes a symbolic link to imports/<current>, in one atomic rename of a new link over it."""
    pointer = base / f".{IMPORTED}.{secrets.token_hex(8)}.tmp"
    os.symlink(Path(IMPORTS) / current, pointer)
    try:
        os.replace(pointer, base / name)
    except BaseException:
        with contextlib.suppress(OSError):
            pointer.unlink()
        raise


def discard(staged: Path) -> None:
    shutil.rmtree(staged, ignore_errors=True)


def _prune(base: Path, keep: str) -> None:
    """Remove installed imports that are no longer current, and staging left by killed imports (best effort)."""
    now = time.time()
    try:
        current = os.readlink(base / IMPORTED).rsplit("/", 1)[-1]
        keep_time = (base / IMPORTS / keep).lstat().st_mtime
    except OSError:
        current, keep_time = None, 0.0
    with contextlib.suppress(OSError):
        for entry in (base / IMPORTS).iterdir():
            if entry.name == keep or not entry.name.startswith((_INSTALLED_PREFIX, _STAGING_PREFIX)):
                continue
            if now - entry.lstat().st_mtime > _ABANDONED_AFTER_S or (entry.name.startswith(_INSTALLED_PREFIX) and (
                    current is not None and current != entry.name and entry.lstat().st_mtime < keep_time)):
                shutil.rmtree(entry, ignore_errors=True)
    with contextlib.suppress(OSError):  # the previous layout's leftovers of a kill between its two renames
        for entry in base.glob(".previous-*"):
            shutil.rmtree(entry, ignore_errors=True)


def _fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
