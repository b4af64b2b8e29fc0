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
import hashlib
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from accelfit.catalog import skypilot, store
from accelfit.catalog.loader import DATA_DIR, compile_active, load_catalog
from accelfit.catalog.models import Catalog, Cloud
from accelfit.errors import InputError, problem

# Where SkyPilot clients read the catalog: skypilot-org/skypilot sky/skylet/constants.py HOSTED_CATALOG_DIR_URL
# plus CATALOG_SCHEMA_VERSION 'v8' (read 2026-11-23).
DEFAULT_SOURCE = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
DOWNLOAD_TIMEOUT_S = 60

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


def https_fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:  # noqa: S310 (https checked)
        return response.read()


def update_catalog(source: str = DEFAULT_SOURCE, *, base: Path | None = None, fetch: Fetcher = https_fetch,
                   today: dt.date | None = None) -> UpdateSummary:
    """Import the SkyPilot catalog at `source` (directory or https URL) into `base` (default `store.catalog_dir()`)."""
    base = base or store.catalog_dir()
    today = today or dt.date.today()
    texts = {name: _read(source, name, fetch) for name in (skypilot.AWS_FILE, skypilot.GCP_FILE)}
    shipped = load_catalog(DATA_DIR, None)
    digests = {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in texts.items()}
    results, problems = {}, []
    for name, reader in ((skypilot.AWS_FILE, skypilot.import_aws), (skypilot.GCP_FILE, skypilot.import_gcp)):
        provenance = skypilot.Provenance(today, f"skypilot-catalog v8 {name} from {source} "
                                                f"(sha256 {digests[name][:12]}), imported {today}")
        results[name], found = reader(texts[name], shipped, provenance)
        problems.extend(found)
    if problems:
        raise InputError(problems)
    staged = store.staging_dir(base)
    try:
        _write(staged, source, today, results, digests)
        load_catalog(DATA_DIR, staged)  # the same integrity checks as the shipped data, before anything moves
        installed = store.install(staged, base)
    except BaseException:
        store.discard(staged)
        raise
    compile_active(base)  # the new catalog's compiled cache; this process's next load_catalog() reads it
    return _summary(installed, source, today, results, digests, shipped)


def _read(source: str, name: str, fetch: Fetcher) -> str:
    if source.startswith("https://"):
        url = f"{source.rstrip('/')}/{name}"
        try:
            body = fetch(url)
        except (OSError, ValueError) as error:  # URLError, HTTPError, timeouts and refused connections are OSError
            reason = getattr(error, "reason", None) or error
            raise InputError([problem(url, "", f"could not download the catalog ({reason})",
                                      "check the network connection and the URL, or download the catalogs/v8 "
                                      "directory and pass it with --from DIR; the installed catalog is unchanged")]
                             ) from None
    elif "://" in source:
        raise InputError([problem(source, "--from", "only https URLs and directories are read",
                                  f"use https:// or a local directory; the default is {DEFAULT_SOURCE}")])
    else:
        path = Path(source).expanduser() / name
        try:
            body = path.read_bytes()
        except OSError as error:
            raise InputError([problem(str(path), "", f"cannot read the upstream file ({error.__class__.__name__})",
                                      "pass --from the catalogs/v8 directory that holds aws/vms.csv and gcp/vms.csv")]
                             ) from None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError([problem(name, "", "not UTF-8 text", "pass the SkyPilot catalog's CSV files")]) from None


def _write(staged: Path, source: str, today: dt.date, results: dict, digests: dict[str, str]) -> None:
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


def _summary(directory: Path, source: str, today: dt.date, results: dict, digests: dict[str, str],
             shipped: Catalog) -> UpdateSummary:
    prices: dict[tuple[str, str], int] = {}
    availability: dict[str, int] = {}
    new_regions = []
    skipped: dict[str, int] = {}
    for name, result in results.items():
        for row in result.prices:
            key = (row.cloud.value, row.pricing.value)
            prices[key] = prices.get(key, 0) + 1
        for row in result.availability:
            availability[row.cloud.value] = availability.get(row.cloud.value, 0) + 1
            if row.cloud is Cloud.aws or shipped.instance_type(row.cloud, row.sku) is not None:
                if shipped.offered_zones(row.cloud, row.sku, row.region) is None:
                    new_regions.append((row.cloud.value, row.sku, row.region))
        for reason, names in result.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + len(names)
    files = {name: {"rows": result.rows_read, "sha256": digests[name]} for name, result in results.items()}
    return UpdateSummary(directory, source, today, files, prices, availability, tuple(new_regions), skipped)
