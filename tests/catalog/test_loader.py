"""Loading: bad data files become one InputError naming file, field path and value for every bad row."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.errors import InputError


def _problems(data_dir: Path) -> list:
    with pytest.raises(InputError) as caught:
        load_catalog(data_dir)
    return list(caught.value.problems)


def _replace(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def test_default_catalog_is_cached():
    assert load_catalog() is load_catalog()


def test_a_copied_directory_loads_equal_and_is_not_cached(data_copy: Path):
    first, second = load_catalog(data_copy), load_catalog(data_copy)
    assert first is not second
    assert first.prices == load_catalog().prices


def test_every_bad_row_is_reported_with_file_and_path(data_copy: Path):
    prices = data_copy / "prices_aws.yaml"
    _replace(prices, "hourly_usd: 55.04,", "hourly_usd: -1,")           # a range violation
    _replace(prices, "pricing: spot,", "pricing: spto,")                # an enum typo
    _replace(data_copy / "instances_gcp.yaml", "vcpus: 208,", "vcpus: 208, vcpu_count: 3,")  # an unknown key
    problems = _problems(data_copy)
    rendered = [p.render() for p in problems]
    assert len(problems) == 3, rendered
    by_field = {p.field: p for p in problems}
    hourly = next(p for f, p in by_field.items() if f.endswith(".hourly_usd"))
    assert hourly.file == str(prices) and hourly.field.startswith("prices[") and hourly.value == -1
    spot = next(p for f, p in by_field.items() if f.endswith(".pricing"))
    assert "spot" in spot.fix and spot.value == "spto"
    unknown = next(p for f, p in by_field.items() if f.endswith(".vcpu_count"))
    assert unknown.file.endswith("instances_gcp.yaml") and unknown.field.startswith("instance_types[")
    assert "vcpus" in unknown.fix  # did you mean


def test_path_index_points_at_the_broken_row(data_copy: Path):
    prices = data_copy / "prices_aws.yaml"
    _replace(prices, "hourly_usd: 55.04,", "hourly_usd: 0,")
    (problem,) = _problems(data_copy)
    rows = [line for line in prices.read_text().splitlines() if line.startswith("  - ")]
    index = int(problem.field.split("[")[1].split("]")[0])
    assert "hourly_usd: 0," in rows[index]
    assert problem.field == f"prices[{index}].hourly_usd"


def test_model_rules_point_at_their_field(data_copy: Path):
    _replace(data_copy / "tpu_slices.yaml", "topology: 4x4x4,", "topology: 4x4x2,")
    (problem,) = _problems(data_copy)
    assert problem.field.endswith(".topology") and "32 chips" in problem.message


@pytest.mark.parametrize(("file", "old", "new", "field_end", "words"), [
    ("instances_aws.yaml", "accelerator: h100-80gb,", "accelerator: h100,", ".accelerator", "canonical"),
    ("prices_aws.yaml", "sku: p5.48xlarge,", "sku: p5.48xl,", ".sku", "did you mean"),
    ("prices_aws.yaml", "region: us-east-1,", "region: mars-east-1,", ".region", "not an offer"),
    ("tpu_availability.yaml", "sku: tpu-v4,", "sku: tpu-v9,", ".sku", "TPU generation"),
    ("instances_gcp.yaml", "gke_accelerator: nvidia-b200,", "gke_accelerator: nvidia-b100,", ".gke_accelerator",
     "b200"),
    ("tpu_slices.yaml", "gke_machine_type: ct5p-hightpu-4t,", "gke_machine_type: ct6e-standard-4t,",
     ".gke_machine_type", "machine family"),
    ("efficiency.yaml", "accelerator: tpu-v6e,", "accelerator: tpu-v7,", ".accelerator", "unknown"),
])
def test_cross_file_integrity_problems(data_copy: Path, file, old, new, field_end, words):
    _replace(data_copy / file, old, new)
    problems = _problems(data_copy)
    matching = [p for p in problems if p.field.endswith(field_end) and p.file.endswith(file)]
    assert matching, [p.render() for p in problems]
    assert words in (matching[0].message + " " + matching[0].fix)


def test_duplicate_rows_are_reported(data_copy: Path):
    path = data_copy / "prices_aws.yaml"
    line = next(line for line in path.read_text().splitlines() if "sku: p5.48xlarge," in line)
    path.write_text(path.read_text() + line + "\n")
    problems = _problems(data_copy)
    assert any("duplicate" in p.message for p in problems)


@pytest.mark.parametrize(("header", "message"), [
    ("schema_version: 7", "unsupported"),
    ("", "missing"),
])
def test_schema_version_is_checked(data_copy: Path, header, message):
    _replace(data_copy / "efficiency.yaml", "schema_version: 1", header)
    (problem,) = _problems(data_copy)
    assert problem.field == "schema_version" and message in problem.message
    assert problem.file.endswith("efficiency.yaml")


def test_unknown_section_suggests_the_right_one(data_copy: Path):
    _replace(data_copy / "efficiency.yaml", "efficiency:", "eficiency:")
    problems = _problems(data_copy)
    unknown = next(p for p in problems if p.field == "eficiency")
    assert "efficiency" in unknown.fix


def test_yaml_syntax_error_names_the_file(data_copy: Path):
    _replace(data_copy / "service_prices.yaml", "service_prices:", "service_prices: [")
    problems = _problems(data_copy)
    assert any(p.file.endswith("service_prices.yaml") and "YAML" in p.message for p in problems)


def test_empty_directory_is_an_input_error(tmp_path: Path):
    (problem,) = _problems(tmp_path)
    assert "no catalog data files" in problem.message


# The cloud-specific catalog rules follow each cloud's record (issue 35: accelfit/clouds `instance_accelerator_fields`,
# `tpu_platforms`, `listed_zones_are_names`); these pin their messages word for word, as they were before.
@pytest.mark.parametrize(("file", "old", "new", "field_end", "message", "fix"), [
    ("instances_gcp.yaml", "gke_accelerator: nvidia-l4,", "", ".gke_accelerator",
     "GCP machine types need their accelerator string", "add the GCE/GKE string, e.g. nvidia-h100-80gb"),
    ("instances_aws.yaml", "name: g4dn.xlarge,", "name: g4dn.xlarge, gke_accelerator: nvidia-tesla-t4,",
     ".gke_accelerator", "gke_accelerator, gpudirect and extra_networks are GCP-only", "remove them from AWS rows"),
    ("prices_gcp.yaml", "{cloud: gcp, sku: tpu-v4, unit: chip-hour,", "{cloud: aws, sku: tpu-v4, unit: chip-hour,",
     ".sku", "chip-hour prices name a TPU generation on gcp",
     "use a tpu-* name from accelerators.yaml with cloud gcp"),
    ("gpu_availability.yaml", "zones: [us-central1-a,", "zones: [us-east1-a,", ".zones[0]",
     "not a zone of us-central1", "GCP zones are <region>-<letter>, e.g. us-central1-a"),
])
def test_a_clouds_own_catalog_rules(data_copy: Path, file, old, new, field_end, message, fix):
    _replace(data_copy / file, old, new)
    matching = [p for p in _problems(data_copy) if p.field.endswith(field_end) and p.file.endswith(file)]
    assert matching and (matching[0].message, matching[0].fix) == (message, fix), matching
