"""`accelfit cost --pulumi-preview` on a fleet stack: a real-format `pulumi preview --json` of the example fleet
(tests/fixtures/make_pulumi_preview_fleet.py builds it) priced per workload, each with its own plan's pricing
context, plus the fleet total: the same figures as the offline preview of that stack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.pricing.pulumi_preview import load_preview, load_preview_records

ROOT = Path(__file__).parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "pulumi-preview-example-gcp-fleet.json"
STACK = "example-gcp-fleet"
GOLDEN = json.loads((ROOT / "tests" / "preview" / "golden" / f"preview-{STACK}.json").read_text(encoding="utf-8"))


def cost(capsys, monkeypatch, *flags):
    monkeypatch.chdir(ROOT)
    code = main(["cost", "--pulumi-preview", str(FIXTURE), "--stack", STACK, *flags])
    return code, capsys.readouterr().out


def test_records_keep_components_and_parents_and_skip_the_stack_and_deletes():
    records = load_preview_records(FIXTURE)
    assert not any(record.type == "pulumi:pulumi:Stack" or "old-pool" in record.urn for record in records)
    groups = [record for record in records if record.type.startswith("accelfit:fleet:")]
    assert groups and not any(record.custom for record in groups)
    assert all(record.parent is None for record in groups)  # children of the stack
    assert {record.urn for record in load_preview(FIXTURE)} == {record.urn for record in records if record.custom}


def test_fleet_cost_json_groups_by_workload_like_the_offline_preview(capsys, monkeypatch):
    code, out = cost(capsys, monkeypatch, "--json")
    document = json.loads(out)
    assert code == 0 and document["fleet"] == "ml-platform" and document["unattributed"] == []
    for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd"):
        assert document[figure] == GOLDEN["cost"][figure], figure
    assert set(document["workloads"]) == {"jax-pretrain", "chat-serve"}
    for name, figures in document["workloads"].items():
        expected = GOLDEN["cost"]["workloads"][name]
        for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd", "own_monthly_usd"):
            assert figures[figure] == expected[figure], (name, figure)
    assert document["shared"]["ml-platform"]["monthly_usd"] == GOLDEN["cost"]["shared"]["ml-platform"]["monthly_usd"]
    # Each workload is priced with its own plan: the training workload has a run total, the serving one none.
    assert document["workloads"]["jax-pretrain"]["run_total_usd"] > 0
    assert document["workloads"]["chat-serve"]["run_total_usd"] is None
    golden = {item["urn"]: (item["workload"], item["monthly_usd"]) for item in GOLDEN["resources"]
              if item["monthly_usd"]}
    priced = {item["urn"]: (item["workload"], item["monthly_usd"]) for item in document["resources"]
              if item["urn"] and item["monthly_usd"]}
    assert priced == golden
    # The fleet is the workloads' own resources plus the shared items once.
    own = sum(figures["own_monthly_usd"] for figures in document["workloads"].values())
    assert document["monthly_usd"] == pytest.approx(own + document["shared"]["ml-platform"]["monthly_usd"], abs=0.02)


@pytest.mark.parametrize("flag", [None, "--markdown"])
def test_fleet_cost_text_and_markdown_show_each_workload_and_the_fleet_total(capsys, monkeypatch, flag):
    code, out = cost(capsys, monkeypatch, *([flag] if flag else []))
    assert code == 0
    assert "Fleet ml-platform, stack example-gcp-fleet: cost by workload" in out
    for words in ("jax-pretrain", "chat-serve", "ml-platform-shared (shared by jax-pretrain, chat-serve)",
                  "fleet total (shared counted once)", "Per workload: its own resources"):
        assert words in out, words
    if flag:
        assert "| workload | cluster |" in out and "| resource | workload |" in out


def test_an_unattributed_resource_is_named_not_dropped_silently(tmp_path, capsys, monkeypatch):
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    stray = "urn:pulumi:example-gcp-fleet::accelfit::gcp:storage/bucket:Bucket::stray-bucket"
    document["steps"].append({"op": "create", "urn": stray, "newState": {
        "urn": stray, "type": "gcp:storage/bucket:Bucket", "custom": True,
        "inputs": {"location": "US-CENTRAL1", "name": "stray-bucket"}}})
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    monkeypatch.chdir(ROOT)
    code = main(["cost", "--pulumi-preview", str(path), "--stack", STACK, "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["unattributed"] == ["stray-bucket"]
    assert any("stray-bucket" in line and "not priced" in line for line in result["assumptions"])
