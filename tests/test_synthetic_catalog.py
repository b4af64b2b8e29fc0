"""The benchmark's synthetic SkyPilot catalog (benchmarks/synthetic_skypilot.py) has the upstream size and layout,
and the real importer (`accelfit catalog update`) accepts it and keeps every GPU type and TPU generation accelfit
describes."""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
from pathlib import Path

import pytest

from accelfit.catalog import DATA_DIR, load_catalog, skypilot
from accelfit.catalog.update import update_catalog

_SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "synthetic_skypilot.py"
_SPEC = importlib.util.spec_from_file_location("synthetic_skypilot", _SCRIPT)
assert _SPEC is not None and _SPEC.loader is not None
synthetic = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(synthetic)


def test_full_scale_files_have_the_upstream_size_and_header(tmp_path):
    sizes = synthetic.write_catalog(tmp_path, scale=1.0)
    # Filled row by row up to the upstream character counts (one row over at most).
    assert 0 <= sizes["aws/vms.csv"] - synthetic.UPSTREAM_AWS_CHARS < 400
    assert 0 <= sizes["gcp/vms.csv"] - synthetic.UPSTREAM_GCP_CHARS < 200
    for name, header in (("aws/vms.csv", synthetic.AWS_HEADER), ("gcp/vms.csv", synthetic.GCP_HEADER)):
        with (tmp_path / name).open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        assert rows[0] == header.split(",")
        assert all(len(row) == len(rows[0]) for row in rows), name  # GpuInfo's commas stay quoted
    with (tmp_path / "gcp/vms.csv").open(encoding="utf-8", newline="") as handle:
        gcp = list(csv.DictReader(handle))
    kinds = {("vm" if row["InstanceType"] else "tpu" if row["AcceleratorName"].startswith("tpu-") else "gpu")
             for row in gcp}
    assert kinds == {"vm", "gpu", "tpu"}  # GCP's split VM + GPU rows, and TPU slice rows
    assert "tpu-v5p-12288" in {row["AcceleratorName"] for row in gcp}


def test_the_importer_accepts_it_and_keeps_every_described_type(tmp_path):
    shipped = load_catalog(DATA_DIR)
    synthetic.write_catalog(tmp_path / "v8", scale=0.05)
    summary = update_catalog(str(tmp_path / "v8"), base=tmp_path / "catalog", today=dt.date(2026, 11, 23))
    assert all(summary.prices[(cloud, pricing)] > 0 for cloud in ("aws", "gcp") for pricing in ("on-demand", "spot"))
    imported = load_catalog(DATA_DIR, summary.directory)
    offered = {(row.cloud.value, row.sku) for row in imported.availability if "skypilot" in row.source}
    described = {(row.cloud.value, row.name) for row in shipped.instance_types}
    assert described <= offered
    assert {("gcp", generation) for generation in ("tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e")} <= offered
    # What upstream holds beyond accelfit's types is skipped with a reason, as for the real file.
    assert summary.skipped and summary.files["aws/vms.csv"]["rows"] > 1000


@pytest.mark.parametrize("scale", [0.05, 0.5])
def test_output_is_deterministic(tmp_path, scale):
    synthetic.write_catalog(tmp_path / "a", scale=scale)
    synthetic.write_catalog(tmp_path / "b", scale=scale)
    for name in (skypilot.AWS_FILE, skypilot.GCP_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
