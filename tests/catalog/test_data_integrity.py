"""The packaged catalog data obeys the rules the planner relies on (one rule per test, table-driven)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import pytest

from accelfit.catalog import Catalog, Cloud, Precision, PricingModel, canonical_accelerator, canonical_names, load_catalog

CANONICAL = ["t4", "l4", "a10g", "l40s", "a100-40gb", "a100-80gb", "h100-80gb", "h200-141gb", "b200",
             "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"]
CATALOG = load_catalog()
ALL_FACTS = [*CATALOG.accelerators, *CATALOG.instance_types, *CATALOG.tpu_slices, *CATALOG.prices,
             *CATALOG.service_prices, *CATALOG.efficiency]


def _id(row) -> str:
    name = (getattr(row, "name", None) or getattr(row, "sku", None) or getattr(row, "service", None)
            or getattr(row, "accelerator", ""))
    return f"{type(row).__name__}:{name}"


def test_canonical_names_are_the_documented_ones(catalog: Catalog):
    assert [row.name for row in catalog.accelerators] == CANONICAL
    assert list(canonical_names()) == CANONICAL


@pytest.mark.parametrize("row", ALL_FACTS, ids=_id)
def test_every_fact_is_dated_and_sourced(row):
    assert dt.date(2024, 1, 1) <= row.as_of <= dt.date(2026, 12, 31)
    assert len(row.source.strip()) >= 10


@pytest.mark.parametrize("row", [r for r in ALL_FACTS if not r.verified], ids=_id)
def test_unverified_facts_say_why(row):
    words = ("recalled", "third-party", "not re-read", "not read", "judgement", "assumed", "inconsistent",
             "unreliable", "✱", "second-hand", "quoted", "origin not stated", "derived", "reused")
    assert any(word in row.source.lower() or word in getattr(row, "notes", "").lower() for word in words), row.source


@pytest.mark.parametrize("row", [*CATALOG.instance_types, *CATALOG.tpu_slices, *CATALOG.efficiency], ids=_id)
def test_every_offering_names_a_known_accelerator(catalog: Catalog, row):
    assert catalog.accelerator(row.accelerator).name == row.accelerator


@pytest.mark.parametrize("row", CATALOG.instance_types, ids=_id)
def test_instance_types_carry_gpus_within_server_limits(catalog: Catalog, row):
    chip = catalog.accelerator(row.accelerator)
    assert chip.kind == "gpu"
    assert 1 <= row.accelerator_count <= chip.max_per_server


@pytest.mark.parametrize("row", CATALOG.tpu_slices, ids=_id)
def test_tpu_topology_multiplies_to_chip_count(row):
    product = 1
    for side in row.topology.split("x"):
        product *= int(side)
    assert product == row.chips


@pytest.mark.parametrize("row", CATALOG.tpu_slices, ids=_id)
def test_tpu_chips_equal_hosts_times_chips_per_host(row):
    sub_host = row.hosts == 1 and row.chips <= row.chips_per_host
    assert sub_host or row.chips == row.hosts * row.chips_per_host


MACHINE_PREFIX = {"tpu-v4": "ct4p-", "tpu-v5e": "ct5lp-", "tpu-v5p": "ct5p-", "tpu-v6e": "ct6e-"}
CONFIG_TYPE = {"tpu-v4": "V4", "tpu-v5e": "V5LITE_POD", "tpu-v5p": "V5P", "tpu-v6e": "V6E"}
GKE_TPU_LABEL = {"tpu-v4": "tpu-v4-podslice", "tpu-v5e": "tpu-v5-lite-podslice", "tpu-v5p": "tpu-v5p-slice",
                 "tpu-v6e": "tpu-v6e-slice"}
NAME_PREFIX = {"tpu-v4": "v4-", "tpu-v5e": "v5litepod-", "tpu-v5p": "v5p-", "tpu-v6e": "v6e-"}


@pytest.mark.parametrize("row", CATALOG.tpu_slices, ids=_id)
def test_tpu_strings_match_their_generation(catalog: Catalog, row):
    assert row.gke_machine_type.startswith(MACHINE_PREFIX[row.accelerator])
    assert row.accelerator_config_type == CONFIG_TYPE[row.accelerator]
    assert row.gke_accelerator == GKE_TPU_LABEL[row.accelerator]
    cores = catalog.accelerator(row.accelerator).tensorcores_per_chip
    assert row.name == f"{NAME_PREFIX[row.accelerator]}{row.chips * cores}"


@pytest.mark.parametrize("row", [r for r in CATALOG.tpu_slices if r.accelerator in ("tpu-v5e", "tpu-v6e")], ids=_id)
def test_v5e_v6e_single_host_slices_use_the_matching_machine_and_multi_host_the_4t(row):
    if row.chips <= 8:
        assert row.hosts == 1 and row.gke_machine_type.endswith(f"-{row.chips}t")
    else:
        assert row.gke_machine_type.endswith("-4t") and row.hosts == row.chips // 4


@pytest.mark.parametrize(("generation", "names"), [
    ("tpu-v5e", [f"v5litepod-{n}" for n in (1, 4, 8, 16, 32, 64, 128, 256)]),
    ("tpu-v6e", [f"v6e-{n}" for n in (1, 4, 8, 16, 32, 64, 128, 256)]),
    ("tpu-v5p", [f"v5p-{n}" for n in (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 12288)]),
    ("tpu-v4", ["v4-8", "v4-128"]),
])
def test_required_tpu_shapes_exist(catalog: Catalog, generation, names):
    present = {row.name for row in catalog.tpu_slices_for(generation)}
    assert set(names) <= present


@pytest.mark.parametrize("row", [r for r in CATALOG.instance_types if r.cloud is Cloud.gcp], ids=_id)
def test_gcp_accelerator_string_maps_back_to_the_accelerator(row):
    assert row.gke_accelerator is not None
    assert canonical_accelerator(row.gke_accelerator) == row.accelerator


@pytest.mark.parametrize("row", [r for r in CATALOG.instance_types if r.cloud is Cloud.aws], ids=_id)
def test_aws_rows_have_no_gcp_fields_and_efa_fits_network_cards(row):
    assert row.gke_accelerator is None and row.gpudirect == "none" and row.extra_networks == 0
    assert row.efa_interfaces <= row.network_cards


@pytest.mark.parametrize(("cloud", "name", "efa", "gpudirect", "extra"), [
    ("aws", "p5.48xlarge", 32, "none", 0),
    ("aws", "p5en.48xlarge", 16, "none", 0),
    ("aws", "p6-b200.48xlarge", 8, "none", 0),
    ("aws", "p4d.24xlarge", 4, "none", 0),
    ("aws", "p4de.24xlarge", 4, "none", 0),
    ("aws", "g6e.48xlarge", 4, "none", 0),
    ("aws", "g5.12xlarge", 1, "none", 0),
    ("aws", "g6.xlarge", 0, "none", 0),
    ("gcp", "a3-highgpu-8g", 0, "tcpx", 4),
    ("gcp", "a3-megagpu-8g", 0, "tcpxo", 8),
    ("gcp", "a3-ultragpu-8g", 0, "rdma", 8),
    ("gcp", "a4-highgpu-8g", 0, "rdma", 8),
    ("gcp", "a2-highgpu-8g", 0, "none", 0),
])
def test_fabric_of_named_instance_types(catalog: Catalog, cloud, name, efa, gpudirect, extra):
    row = catalog.instance_type(cloud, name)
    assert row is not None
    assert (row.efa_interfaces, row.gpudirect, row.extra_networks) == (efa, gpudirect, extra)


@pytest.mark.parametrize(("family", "gke"), [
    ("g2", "nvidia-l4"), ("a2-high", "nvidia-tesla-a100"), ("a2-mega", "nvidia-tesla-a100"),
    ("a2-ultra", "nvidia-a100-80gb"), ("a3-high", "nvidia-h100-80gb"), ("a3-mega", "nvidia-h100-mega-80gb"),
    ("a3-ultra", "nvidia-h200-141gb"), ("a4", "nvidia-b200"),
])
def test_gcp_families_use_their_gke_strings(catalog: Catalog, family, gke):
    rows = [row for row in catalog.instance_types_for("gcp") if row.family == family]
    assert rows and {row.gke_accelerator for row in rows} == {gke}


@pytest.mark.parametrize("family", ["g4dn", "g5", "g6", "g6e", "p4d", "p4de", "p5", "p5en", "p6-b200"])
def test_required_aws_families_are_present_and_priced_in_us_east_1(catalog: Catalog, family):
    rows = [row for row in catalog.instance_types_for("aws") if row.family == family]
    assert rows
    assert all(catalog.price("aws", row.name, "us-east-1") is not None for row in rows)


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_names_round_trip_through_every_alias(catalog: Catalog, name):
    row = catalog.accelerator(name)
    for alias in (row.name, *row.aliases, row.name.upper(), *(a.upper() for a in row.aliases)):
        assert canonical_accelerator(alias) == name
        assert catalog.canonical(alias) == name


@pytest.mark.parametrize(("name", "precision", "supported"), [
    ("t4", "bf16", False), ("t4", "fp16", True), ("t4", "fp8", False), ("t4", "tf32", False),
    ("a10g", "fp8", False), ("a100-40gb", "fp8", False), ("a100-80gb", "fp8", False), ("a100-80gb", "bf16", True),
    ("h100-80gb", "fp8", True), ("h200-141gb", "fp8", True), ("b200", "fp8", True), ("l4", "fp8", True),
    ("l40s", "fp8", True), ("tpu-v5p", "fp8", False), ("tpu-v5e", "bf16", True), ("tpu-v6e", "int8", True),
])
def test_precision_support(catalog: Catalog, name, precision, supported):
    assert catalog.accelerator(name).supports(Precision(precision)) is supported


def test_fp8_only_on_hopper_blackwell_and_ada(catalog: Catalog):
    with_fp8 = {row.name for row in catalog.accelerators if row.supports(Precision.fp8)}
    assert with_fp8 == {"h100-80gb", "h200-141gb", "b200", "l4", "l40s"}


@pytest.mark.parametrize("row", CATALOG.accelerators, ids=_id)
def test_peaks_are_ordered_by_precision(row):
    peaks = {precision.value: value for precision, value in row.dense_tflops.items()}
    assert "bf16" in peaks or row.name == "t4"
    if "fp8" in peaks:
        assert peaks["fp8"] >= peaks["bf16"]
    if "fp4" in peaks:
        assert peaks["fp4"] >= peaks["fp8"]
    if "fp32" in peaks and "bf16" in peaks:
        if row.kind == "tpu":  # XLA multiplies fp32 matrices in one bf16 pass by default: the bf16 rate
            assert peaks["fp32"] == peaks["bf16"] and "bfloat16" in row.peak_sources[Precision.fp32]
        else:
            assert peaks["fp32"] < peaks["bf16"]


def test_fp4_only_on_blackwell(catalog: Catalog):
    assert {row.name for row in catalog.accelerators if row.supports(Precision.fp4)} == {"b200"}


@pytest.mark.parametrize("name", CANONICAL)
def test_every_accelerator_has_an_mfu_figure(catalog: Catalog, name):
    assert 0.2 <= catalog.mfu(name).mfu <= 0.75


def _by_market(catalog: Catalog):
    table: dict[tuple, dict[PricingModel, float]] = defaultdict(dict)
    for price in catalog.prices:
        table[(price.cloud, price.sku, price.region)][price.pricing] = price.hourly_usd
    return table


@pytest.mark.parametrize(("key", "models"), list(_by_market(CATALOG).items()), ids=lambda v: str(v)[:60])
def test_discounts_are_cheaper_than_on_demand(key, models):
    on_demand = models.get(PricingModel.on_demand)
    if on_demand is None:
        pytest.skip("no on-demand figure in this region")
    for model in (PricingModel.spot, PricingModel.committed_1y, PricingModel.committed_3y):
        if model in models:
            assert models[model] < on_demand
    if PricingModel.committed_1y in models and PricingModel.committed_3y in models:
        assert models[PricingModel.committed_3y] < models[PricingModel.committed_1y]


@pytest.mark.parametrize("row", CATALOG.prices, ids=_id)
def test_every_price_names_an_offering_in_its_region(catalog: Catalog, row):
    if row.unit == "chip-hour":
        # A TPU price covers a region; which zones have the generation is availability data, not a price.
        assert catalog.accelerator(row.sku).kind == "tpu"
    else:
        instance = catalog.instance_type(row.cloud, row.sku)
        assert instance is not None and row.region in instance.regions


@pytest.mark.parametrize("generation", ["tpu-v5e", "tpu-v5p", "tpu-v6e"])
@pytest.mark.parametrize("pricing", ["on-demand", "spot"])
def test_current_tpus_are_priced_in_us_central1(catalog: Catalog, generation, pricing):
    assert catalog.price("gcp", generation, "us-central1", pricing) is not None


@pytest.mark.parametrize(("cloud", "service"), [
    ("gcp", "gcs-standard"), ("gcp", "filestore-zonal"), ("gcp", "filestore-basic-hdd"), ("gcp", "pd-balanced"),
    ("gcp", "egress-internet"), ("gcp", "gke-cluster"), ("gcp", "nat-hour"), ("gcp", "nat-data"),
    ("aws", "s3-standard"), ("aws", "fsx-lustre-persistent2-125"), ("aws", "fsx-lustre-persistent2-250"),
    ("aws", "fsx-lustre-scratch2"), ("aws", "ebs-gp3"), ("aws", "egress-internet"), ("aws", "eks-cluster"),
    ("aws", "nat-hour"), ("aws", "nat-data"),
])
def test_service_prices_exist_everywhere(catalog: Catalog, cloud, service):
    assert catalog.service_price(cloud, service, "some-region-1") is not None


@pytest.mark.parametrize(("cloud", "service"), [("gcp", "gke-cluster"), ("aws", "eks-cluster")])
def test_cluster_fees_are_ten_cents_an_hour(catalog: Catalog, cloud, service):
    found = catalog.service_price(cloud, service, "*")
    assert found is not None and found.unit == "hour" and found.usd == pytest.approx(0.10)


def test_every_file_declares_the_schema_version_and_a_header():
    from accelfit.catalog import DATA_DIR

    for path in sorted(DATA_DIR.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("#"), f"{path.name} needs a comment header"
        assert "\nschema_version: 1\n" in text, path.name
