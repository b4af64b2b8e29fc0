"""`accelfit catalog --coverage`: every offered (SKU, region) pair counted per cloud, kind and pricing model."""

from __future__ import annotations

from accelfit.cloudrules.coverage import coverage, offered_pairs
from accelfit.reports.coverage_report import coverage_document, render_coverage


def _line(catalog, cloud, kind, pricing):
    return next(line for line in coverage(catalog) if (line.cloud, line.kind, line.pricing) == (cloud, kind, pricing))


def test_offered_pairs_come_from_the_availability_data(catalog):
    pairs = offered_pairs(catalog)
    expected = sum(len(row.regions) for row in catalog.instance_types_for("aws"))
    assert len(pairs[("aws", "gpu")]) == expected
    assert ("p5e.48xlarge", "us-east-2") in pairs[("aws", "gpu")]


def test_priced_plus_missing_is_offered_and_missing_pairs_have_no_price(catalog):
    for line in coverage(catalog):
        assert line.priced + len(line.missing) == line.offered
        assert all(catalog.price(line.cloud, sku, region, line.pricing) is None for sku, region in line.missing)
    # p5e is sold through Capacity Blocks only: never priced on demand here.
    assert ("p5e.48xlarge", "us-east-2") in _line(catalog, "aws", "gpu", "on-demand").missing


def test_reports_name_the_catalog_and_the_fill_command(catalog):
    text = render_coverage(catalog)
    assert text.startswith("Catalog: shipped snapshot") and "accelfit catalog update" in text
    assert "| cloud |" in render_coverage(catalog, markdown=True)
    document = coverage_document(catalog)
    assert document["catalog"]["kind"] == "shipped"
    assert {line["pricing"] for line in document["coverage"]} == {
        "on-demand", "spot", "committed-1y", "committed-3y", "flex-start", "capacity-block"}
    assert "reservation: never a price row" in text and "no Savings Plans or Reserved Instance rate" in text


def test_coverage_is_shown_per_pricing_model_only_where_the_cloud_sells_it(catalog):
    lines = {(line.cloud, line.kind, line.pricing): line for line in coverage(catalog)}
    # flex-start is GCP's, Capacity Blocks AWS's: neither is a gap on the other cloud.
    assert ("aws", "gpu", "flex-start") not in lines and ("gcp", "gpu", "capacity-block") not in lines
    blocks = lines[("aws", "gpu", "capacity-block")]
    assert {sku for sku, _ in blocks.missing} <= {"p4d.24xlarge", "p4de.24xlarge", "p5.4xlarge", "p5.48xlarge",
                                                  "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"}
    assert blocks.priced == 5  # us-east-1 rates only
    # No AWS committed rate could be sourced: every pair is a gap, shown as one.
    assert lines[("aws", "gpu", "committed-1y")].priced == 0 and lines[("aws", "gpu", "committed-1y")].offered > 0
    assert lines[("gcp", "tpu", "committed-1y")].priced == 4
