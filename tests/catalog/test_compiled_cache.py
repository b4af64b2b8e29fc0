"""The compiled catalog cache (`accelfit/catalog/compiled.py`): a hit skips parsing, any change to the files
misses, a damaged or foreign cache file is never trusted (the YAML is parsed instead, nothing crashes), and a
catalog from the cache plans exactly as one parsed from the files."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from accelfit.catalog import DATA_DIR, compiled, load_catalog, loader, store
from accelfit.errors import InputError
from accelfit.planner import plan
from accelfit.spec import WorkloadSpec

SPEC = WorkloadSpec.model_validate({
    "name": "serve", "kind": "inference", "framework": "pytorch", "model": {"parameters": "8B"},
    "inference": {"requests_per_second": 10, "latency_p99_ms": 5000}, "placement": {"clouds": ["gcp", "aws"]}})


@pytest.fixture()
def base(imported_base: Path) -> Path:
    """An imported catalog (the upstream-format fixtures) as the active catalog, in a private directory (a copy
    of the session's one import: conftest.py)."""
    return imported_base


def _fresh_load():
    """load_catalog() as a new process sees it: nothing cached in memory."""
    loader.forget_active()
    return load_catalog()


def _no_parsing(monkeypatch) -> None:
    def parse(*_args, **_kwargs):
        raise AssertionError("the YAML was parsed although the cache holds this catalog")

    monkeypatch.setattr(loader, "_load", parse)


def _active_files(base: Path) -> list[Path]:
    return sorted(DATA_DIR.glob("*.yaml")) + store.imported_files(base / "imported")


def test_second_load_comes_from_the_cache_without_parsing(base, monkeypatch):
    (base / compiled.CACHE_FILE).unlink()
    parsed = _fresh_load()
    assert (base / compiled.CACHE_FILE).is_file()
    _no_parsing(monkeypatch)
    cached = _fresh_load()
    assert cached == parsed and cached.origin.kind == "imported"
    assert cached.price("aws", "g6.xlarge", "eu-west-3").hourly_usd == 0.9776  # lookups work on the cached copy


def test_an_import_leaves_its_compiled_cache_behind(base, monkeypatch):
    key = compiled.cache_key(_active_files(base))
    assert compiled.read(base / compiled.CACHE_FILE, key) is not None
    _no_parsing(monkeypatch)
    assert _fresh_load().price("aws", "g6.xlarge", "eu-west-3").hourly_usd == 0.9776


def test_a_changed_imported_file_misses_the_cache(base):
    _fresh_load()
    rows = base / "imported" / "imported_aws.yaml"
    rows.write_text(rows.read_text(encoding="utf-8").replace("0.9776", "0.9999"), encoding="utf-8")
    assert _fresh_load().price("aws", "g6.xlarge", "eu-west-3").hourly_usd == 0.9999


def test_a_new_import_misses_the_cache(base):
    _fresh_load()
    store.install(store.staging_dir(base), base)  # an empty catalog replaces the import: back to the shipped one
    assert _fresh_load().origin.kind == "shipped"


def test_the_key_covers_every_byte_and_name_of_the_files(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("x: 1\n")
    second.write_text("x: 1\n")
    key = compiled.cache_key([first])
    assert compiled.cache_key([second]) != key  # same bytes, other file
    first.write_text("x: 2\n")
    assert compiled.cache_key([first]) != key
    assert compiled.cache_key([first, second]) != compiled.cache_key([second, first])


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "payload-changed", "other-key", "not-a-catalog"])
def test_a_damaged_or_foreign_cache_is_ignored_and_rewritten(base, damage):
    parsed = _fresh_load()
    cache = base / compiled.CACHE_FILE
    blob = cache.read_bytes()
    header = len(compiled.FORMAT) + 2 * 64 + 1
    key = blob[len(compiled.FORMAT):len(compiled.FORMAT) + 64].decode()
    if damage == "truncated":
        cache.write_bytes(blob[: len(blob) // 2])
    elif damage == "garbage":
        cache.write_bytes(b"\x80\x05not a pickle at all" * 100)
    elif damage == "empty":
        cache.write_bytes(b"")
    elif damage == "payload-changed":  # right key, payload no longer matches its digest
        middle = (header + len(blob)) // 2
        cache.write_bytes(blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1:])
    elif damage == "other-key":  # a complete, valid cache written for other files
        compiled.write(cache, "0" * 64, parsed.model_copy())
    else:  # key and digest right, but the payload is not a catalog
        payload = pickle.dumps({"not": "a catalog"})
        cache.write_bytes(compiled.FORMAT + key.encode() + hashlib.sha256(payload).hexdigest().encode() + b"\n"
                          + payload)
    assert compiled.read(cache, key) is None
    assert _fresh_load() == parsed
    assert compiled.read(cache, key) == parsed  # rewritten for the next run


def test_an_unwritable_cache_place_costs_only_the_speed_up(base):
    cache = base / compiled.CACHE_FILE
    cache.unlink()
    (cache / "occupied").mkdir(parents=True)  # a directory where the file should go: the rename fails
    assert _fresh_load().origin.kind == "imported"
    assert [path.name for path in base.iterdir() if path.name.startswith(".")] == []  # no temporary file left


def test_a_catalog_that_fails_its_checks_is_never_cached(base):
    rows = base / "imported" / "imported_aws.yaml"
    rows.write_text(rows.read_text(encoding="utf-8").replace("hourly_usd: 0.9776", "hourly_usd: -1"),
                    encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError):
            _fresh_load()
    assert compiled.read(base / compiled.CACHE_FILE, compiled.cache_key(_active_files(base))) is None


def test_the_cached_imported_catalog_plans_as_the_parsed_one(base, monkeypatch):
    _fresh_load()
    parsed = load_catalog(DATA_DIR, base / "imported")  # an explicit directory: always parsed, never cached
    _no_parsing(monkeypatch)
    cached = _fresh_load()
    assert plan(SPEC, cached).model_dump() == plan(SPEC, parsed).model_dump()
