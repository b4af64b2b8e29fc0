"""`accelfit catalog update`: SkyPilot catalog v8 rows become dated, sourced price and availability rows; the
import is checked like the shipped data and swapped in atomically; failures leave the previous catalog alone.

The fixtures (fixtures/skypilot_v8) are hand-written in the upstream layout; nothing here reads ../shared.
"""

from __future__ import annotations

import datetime as dt
import shutil
import urllib.error
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog, skypilot, store
from accelfit.catalog.models import Cloud, PricingModel
from accelfit.catalog.update import update_catalog
from accelfit.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "skypilot_v8"
TODAY = dt.date(2026, 11, 23)
PROVENANCE = skypilot.Provenance(TODAY, "skypilot-catalog v8 test fixture")


@pytest.fixture()
def shipped():
    return load_catalog()


def _text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _price(result, sku, region, pricing):
    found = [row for row in result.prices if (row.sku, row.region, row.pricing.value) == (sku, region, pricing)]
    return found[0].hourly_usd if found else None


def test_aws_rows_give_regional_prices_and_az_ids(shipped):
    result, problems = skypilot.import_aws(_text("aws/vms.csv"), shipped, PROVENANCE)
    assert problems == []
    assert _price(result, "g6.xlarge", "eu-west-3", "on-demand") == 0.9776
    assert _price(result, "g6.xlarge", "eu-west-3", "spot") == 0.3124  # the highest zone, so it holds in any zone
    zones = {(row.sku, row.region): row.zones for row in result.availability}
    assert zones[("g6.xlarge", "eu-west-3")] == ("euw3-az1", "euw3-az3")
    # The local zone (use1-atl2-az1, spot 13.1) is neither an offer nor the spot figure.
    assert zones[("p5.48xlarge", "us-east-1")] == ("use1-az4", "use1-az6")
    assert _price(result, "p5.48xlarge", "us-east-1", "spot") == 25.7522
    every_row = result.prices + result.availability
    assert all(row.as_of == TODAY and "test fixture" in row.source for row in every_row)


def test_aws_type_without_on_demand_price_is_available_but_unpriced(shipped):
    result, _ = skypilot.import_aws(_text("aws/vms.csv"), shipped, PROVENANCE)
    assert ("p5e.48xlarge", "us-east-2") in {(row.sku, row.region) for row in result.availability}
    assert not [row for row in result.prices if row.sku == "p5e.48xlarge"]


def test_aws_types_without_a_hardware_description_are_skipped_and_reported(shipped):
    result, _ = skypilot.import_aws(_text("aws/vms.csv"), shipped, PROVENANCE)
    assert {row.sku for row in result.availability} == {"g6.xlarge", "p5.48xlarge", "p5e.48xlarge"}
    skipped = {name for names in result.skipped.values() for name in names}
    assert "g6f.large" in skipped and "m5.large" not in skipped  # CPU-only rows are not GPU types


def test_aws_row_disagreeing_about_the_gpus_is_a_problem(shipped):
    text = _text("aws/vms.csv").replace("p5.48xlarge,H100,8.0", "p5.48xlarge,H100,4.0", 1)
    _, problems = skypilot.import_aws(text, shipped, PROVENANCE)
    assert len(problems) == 1 and problems[0].field == "line 8" and "4.0 x H100" in problems[0].message


def test_gcp_machine_price_is_the_vm_row_plus_the_gpu_row_of_its_zone(shipped):
    result, problems = skypilot.import_gcp(_text("gcp/vms.csv"), shipped, PROVENANCE)
    assert problems == []
    assert _price(result, "g2-standard-4", "us-central1", "on-demand") == round(0.14825 + 0.56004, 5)
    assert _price(result, "g2-standard-4", "us-west3", "spot") == round(0.07109 + 0.26772, 5)
    zones = {(row.sku, row.region): row.zones for row in result.availability}
    assert zones[("g2-standard-4", "us-central1")] == ("us-central1-a", "us-central1-b")


def test_gcp_no_price_placeholders_never_become_prices(shipped):
    result, _ = skypilot.import_gcp(_text("gcp/vms.csv"), shipped, PROVENANCE)
    # a4-highgpu-8g: VM row 0.0 and no B200 GPU row -> available, not priced.
    assert ("a4-highgpu-8g", "us-central1") in {(row.sku, row.region) for row in result.availability}
    assert not [row for row in result.prices if row.sku == "a4-highgpu-8g"]
    # tpu-v6e-4 at 700 (fetch_gcp.py's TPU_V6E_MAX_PRICE) is "no price".
    assert _price(result, "tpu-v6e", "us-east5", "on-demand") is None


def test_gcp_tpu_slice_prices_become_chip_hour_prices(shipped):
    result, _ = skypilot.import_gcp(_text("gcp/vms.csv"), shipped, PROVENANCE)
    assert _price(result, "tpu-v5p", "us-central1", "on-demand") == pytest.approx(16.8 / 4)  # v5p-8 = 4 chips
    assert _price(result, "tpu-v6e", "us-central1", "spot") == pytest.approx(0.54421)
    assert [row.unit for row in result.prices if row.sku.startswith("tpu-")] == ["chip-hour"] * 4
    assert "tpu-v3-8" in {name for names in result.skipped.values() for name in names}


def test_a_file_without_the_upstream_columns_is_refused_naming_the_file(shipped):
    _, problems = skypilot.import_gcp("name,price\nx,1\n", shipped, PROVENANCE)
    assert problems[0].file == "gcp/vms.csv" and "AvailabilityZone" in problems[0].message


@pytest.mark.parametrize("text", ["", "nan", "0.0", "-1", "abc"])
def test_price_cell_placeholders(text):
    assert skypilot.price_cell(text) is None


# ------------------------------------------------------------------------------------------------ update


def test_update_installs_a_dated_sourced_catalog_that_load_catalog_uses(tmp_path, monkeypatch):
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path))
    summary = update_catalog(str(FIXTURES), today=TODAY)
    assert summary.directory == tmp_path / "imported"
    assert ("aws", "g6.xlarge", "eu-west-3") in summary.new_regions
    assert ("gcp", "g2-standard-4", "us-west3") in summary.new_regions
    catalog = load_catalog()
    assert catalog.origin.kind == "imported" and catalog.origin.as_of == TODAY
    assert catalog.origin.source == str(FIXTURES)
    assert "eu-west-3" in catalog.instance_type("aws", "g6.xlarge").regions
    imported = catalog.price("aws", "g6.xlarge", "us-east-1", PricingModel.spot)
    assert imported.hourly_usd == 0.4011 and imported.as_of == TODAY  # the imported row replaced the shipped one
    # Rows the import does not cover stay as shipped, with their own date and source.
    assert catalog.price("aws", "p4d.24xlarge", "us-east-1").as_of < TODAY
    assert not list(tmp_path.glob(".import-*")) and not list(tmp_path.glob(".previous-*"))


def test_network_failure_exits_2_and_keeps_the_previous_catalog(tmp_path, monkeypatch):
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path))
    update_catalog(str(FIXTURES), today=TODAY)
    before = {path.name: path.read_bytes() for path in (tmp_path / "imported").iterdir()}

    def unreachable(url: str) -> bytes:
        raise urllib.error.URLError("Temporary failure in name resolution")

    with pytest.raises(InputError) as caught:
        update_catalog("https://catalog.invalid/catalogs/v8", fetch=unreachable, today=TODAY + dt.timedelta(1))
    (problem,) = caught.value.problems
    assert problem.file == "https://catalog.invalid/catalogs/v8/aws/vms.csv"
    assert "could not download" in problem.message and "--from DIR" in problem.fix
    assert {path.name: path.read_bytes() for path in (tmp_path / "imported").iterdir()} == before
    assert load_catalog().origin.as_of == TODAY


def test_an_import_failing_the_integrity_checks_is_not_installed(tmp_path, monkeypatch):
    source = tmp_path / "upstream"
    shutil.copytree(FIXTURES, source)
    # A price in a zone with a mismatched region name breaks the GCP zone rule of the availability data.
    csv = source / "gcp" / "vms.csv"
    csv.write_text(csv.read_text().replace("us-west3,us-west3-b,0.17790", "us-west3,us-west4-b,0.17790"))
    base = tmp_path / "catalog"
    monkeypatch.setenv(store.ENV_VAR, str(base))
    with pytest.raises(InputError) as caught:
        update_catalog(str(source), today=TODAY)
    assert any("zones" in problem.field for problem in caught.value.problems)
    assert store.imported_dir(base) is None and not list(base.glob(".import-*"))
    assert load_catalog().origin.kind == "shipped"


def test_only_https_urls_and_directories(tmp_path, monkeypatch):
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path))
    with pytest.raises(InputError) as caught:
        update_catalog("http://example.com/v8")
    assert "https" in caught.value.problems[0].fix
    with pytest.raises(InputError) as caught:
        update_catalog(str(tmp_path / "missing"))
    assert caught.value.problems[0].file.endswith("aws/vms.csv")


def test_catalog_dir_default_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv(store.ENV_VAR)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert store.catalog_dir() == tmp_path / "accelfit" / "catalog"


def test_availability_drives_offers_not_prices(shipped):
    """A shipped price in a region the availability data does not list is refused by the integrity checks."""
    assert shipped.offered_zones(Cloud.gcp, "a3-ultragpu-8g", "us-central1") == ("us-central1-b",)
    assert shipped.offered_zones(Cloud.aws, "p5.48xlarge", "eu-west-3") is None


def test_gcp_gpu_rows_with_spot_near_on_demand_are_not_imported(shipped):
    """fetch_gcp.py can pick a DWS/flex-start SKU for a GPU row; its spot then sits at or near on-demand."""
    text = _text("gcp/vms.csv").replace("us-west3,us-west3-b,0.67205,0.26772", "us-west3,us-west3-b,0.30000,0.26772")
    result, _ = skypilot.import_gcp(text, shipped, PROVENANCE)
    assert _price(result, "g2-standard-4", "us-west3", "on-demand") is None
    assert _price(result, "g2-standard-4", "us-west3", "spot") is None
    assert ("g2-standard-4", "us-west3") in {(row.sku, row.region) for row in result.availability}


def test_family_and_tpu_zone_lookups_read_the_one_availability_model(shipped):
    assert shipped.gpu_zones_in("gcp", "a3-ultra", "us-central1") == ("us-central1-b",)
    assert shipped.gpu_zones_in("gcp", "a3-ultra", "antarctica-south1") is None
    assert "us-central1-b" in shipped.available_zones("a4-highgpu-8g")
