"""A file read before is not parsed again (`loader._CLEAN_FILES`): only an unchanged, clean file's rows are reused,
a changed file is read afresh, a file with a problem reports it on every load, and a problem found later still
names the line in the file it is in."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelfit.catalog import DATA_DIR, load_catalog, loader
from accelfit.errors import InputError


@pytest.fixture()
def parsed(monkeypatch) -> list[str]:
    """The files the loader parses (in order), with nothing reused from before this test."""
    monkeypatch.setattr(loader, "_CLEAN_FILES", {})
    seen: list[str] = []
    real = loader.parse_yaml

    def counting(text, source):
        seen.append(Path(source).name)
        return real(text, source)

    monkeypatch.setattr(loader, "parse_yaml", counting)
    return seen


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_an_unchanged_file_is_parsed_once_and_loads_equal(data_copy, parsed):
    first = load_catalog(data_copy)
    assert sorted(parsed) == sorted(path.name for path in DATA_DIR.glob("*.yaml"))
    parsed.clear()
    assert load_catalog(data_copy) == first and load_catalog(DATA_DIR) == first  # same bytes, any folder
    assert parsed == []


def test_a_changed_file_is_read_afresh_and_its_change_seen(data_copy, parsed):
    before = load_catalog(data_copy)
    parsed.clear()
    _replace(data_copy / "prices_aws.yaml", "hourly_usd: 55.04,", "hourly_usd: 55.05,")
    after = load_catalog(data_copy)
    assert parsed == ["prices_aws.yaml"]
    assert after != before and any(row.hourly_usd == 55.05 for row in after.prices)


def test_a_file_with_a_problem_is_reported_on_every_load(data_copy, parsed):
    _replace(data_copy / "prices_aws.yaml", "hourly_usd: 55.04,", "hourly_usd: -1,")
    for _ in range(2):
        with pytest.raises(InputError) as caught:
            load_catalog(data_copy)
        assert [problem.field.split(".")[-1] for problem in caught.value.problems] == ["hourly_usd"]
    assert parsed.count("prices_aws.yaml") == 2


def test_a_reused_file_still_names_its_lines(data_copy, parsed, tmp_path):
    load_catalog(data_copy)  # every file read once: the price rows below are reused, not parsed
    other = tmp_path / "other"
    other.mkdir()
    for path in data_copy.glob("*.yaml"):
        (other / path.name).write_bytes(path.read_bytes())
    _replace(other / "instances_aws.yaml", "name: p5.48xlarge,", "name: p5.48xlarge-renamed,")
    parsed.clear()
    with pytest.raises(InputError) as caught:
        load_catalog(other)
    assert parsed == ["instances_aws.yaml"]
    prices = [problem for problem in caught.value.problems if problem.file == str(other / "prices_aws.yaml")]
    assert prices and all(problem.line for problem in prices)
    index = int(prices[0].field.split("[")[1].split("]")[0])
    row_lines = [number for number, line in enumerate((other / "prices_aws.yaml").read_text().splitlines(), 1)
                 if line.startswith("  - ")]
    assert prices[0].line == row_lines[index]
