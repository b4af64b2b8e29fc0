"""`accelfit catalog update`: fetch SkyPilot's catalog v8, convert it, check it, and swap it in atomically.

Steps, in an order that never leaves a half-written catalog: read both upstream files (a directory or an https
URL; nothing is touched when that fails), convert them (`skypilot.py`), write the rows and a manifest into a
temporary directory next to the installed catalog, load that directory back through the same integrity checks
as the shipped data, and only then rename it into place (`store.install`). Any failure raises `InputError`
(exit 2) and leaves the previous catalog as it was. Last, the installed catalog is compiled (`compiled.py`), so the
first `accelfit plan` after an import does not parse it again.
"""

from __future__ import annotations

import datetime as dt
import http.client
import hashlib
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import yaml
from pydantic import ValidationError

from accelfit.catalog import skypilot, store
from accelfit.catalog.loader import DATA_DIR, compile_active, load_catalog
from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem

# Where SkyPilot clients read the catalog: skypilot-org/skypilot sky/skylet/constants.py HOSTED_CATALOG_DIR_URL
# plus CATALOG_SCHEMA_VERSION 'v8' (read 2026-11-23).
DEFAULT_SOURCE = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
DOWNLOAD_TIMEOUT_S = 60  # per file, the whole download: DNS, connect, redirects and every byte of the body
# Per upstream file, downloaded or read from disk: the v8 files are about 4 MB (aws) and 2 MB (gcp); eight times
# that is room to grow, and keeps the import's memory bounded whatever is served or planted.
MAX_UPSTREAM_BYTES = 32 * 1024 * 1024

Fetcher = Callable[[str], bytes]  # full URL -> body; raises OSError (urllib.error.URLError is one) on failure


@dataclass(frozen=True)
class UpdateSummary:
    """What an import installed, for the command's report."""

    directory: Path
    source: str
    as_of: dt.date
    files: dict[str, dict[str, object]]  # upstream file -> {rows, sha256}
    prices: dict[tuple[str, str], int]  # (cloud, pricing) -> rows
    availability: dict[str, int]  # cloud -> rows
    new_regions: tuple[tuple[str, str, str], ...]  # (cloud, sku, region) the shipped snapshot does not list
    skipped: dict[str, int]  # reason -> how many names


class _HttpsOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to another https URL: a downgrade to http is refused, not recorded as https."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage, newurl: str) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl).scheme.lower() != "https":
            raise urllib.error.URLError(f"redirected to a URL that is not https ({newurl[:200]})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def https_fetch(url: str, *, deadline_s: float = DOWNLOAD_TIMEOUT_S, max_bytes: int = MAX_UPSTREAM_BYTES) -> bytes:
    """The body at an https `url`, within `deadline_s` overall and at most `max_bytes`; OSError otherwise.

    The download runs in a daemon thread joined with the deadline, so nothing (a name lookup that never answers,
    a server sending one byte every few seconds) holds the command past it; the body is read with `read1`, which
    returns what has arrived, so the byte cap and the deadline are checked as it comes."""
    outcome: dict[str, object] = {}
    started = time.monotonic()

    def download() -> None:
        try:
            opener = urllib.request.build_opener(_HttpsOnlyRedirects)
            with opener.open(url, timeout=min(30.0, deadline_s)) as response:
                chunks: list[bytes] = []
                total = 0
                while chunk := response.read1(1 << 16):
                    total += len(chunk)
                    if total > max_bytes:
                        raise OSError(f"the body is larger than {max_bytes:,} bytes")
                    if time.monotonic() - started > deadline_s:
                        raise OSError(f"the download took more than {deadline_s:g} s")
                    chunks.append(chunk)
                outcome["body"] = b"".join(chunks)
        except Exception as error:  # noqa: BLE001 - reported to the caller as one OSError below
            outcome["error"] = error

    worker = threading.Thread(target=download, name="accelfit-catalog-download", daemon=True)
    worker.start()
    worker.join(deadline_s)
    if worker.is_alive():
        raise OSError(f"the download took more than {deadline_s:g} s")
    if "body" in outcome:
        return outcome["body"]  # type: ignore[return-value]
    error = outcome.get("error")
    if isinstance(error, OSError):
        raise error
    raise OSError(str(error) or error.__class__.__name__)


def _checked_url(source: str) -> str:
    """An https URL with a host and nothing a request line cannot carry; InputError naming --from otherwise."""
    try:
        parts = urllib.parse.urlsplit(source)
        host = parts.hostname
    except ValueError:
        host = None
    if not host or any(character.isspace() or ord(character) < 32 or ord(character) == 127
                       for character in source):
        raise InputError([problem(None, "--from", "not a usable https URL (no host, or spaces or control "
                                  "characters in it)", f"pass an https URL such as {DEFAULT_SOURCE}, or a directory",
                                  source)])
    return source


def update_catalog(source: str = DEFAULT_SOURCE, *, base: Path | None = None, fetch: Fetcher = https_fetch,
                   today: dt.date | None = None) -> UpdateSummary:
    """Import the SkyPilot catalog at `source` (directory or https URL) into `base` (default `store.catalog_dir()`)."""
    base = base or store.catalog_dir()
    today = today or dt.date.today()
    if source.lower().startswith("https://"):
        _checked_url(source)
    texts = {name: _read(source, name, fetch) for name in (skypilot.AWS_FILE, skypilot.GCP_FILE)}
    shipped = load_catalog(DATA_DIR, None)
    digests = {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in texts.items()}
    results, problems = {}, []
    for name, reader in ((skypilot.AWS_FILE, skypilot.import_aws), (skypilot.GCP_FILE, skypilot.import_gcp)):
        provenance = skypilot.Provenance(today, f"skypilot-catalog v8 {name} from {source} "
                                                f"(sha256 {digests[name][:12]}), imported {today}")
        try:
            results[name], found = reader(texts[name], shipped, provenance)
        except ValidationError as error:  # a row the readers let through that the catalog's models refuse
            first = error.errors()[0]
            raise InputError([problem(name, ".".join(str(part) for part in first["loc"]) or "",
                                      f"an imported row is not valid ({first['msg']})",
                                      "re-download the file; the installed catalog is unchanged")]) from None
        problems.extend(found)
        if not found and not results[name].prices and not results[name].availability:
            problems.append(problem(name, "", f"no rows for any instance type or TPU generation accelfit knows "
                                    f"({results[name].rows_read:,} rows read): an empty import would replace the "
                                    "installed catalog", "check that --from holds SkyPilot's catalogs/v8 files "
                                    "(aws/vms.csv and gcp/vms.csv, not swapped); the installed catalog is "
                                    "unchanged"))
    if problems:
        raise InputError(problems)
    staged = store.staging_dir(base)
    try:
        try:
            _write(staged, source, today, results, digests)
        except OSError as error:
            raise store.folder_error(base, error, "write to") from None
        load_catalog(DATA_DIR, staged)  # the same integrity checks as the shipped data, before anything moves
        installed = store.install(staged, base)
    except BaseException:
        store.discard(staged)
        raise
    compile_active(base)  # the new catalog's compiled cache; this process's next load_catalog() reads it
    return _summary(installed, source, today, results, digests, shipped)


def _read(source: str, name: str, fetch: Fetcher) -> str:
    if source.lower().startswith("https://"):
        url = f"{source.rstrip('/')}/{name}"
        try:
            body = fetch(url)
        except (OSError, ValueError) as error:  # URLError, HTTPError, timeouts and refused connections are OSError
            reason = getattr(error, "reason", None) or error
            raise InputError([problem(url, "", f"could not download the catalog ({str(reason)[:300]})",
                                      "check the network connection and the URL, or download the catalogs/v8 "
                                      "directory and pass it with --from DIR; the installed catalog is unchanged")]
                             ) from None
        if len(body) > MAX_UPSTREAM_BYTES:
            raise InputError([problem(url, "", f"the body is larger than {MAX_UPSTREAM_BYTES:,} bytes",
                                      "check the URL; the installed catalog is unchanged")])
    elif "://" in source:
        raise InputError([problem(source, "--from", "only https URLs and directories are read",
                                  f"use https:// or a local directory; the default is {DEFAULT_SOURCE}")])
    else:
        try:
            path = Path(source).expanduser() / name
        except RuntimeError:  # `~nosuchuser/...`: no such home directory
            raise InputError([problem(None, "--from", "names the home directory of a user that does not exist",
                                      "pass the directory's full path", source)]) from None
        from accelfit.inputfile import read_bytes

        body = read_bytes(path, MAX_UPSTREAM_BYTES)  # regular files only (no FIFO or device), bounded
    from accelfit.inputfile import decode_text

    return decode_text(body, name)  # strict UTF-8 (a BOM dropped); a NUL byte is a binary file


def _write(staged: Path, source: str, today: dt.date, results: dict[str, skypilot.ImportResult], digests: dict[str, str]) -> None:
    manifest = {
        "kind": "imported", "as_of": today.isoformat(), "source": source, "layout": "skypilot-catalog v8",
        "files": {name: {"sha256": digests[name], "rows": result.rows_read} for name, result in results.items()},
    }
    (staged / store.MANIFEST).write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    for name, result in results.items():
        cloud = name.split("/")[0]
        document = {
            "schema_version": 1,
            "prices": [row.model_dump(mode="json", exclude_defaults=False) for row in result.prices],
            "availability": [row.model_dump(mode="json") for row in result.availability],
        }
        header = f"# Imported by `accelfit catalog update` on {today} from {source} ({name}). Do not edit: re-import.\n"
        text = header + yaml.dump(document, Dumper=_DUMPER, sort_keys=False, default_flow_style=None, width=100000)
        (staged / f"imported_{cloud}.yaml").write_text(text, encoding="utf-8")


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _summary(directory: Path, source: str, today: dt.date, results: dict[str, skypilot.ImportResult], digests: dict[str, str],
             shipped: Catalog) -> UpdateSummary:
    prices: dict[tuple[str, str], int] = {}
    availability: dict[str, int] = {}
    new_regions = []
    skipped: dict[str, int] = {}
    for result in results.values():
        for row in result.prices:
            key = (row.cloud.value, row.pricing.value)
            prices[key] = prices.get(key, 0) + 1
        for offered in result.availability:
            availability[offered.cloud.value] = availability.get(offered.cloud.value, 0) + 1
            # A new region of an instance type the shipped catalog describes (every imported AWS row is one: the
            # AWS import keeps only those), not of a TPU generation (accelfit/catalog/skypilot.py).
            if shipped.instance_type(offered.cloud, offered.sku) is not None \
                    and shipped.offered_zones(offered.cloud, offered.sku, offered.region) is None:
                new_regions.append((offered.cloud.value, offered.sku, offered.region))
        for reason, names in result.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + len(names)
    files = {name: {"rows": result.rows_read, "sha256": digests[name]} for name, result in results.items()}
    return UpdateSummary(directory, source, today, files, prices, availability, tuple(new_regions), skipped)
