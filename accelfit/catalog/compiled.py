"""A compiled copy of the active catalog, so a command does not re-parse and re-check the YAML on every run.

Parsing the shipped data and an imported SkyPilot catalog, validating every row and checking integrity takes
0.2-1 s; validating the finished `Catalog` from JSON through pydantic's compiled validator
(`Catalog.model_validate_json`) takes tens of milliseconds. The validated catalog is stored as JSON in
`<catalog dir>/compiled-catalog.json` (the directory of `store.catalog_dir()`), keyed on the SHA-256 of
everything that decides what it holds:
- the bytes (and names) of the shipped data files, of the catalog files of each registered cloud that keeps them
  in a folder of its own (`Cloud.catalog_dir`) and of the imported catalog's manifest and row files, so any
  change to them, an `accelfit catalog update` or an upgrade of accelfit's data, misses the cache;
- the records of those registered clouds (their fields steer the integrity checks), so registering or changing
  one misses it too;
- the source of the code that reads, checks and defines the catalog (`accelfit/catalog/*.py` and the readers they
  use) and the Python and pydantic versions, because the JSON is read back by those classes.

The file is data only: JSON validated into the catalog's frozen models, never pickle or any other format that can
run code, so a cache restored from a shared CI cache or planted in the folder can at worst hold wrong numbers for
the right key, which the key (computed from public files) does not prevent; it cannot run anything. A cache file is
used only when it is a regular file of bounded size (a FIFO or a device is never opened for reading), its magic
line, key and the SHA-256 of its payload all match, and the payload validates as a `Catalog`; anything else is
ignored and the YAML is parsed as before, then the cache is rewritten. Writes go to a temporary file created
exclusively in the same directory, fsynced and renamed into place, so a reader never sees half a file; a directory
that cannot be written only costs the speed-up. Only a catalog that passed every check is ever written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from accelfit.catalog.models import Catalog

CACHE_FILE = "compiled-catalog.json"
LEGACY_PICKLE = "compiled-catalog.pickle"  # an older accelfit's executable format: removed, never read
FORMAT = b"accelfit-compiled-catalog 2 json\n"  # bump when the file layout changes
_DIGEST_HEX = 64
# The upstream-size imported catalog compiles to a few MB of JSON; anything far bigger is not one of ours.
MAX_CACHE_BYTES = 256 * 1024 * 1024
# Data files are read through the same bound (the shipped files are kilobytes, an import a few MB).
MAX_DATA_BYTES = 256 * 1024 * 1024
_PACKAGE = Path(__file__).resolve().parents[1]
# Code whose behaviour or classes a cached catalog depends on: everything in accelfit/catalog plus the readers and
# validators the loader calls, the value types of its rows' cloud and pricing (the registries check them), and the
# cloud records whose fields and rule hooks the integrity checks follow (accelfit/catalog/integrity.py).
_CODE = (*sorted((_PACKAGE / "catalog").glob("*.py")), _PACKAGE / "validation.py", _PACKAGE / "yamlio.py",
         _PACKAGE / "inputfile.py", _PACKAGE / "errors.py", *sorted((_PACKAGE / "clouds").glob("*.py")),
         *sorted((_PACKAGE / "buying").glob("*.py")))


def _read_regular(path: Path, limit: int) -> bytes:
    """A regular file's bytes, at most `limit`; OSError for anything else (FIFO, device, too big, unreadable).

    Opened non-blocking so a FIFO planted under the name never hangs the command; fstat refuses it unread."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise OSError(f"{path}: not a regular file of at most {limit} bytes")
        chunks, total = [], 0
        while chunk := os.read(descriptor, min(1 << 22, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise OSError(f"{path}: grew past {limit} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def cache_key(files: Iterable[Path], records: str = "") -> str:
    """SHA-256 over the data files (name and bytes, in the given order), the catalog code, the versions of
    Python and pydantic, and `records`: the registered clouds' records that live outside accelfit/clouds (their
    fields steer the integrity checks; "" adds nothing). Raises OSError when a file cannot be read (or is not a
    regular file)."""
    import pydantic
    import pydantic_core

    digest = hashlib.sha256(FORMAT)
    digest.update(f"{sys.version}|{pydantic.VERSION}|{pydantic_core.__version__}".encode())
    if records:
        digest.update(f"\0records\0{records}".encode())
    for group in (files, _CODE):
        for path in group:
            data = _read_regular(path, MAX_DATA_BYTES)
            digest.update(f"\0{path.name}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def read(cache: Path, key: str) -> Catalog | None:
    """The catalog stored in `cache` under `key`, or None when the file is missing, damaged or for another key."""
    try:
        blob = _read_regular(cache, MAX_CACHE_BYTES)
    except (OSError, ValueError):
        return None
    header_end = len(FORMAT) + 2 * _DIGEST_HEX + 1
    if len(blob) <= header_end or not blob.startswith(FORMAT) or blob[header_end - 1:header_end] != b"\n":
        return None
    stored_key = blob[len(FORMAT):len(FORMAT) + _DIGEST_HEX].decode("ascii", "replace")
    stored_digest = blob[len(FORMAT) + _DIGEST_HEX:header_end - 1].decode("ascii", "replace")
    payload = blob[header_end:]
    if stored_key != key or hashlib.sha256(payload).hexdigest() != stored_digest:
        return None
    try:
        # JSON into the frozen models: data only, every field validated again (strings stay strings).
        return Catalog.model_validate_json(payload)
    except Exception:  # noqa: BLE001 - any validation failure means: parse the YAML instead
        return None


def write(cache: Path, key: str, catalog: Catalog) -> bool:
    """Store `catalog` under `key`, atomically; False (and nothing changed) when the directory is not writable."""
    payload = catalog.model_dump_json().encode("utf-8")
    blob = FORMAT + key.encode("ascii") + hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n" + payload
    temporary = None
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{cache.name}.", suffix=".tmp", dir=cache.parent)
        with os.fdopen(handle, "wb") as stream:
            stream.write(blob)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, cache)
        with contextlib.suppress(OSError):  # an older accelfit's pickle: never read, so not left lying about
            (cache.parent / LEGACY_PICKLE).unlink()
        return True
    except BaseException as error:  # a kill (KeyboardInterrupt) too: no temporary copy is left behind
        if temporary is not None:
            with contextlib.suppress(OSError):
                Path(temporary).unlink()
        if isinstance(error, (OSError, ValueError)):
            return False
        raise


def load_cached(cache: Path, files: Callable[[], list[Path]], build: Callable[[], Catalog],
                records: str = "") -> Catalog:
    """The catalog from `cache` when it was compiled from exactly `files()`, else `build()` (which parses and
    checks the files, raising InputError on bad data) stored for the next run.

    `files` is asked again after building: when the files changed meanwhile (an import landed), the freshly built
    catalog is returned but not stored, since the key would no longer say which files it came from."""
    try:
        key = cache_key(files(), records)
    except (OSError, ValueError):
        return build()
    found = read(cache, key)
    if found is not None:
        return found
    catalog = build()
    try:
        unchanged = cache_key(files(), records) == key
    except (OSError, ValueError):
        unchanged = False
    if unchanged:
        write(cache, key, catalog)
    return catalog
