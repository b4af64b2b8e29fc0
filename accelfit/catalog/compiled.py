"""A compiled copy of the active catalog, so a command does not re-parse and re-check the YAML on every run.

Parsing the shipped data and an imported SkyPilot catalog, validating every row and checking integrity takes
0.2-0.4 s; unpickling the finished `Catalog` (its rows and lookup indexes) takes about 10 ms. The validated catalog
is pickled to `<catalog dir>/compiled-catalog.pickle` (the directory of `store.catalog_dir()`), keyed on the
SHA-256 of everything that decides what it holds:
- the bytes (and names) of the shipped data files and of the imported catalog's manifest and row files, so any
  change to them, an `accelfit catalog update` or an upgrade of accelfit's data, misses the cache;
- the source of the code that reads, checks and defines the catalog (`accelfit/catalog/*.py` and the readers they
  use) and the Python and pydantic versions, because a pickle is only as good as the classes that load it.

A cache file is used only when its magic line, its key and the SHA-256 of its payload all match and the payload
unpickles to a `Catalog`; anything else (missing, truncated, corrupt, written for other files or another
accelfit) is ignored and the YAML is parsed as before, then the cache is rewritten. Writes go to a temporary file
in the same directory and are renamed into place, so a reader never sees half a file; a directory that cannot be
written only costs the speed-up. Only a catalog that passed every check is ever written, so the checks run once
per change of the files, not on every load.

The cache is as trusted as the directory it lives in (the user's own data directory, where the imported catalog
also lives): pickle can run code, so a cache is never read from anywhere else.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from accelfit.catalog.models import Catalog

CACHE_FILE = "compiled-catalog.pickle"
FORMAT = b"accelfit-compiled-catalog 1\n"  # bump when the file layout changes
_DIGEST_HEX = 64
_PACKAGE = Path(__file__).resolve().parents[1]
# Code whose behaviour or classes a cached catalog depends on: everything in accelfit/catalog plus the readers and
# validators the loader calls.
_CODE = (*sorted((_PACKAGE / "catalog").glob("*.py")), _PACKAGE / "validation.py", _PACKAGE / "yamlio.py",
         _PACKAGE / "inputfile.py", _PACKAGE / "errors.py")


def cache_key(files: Iterable[Path]) -> str:
    """SHA-256 over the data files (name and bytes, in the given order), the catalog code and the versions of
    Python and pydantic. Raises OSError when a file cannot be read."""
    import pydantic
    import pydantic_core

    digest = hashlib.sha256(FORMAT)
    digest.update(f"{sys.version}|{pydantic.VERSION}|{pydantic_core.__version__}".encode())
    for group in (files, _CODE):
        for path in group:
            data = path.read_bytes()
            digest.update(f"\0{path.name}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def read(cache: Path, key: str) -> Catalog | None:
    """The catalog stored in `cache` under `key`, or None when the file is missing, damaged or for another key."""
    try:
        blob = cache.read_bytes()
    except OSError:
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
        catalog = pickle.loads(payload)  # noqa: S301 (the user's own cache, checked against its digest)
    except Exception:  # noqa: BLE001 - any unpickling failure means: parse the YAML instead
        return None
    return catalog if isinstance(catalog, Catalog) else None


def write(cache: Path, key: str, catalog: Catalog) -> bool:
    """Store `catalog` under `key`, atomically; False (and nothing changed) when the directory is not writable."""
    payload = pickle.dumps(catalog, protocol=pickle.HIGHEST_PROTOCOL)
    blob = FORMAT + key.encode("ascii") + hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n" + payload
    temporary = None
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{cache.name}.", dir=cache.parent)
        with os.fdopen(handle, "wb") as stream:
            stream.write(blob)
        os.replace(temporary, cache)
        return True
    except OSError:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        return False


def load_cached(cache: Path, files: Callable[[], list[Path]], build: Callable[[], Catalog]) -> Catalog:
    """The catalog from `cache` when it was compiled from exactly `files()`, else `build()` (which parses and
    checks the files, raising InputError on bad data) stored for the next run.

    `files` is asked again after building: when the files changed meanwhile (an import landed), the freshly built
    catalog is returned but not stored, since the key would no longer say which files it came from."""
    try:
        key = cache_key(files())
    except OSError:
        return build()
    found = read(cache, key)
    if found is not None:
        return found
    catalog = build()
    try:
        unchanged = cache_key(files()) == key
    except OSError:
        unchanged = False
    if unchanged:
        write(cache, key, catalog)
    return catalog
