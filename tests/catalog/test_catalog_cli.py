"""`accelfit catalog` through click's runner: the JSON contract, filters, and invalid options."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from accelfit.cli.catalog_command import catalog
from accelfit.errors import InputError


def _run(*args: str):
    return CliRunner().invoke(catalog, list(args))


def _json(*args: str) -> dict:
    result = _run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_gcp_json_lists_current_tpu_slices_with_topology_zones_and_dated_prices():
    document = _json("--cloud", "gcp")
    assert {"schema_version", "accelerators", "instance_types", "tpu_slices"} <= set(document)
    by_generation: dict[str, list[dict]] = {}
    for row in document["tpu_slices"]:
        by_generation.setdefault(row["accelerator"], []).append(row)
    for generation in ("tpu-v5e", "tpu-v5p", "tpu-v6e"):
        rows = by_generation[generation]
        assert rows
        for row in rows:
            assert row["topology"] and row["zones"] and row["chips"] >= 1 and row["hosts"] >= 1
            assert row["prices"], row["name"]
            for price in row["prices"]:
                assert price["as_of"] and price["source"] and price["pricing"] and price["region"]
                assert price["hourly_usd"] == pytest.approx(price["chip_hourly_usd"] * row["chips"], rel=1e-6)
    assert all(row["cloud"] == "gcp" for row in document["instance_types"])


def test_v5p_128_slice_price_in_json():
    document = _json("--accelerator", "v5p", "--region", "us-central1")
    row = next(row for row in document["tpu_slices"] if row["name"] == "v5p-128")
    assert row["topology"] == "4x4x4" and row["hosts"] == 16
    on_demand = next(p for p in row["prices"] if p["pricing"] == "on-demand")
    assert on_demand["hourly_usd"] == pytest.approx(268.8) and on_demand["region"] == "us-central1"
    assert {p["region"] for p in row["prices"]} == {"us-central1"}


def test_aws_json_instance_prices_carry_date_source_and_verified():
    document = _json("--cloud", "aws", "--accelerator", "H100")
    assert document["tpu_slices"] == []
    assert [a["name"] for a in document["accelerators"]] == ["h100-80gb"]
    p5 = next(row for row in document["instance_types"] if row["name"] == "p5.48xlarge")
    assert p5["efa_interfaces"] == 32
    assert {(p["pricing"], p["region"]) for p in p5["prices"]} >= {("on-demand", "us-east-1"), ("spot", "us-east-1")}
    assert all(set(p) >= {"pricing", "region", "hourly_usd", "as_of", "source", "verified"} for p in p5["prices"])


def test_kind_tpu_on_aws_is_empty_but_fine():
    result = _run("--cloud", "aws", "--kind", "tpu")
    assert result.exit_code == 0 and "no catalog entries" in result.output


@pytest.mark.parametrize("args", [(), ("--markdown",), ("--cloud", "gcp", "--kind", "tpu")])
def test_table_outputs_render(args):
    result = _run(*args)
    assert result.exit_code == 0, result.output
    assert "v5litepod-16" in result.output or "p5.48xlarge" in result.output
    if "--markdown" in args:
        assert "| slice |" in result.output


def test_table_shows_tpu_topology_hosts_and_dates():
    result = _run("--accelerator", "tpu-v6e")
    line = next(line for line in result.output.splitlines() if line.startswith("v6e-256 "))
    assert "16x16" in line and " 64 " in line and "691.20" in line and "2026-" in line


def test_unknown_accelerator_is_invalid_input_with_a_suggestion():
    result = _run("--accelerator", "h1000")
    assert result.exit_code != 0
    assert isinstance(result.exception, InputError)
    (problem,) = result.exception.problems
    assert problem.field == "--accelerator" and "h100-80gb" in problem.fix


def test_unknown_region_is_invalid_input():
    result = _run("--region", "us-central1-a")
    assert isinstance(result.exception, InputError)
    assert "us-central1" in result.exception.problems[0].fix


def test_json_and_markdown_are_exclusive():
    result = _run("--json", "--markdown")
    assert result.exit_code == 2 and "exclusive" in result.output


def test_main_turns_unknown_accelerator_into_exit_2(capsys):
    from accelfit.cli.main import main

    assert main(["catalog", "--accelerator", "h1000"]) == 2
    assert "did you mean 'h100-80gb'" in capsys.readouterr().err
