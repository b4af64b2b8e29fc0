"""`accelfit catalog --coverage`: every offered (SKU, region) pair counted per cloud, kind and pricing model."""

from __future__ import annotations

from accelfit.catalog.coverage import coverage, offered_pairs
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
    assert {line["pricing"] for line in document["coverage"]} == {"on-demand", "spot"}
