"""End to end through the CLI: `accelfit catalog update` imports upstream-format files, then `accelfit catalog`,
`plan` and `preview` use the imported catalog and say so; an import that adds a region makes a plan there
possible; a download failure exits 2 and leaves the installed catalog alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelfit.catalog import store
from accelfit.cli.main import main

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "catalog" / "fixtures" / "skypilot_v8"

# A small model served in Paris: only the import lists a GPU type (g6.xlarge) with a price in eu-west-3. The p99
# target leaves room for the p99-length answer (about 590 tokens when lengths vary up to context_tokens).
PARIS_SPEC = """\
name: small-chat-paris
kind: inference
framework: pytorch
model: {parameters: 1B, precision: bf16, layers: 16, hidden_size: 2048, kv_heads: 8, attention_heads: 32,
        context_tokens: 4096}
inference: {requests_per_second: 2, input_tokens: 512, output_tokens: 128, latency_p99_ms: 10000,
            traffic: variable, hours_per_day: 24}
placement: {clouds: [aws], regions: [eu-west-3]}
budget: {pricing: on-demand}
"""


@pytest.fixture()
def catalog_home(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path / "catalog"))
    return tmp_path


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_adds_a_region_and_a_plan_then_uses_it(capsys, catalog_home):
    spec = catalog_home / "paris.yaml"
    spec.write_text(PARIS_SPEC)
    code, _, err = run(capsys, "plan", str(spec))
    assert code == 1 and "eu-west-3" in err  # the shipped snapshot offers nothing there

    code, out, _ = run(capsys, "catalog", "update", "--from", str(FIXTURES))
    assert code == 0 and "g6.xlarge in eu-west-3" in out

    code, out, _ = run(capsys, "plan", str(spec), "--json")
    assert code == 0
    plan = json.loads(out)
    assert (plan["region"], plan["accelerator"]["instance_type"]) == ("eu-west-3", "g6.xlarge")
    assert plan["catalog"].startswith("imported ") and str(FIXTURES) in plan["catalog"]
    code, out, _ = run(capsys, "plan", str(spec))
    assert "catalog: imported" in out


def test_catalog_and_coverage_say_which_catalog(capsys, catalog_home):
    code, out, _ = run(capsys, "catalog", "--coverage")
    assert code == 0 and out.startswith("Catalog: shipped snapshot")
    run(capsys, "catalog", "update", "--from", str(FIXTURES))
    code, out, _ = run(capsys, "catalog")
    assert code == 0 and out.startswith("Catalog: imported ")
    code, out, _ = run(capsys, "catalog", "--region", "eu-west-3", "--json")
    document = json.loads(out)
    assert document["catalog"]["kind"] == "imported"
    assert [row["name"] for row in document["instance_types"]] == ["g6.xlarge"]
    code, out, _ = run(capsys, "catalog", "--coverage", "--json")
    lines = {(line["cloud"], line["kind"], line["pricing"]): line for line in json.loads(out)["coverage"]}
    assert {"sku": "g6.xlarge", "region": "eu-west-3"} not in lines[("aws", "gpu", "on-demand")]["missing"]
    assert lines[("aws", "gpu", "spot")]["offered"] == lines[("aws", "gpu", "on-demand")]["offered"]


def test_preview_says_which_catalog_it_priced_with(capsys, catalog_home):
    run(capsys, "catalog", "update", "--from", str(FIXTURES))
    code, out, _ = run(capsys, "preview", "--stack", "dev", "--json")
    assert code in (0, 1)
    assert json.loads(out)["plan"]["catalog"].startswith("imported ")
    code, out, _ = run(capsys, "preview", "--stack", "dev")
    assert "Catalog: imported " in out


def test_unreachable_default_source_exits_2_and_keeps_the_catalog(capsys, catalog_home):
    run(capsys, "catalog", "update", "--from", str(FIXTURES))
    manifest = (catalog_home / "catalog" / "imported" / "manifest.yaml").read_text()
    # Port 9 (discard) on the loopback interface refuses the connection at once: no network needed.
    code, _, err = run(capsys, "catalog", "update", "--from", "https://127.0.0.1:9/catalogs/v8")
    assert code == 2 and "could not download the catalog" in err and "Traceback" not in err
    assert (catalog_home / "catalog" / "imported" / "manifest.yaml").read_text() == manifest
