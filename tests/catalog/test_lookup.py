"""Lookups answer from the catalog's indexes: aliases, filters, prices, services, MFU."""

from __future__ import annotations

import pytest

from accelfit.buying import buying_model_names

from accelfit.catalog import Catalog, Cloud, PricingModel, UnknownAcceleratorError


@pytest.mark.parametrize(("alias", "canonical"), [
    ("H100", "h100-80gb"), ("nvidia-h100-mega-80gb", "h100-80gb"), ("v5litepod", "tpu-v5e"), ("Trillium", "tpu-v6e"),
    ("nvidia tesla a100", "a100-40gb"), ("tpu_v5p_slice", "tpu-v5p"),
])
def test_accelerator_accepts_aliases(catalog: Catalog, alias, canonical):
    assert catalog.accelerator(alias).name == canonical


def test_unknown_accelerator_suggests(catalog: Catalog):
    with pytest.raises(UnknownAcceleratorError) as caught:
        catalog.accelerator("h10")
    assert caught.value.suggestion == "h100-80gb"
    assert "tpu-v6e" in caught.value.known


@pytest.mark.parametrize(("cloud", "accelerator", "region", "expected"), [
    ("aws", "h100", "us-east-1", {"p5.4xlarge", "p5.48xlarge"}),
    ("gcp", "h200", "us-central1", {"a3-ultragpu-8g"}),
    ("gcp", "a100-40gb", None, {"a2-highgpu-1g", "a2-highgpu-2g", "a2-highgpu-4g", "a2-highgpu-8g", "a2-megagpu-16g"}),
    ("aws", "b200", "eu-west-1", set()),
    ("gcp", "l4", "us-east1", {f"g2-standard-{n}" for n in (4, 8, 12, 16, 24, 32, 48, 96)}),
])
def test_instance_types_for(catalog: Catalog, cloud, accelerator, region, expected):
    assert {row.name for row in catalog.instance_types_for(cloud, accelerator, region)} == expected


def test_instance_types_for_without_filters_lists_everything(catalog: Catalog):
    assert len(catalog.instance_types_for()) == len(catalog.instance_types)


@pytest.mark.parametrize(("generation", "zone", "region", "smallest", "count"), [
    ("v5p", "us-east5-a", None, "v5p-8", 13),
    ("v6e", None, "us-central1", "v6e-1", 8),
    ("v6e", "us-central1-a", None, None, 0),  # Google lists v6e in us-central1-b only
    ("v5e", "asia-northeast1-b", None, None, 0),
    ("tpu-v4", None, "us-central2", "v4-8", 10),
])
def test_tpu_slices_for(catalog: Catalog, generation, zone, region, smallest, count):
    rows = catalog.tpu_slices_for(generation, zone=zone, region=region)
    assert len(rows) == count
    assert (rows[0].name if rows else None) == smallest
    assert [row.chips for row in rows] == sorted(row.chips for row in rows)


@pytest.mark.parametrize(("cloud", "sku", "region", "pricing", "usd"), [
    ("aws", "p5.48xlarge", "us-east-1", "on-demand", 55.04),
    ("aws", "p5.48xlarge", "us-west-2", PricingModel.on_demand, 55.04),
    (Cloud.gcp, "tpu-v5p", "us-central1", "on-demand", 4.2),
    ("gcp", "tpu-v6e", "us-east5", "spot", 1.215),
    ("gcp", "a2-highgpu-1g", "us-central1", "committed-1y", 2.314),
])
def test_price(catalog: Catalog, cloud, sku, region, pricing, usd):
    found = catalog.price(cloud, sku, region, pricing)
    assert found is not None and found.hourly_usd == pytest.approx(usd)


@pytest.mark.parametrize(("cloud", "sku", "region", "pricing"), [
    ("aws", "p5e.48xlarge", "us-east-2", "on-demand"),   # Capacity Blocks only
    ("gcp", "a4-highgpu-8g", "us-central1", "on-demand"),  # no public price found
    ("aws", "p5.48xlarge", "us-east-1", "committed-1y"),
])
def test_missing_price_is_none(catalog: Catalog, cloud, sku, region, pricing):
    assert catalog.price(cloud, sku, region, pricing) is None


def test_slice_price_is_chip_price_times_chips(catalog: Catalog):
    v5p_128 = catalog.tpu_slice("v5p-128")
    assert v5p_128 is not None and v5p_128.chips == 64
    assert catalog.tpu_slice_hourly_usd(v5p_128, "us-central1") == pytest.approx(4.2 * 64)
    assert catalog.tpu_slice_hourly_usd(v5p_128, "asia-east1") is None


def test_service_price_falls_back_to_the_cloud_wide_row(catalog: Catalog):
    regional = catalog.service_price("gcp", "gcs-standard", "us-central1")
    fallback = catalog.service_price("gcp", "gcs-standard", "europe-west4")
    assert regional is not None and regional.region == "us-central1"
    assert fallback is not None and fallback.region == "*"
    assert catalog.service_price("aws", "no-such-service", "us-east-1") is None


def test_mfu_accepts_aliases(catalog: Catalog):
    assert catalog.mfu("v5p").mfu == pytest.approx(0.60)
    assert catalog.mfu("H100").accelerator == "h100-80gb"


def test_prices_for_is_sorted_by_region_then_pricing(catalog: Catalog):
    rows = catalog.prices_for("gcp", "tpu-v6e")
    keys = [(row.region, buying_model_names().index(row.pricing)) for row in rows]
    assert keys == sorted(keys) and len(rows) >= 6


def test_multi_host_and_regions_are_derived(catalog: Catalog):
    single, multi = catalog.tpu_slice("v6e-8"), catalog.tpu_slice("v6e-16")
    assert single is not None and multi is not None
    assert not single.multi_host and multi.multi_host
    regions = catalog.available_regions(multi.accelerator)
    assert "us-central1" in regions and "us-central1-b" not in regions
