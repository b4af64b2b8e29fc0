"""The GCP GPU prices filled from SkyPilot's v8 GCP catalog, and the "not sold this way" facts: a pair the cloud does
not sell under a pricing model is reported as such (coverage, planner), never as a missing price, and such a row
needs a document behind it.

Pinned values: skypilot-org/skypilot-catalog catalogs/v8/gcp/vms.csv @8427bbff988abdd050a9f51addd314ef31cb4e85,
read 2026-11-23 page by page. A GCP machine costs its VM row + the GPU row of the same zone; each case quotes both.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from accelfit.catalog import Catalog, load_catalog
from accelfit.cloudrules.coverage import coverage
from accelfit.catalog.models import Cloud
from accelfit.catalog.skypilot import Provenance, import_gcp
from accelfit.errors import InputError
from accelfit.reports.coverage_report import coverage_document, render_coverage

UPSTREAM = "skypilot-org/skypilot-catalog catalogs/v8/gcp/vms.csv @8427bbff988abdd050a9f51addd314ef31cb4e85"


@pytest.mark.parametrize(("sku", "region", "pricing", "hourly_usd"), [
    # a2-highgpu-1g asia-northeast1-a/-c: VM 0.94803 / spot 0.39794; A100 x1: 1.70586 / 1.1721
    ("a2-highgpu-1g", "asia-northeast1", "on-demand", 0.94803 + 1.70586),
    ("a2-highgpu-1g", "asia-northeast1", "spot", 0.39794 + 1.1721),
    # a2-highgpu-8g asia-northeast1: VM 7.58425 / 3.18352; A100 x8: 13.64686 / 9.3768
    ("a2-highgpu-8g", "asia-northeast1", "on-demand", 7.58425 + 13.64686),
    # a3-highgpu-1g us-central1-a/-b/-c: VM spot 0.34406; H100 x1 spot 2.8501
    ("a3-highgpu-1g", "us-central1", "spot", 0.34406 + 2.8501),
    # a3-highgpu-8g asia-northeast1-b: VM spot 2.76453; H100 x8 spot 25.8752
    ("a3-highgpu-8g", "asia-northeast1", "spot", 2.76453 + 25.8752),
    # a3-megagpu-8g us-east5-a: VM spot 2.2152; H100-MEGA x8 spot 17.204
    ("a3-megagpu-8g", "us-east5", "spot", 2.2152 + 17.204),
])
def test_filled_prices_match_the_upstream_rows(catalog: Catalog, sku, region, pricing, hourly_usd):
    row = catalog.price(Cloud.gcp, sku, region, pricing)
    assert row is not None and row.hourly_usd == pytest.approx(hourly_usd, abs=1e-5)
    assert UPSTREAM in row.source and not row.verified and row.as_of == dt.date(2026, 11, 23)


@pytest.mark.parametrize(("sku", "region"), [
    # H100 x8 asia-northeast1-b on-demand 33.60609 = 8 x 4.20076, the constant also seen in unrelated regions
    ("a3-highgpu-8g", "asia-northeast1"),
    ("a3-highgpu-1g", "us-west4"),  # H100 x1 4.20076: the old row built on it is gone too
    ("a3-ultragpu-8g", "us-east5"),  # H200 x8 36.60258
])
def test_on_demand_figures_at_the_mixed_up_constants_are_left_out(catalog: Catalog, sku, region):
    assert catalog.price(Cloud.gcp, sku, region, "on-demand") is None


def test_a_gpu_row_whose_spot_is_near_on_demand_stays_unpriced(catalog: Catalog):
    # A100 x1 asia-southeast1: 1.70586 / 1.5012 (88%): the importer rejects it as mixed-up SKUs
    assert catalog.price(Cloud.gcp, "a2-highgpu-1g", "asia-southeast1", "on-demand") is None


def _gcp_gpu_line(catalog: Catalog, pricing: str):
    return next(line for line in coverage(catalog) if (line.cloud, line.kind, line.pricing) == ("gcp", "gpu", pricing))


def test_a_not_sold_pair_is_reported_as_not_sold_never_as_missing(catalog: Catalog):
    rule = catalog.not_sold_rule(Cloud.gcp, "a4-highgpu-8g", "us-central1", "on-demand")
    assert rule is not None and "cluster-director/docs/choose-consumption-option" in rule.source
    assert "spot" in rule.sold_as and catalog.not_sold_rule(Cloud.gcp, "a4-highgpu-8g", "us-central1", "spot") is None
    on_demand = _gcp_gpu_line(catalog, "on-demand")
    assert not [pair for pair in on_demand.missing if pair[0] == "a4-highgpu-8g"]
    not_sold = [(sku, region) for sku, region, _ in on_demand.not_sold]
    assert ("a4-highgpu-8g", "us-central1") in not_sold
    # sold as Spot, so still a gap there (the upstream spot VM part is a 0.0 placeholder)
    assert ("a4-highgpu-8g", "us-central1") in _gcp_gpu_line(catalog, "spot").missing
    document = coverage_document(catalog)
    line = next(item for item in document["coverage"] if (item["cloud"], item["pricing"]) == ("gcp", "on-demand"))
    assert {"sku": "a4-highgpu-8g", "region": "us-central1"} not in line["missing"]
    assert any(item["sku"] == "a4-highgpu-8g" and item["source"] for item in line["not_sold"])
    text = render_coverage(catalog)
    assert "not sold this way" in text and "gcp a4-highgpu-8g on-demand" in text


def _write_not_sold(data_dir: Path, row: str) -> None:
    (data_dir / "not_sold_gcp.yaml").write_text(f"schema_version: 1\nnot_sold:\n  - {row}\n", encoding="utf-8")


def test_a_not_sold_row_without_a_source_fails_the_load(data_copy: Path):
    _write_not_sold(data_copy, '{cloud: gcp, sku: a4-highgpu-8g, pricing: on-demand, sold_as: [spot], '
                               'as_of: "2026-11-23"}')
    with pytest.raises(InputError) as caught:
        load_catalog(data_copy)
    assert any(problem.field.endswith(".source") for problem in caught.value.problems)


def test_a_not_sold_row_whose_source_names_no_document_fails_integrity(data_copy: Path):
    _write_not_sold(data_copy, '{cloud: gcp, sku: a4-highgpu-8g, pricing: on-demand, sold_as: [spot], '
                               'as_of: "2026-11-23", source: "everyone knows"}')
    with pytest.raises(InputError) as caught:
        load_catalog(data_copy)
    [found] = caught.value.problems
    assert found.field.endswith(".source") and "names no document" in found.message


def test_a_price_row_for_a_not_sold_key_fails_integrity(data_copy: Path):
    # a2-highgpu-1g us-central1 has an on-demand price row in prices_gcp.yaml
    _write_not_sold(data_copy, '{cloud: gcp, sku: a2-highgpu-1g, pricing: on-demand, regions: [us-central1], '
                               'sold_as: [spot], as_of: "2026-11-23", source: "https://example.com/doc"}')
    with pytest.raises(InputError) as caught:
        load_catalog(data_copy)
    [found] = caught.value.problems
    assert found.field.endswith(".pricing") and "us-central1" in found.message


def test_an_import_leaves_out_upstream_figures_for_a_way_the_cloud_does_not_sell(catalog: Catalog):
    upstream = ("InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,"
                "Price,SpotPrice\n"
                "a4-highgpu-8g,224.0,3968.0,,,,us-central1,us-central1-b,12.0,3.0\n"
                ",,,B200,8,,us-central1,us-central1-b,90.216,32.6064\n")
    result, problems = import_gcp(upstream, catalog, Provenance(as_of=dt.date(2026, 11, 23), source="fixture"))
    assert not problems
    assert [(row.sku, row.pricing.value) for row in result.prices] == [("a4-highgpu-8g", "spot")]
    assert any("does not sell" in reason for reason in result.skipped)


@pytest.mark.parametrize(("sku", "region", "offered"), [
    # No a3-highgpu-8g VM row upstream in europe-west2 (only a3-edgegpu-8g carries H100 there)
    ("a3-highgpu-8g", "europe-west2", False),
    ("a3-megagpu-8g", "asia-south1", False),   # H100-MEGA GPU row, but no a3-megagpu-8g VM row
    ("a2-megagpu-16g", "us-east1", False),     # A100 is there; A2 Mega is not
    ("a4-highgpu-8g", "europe-west1", False),
    ("a2-megagpu-16g", "asia-southeast1", True),  # asia-southeast1-c VM row 10.85126
    ("a3-highgpu-8g", "us-west4", True),          # us-west4-a VM row 10.65487
])
def test_gcp_machine_regions_follow_the_machine_type_list(catalog: Catalog, sku, region, offered):
    assert (region in catalog.instance_type(Cloud.gcp, sku).regions) is offered
