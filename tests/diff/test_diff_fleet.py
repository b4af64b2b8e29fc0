"""`accelfit diff` of fleet previews (issue 17): changes and cost grouped by workload, in text, markdown (the PR
comment) and JSON. The documents are the example fleet's golden preview and a copy with one workload changed."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from accelfit.diff.compare import diff_documents
from accelfit.diff.document import parse_document
from accelfit.diff.render_markdown import render_markdown
from accelfit.diff.render_text import render_text

GOLDEN = Path(__file__).parents[1] / "preview" / "golden" / "preview-example-gcp-fleet.json"


@pytest.fixture
def pair():
    head = json.loads(GOLDEN.read_text())
    base = copy.deepcopy(head)
    # Base: chat-serve's GPU pool one node smaller and $1,000 cheaper; the shared cluster and jax-pretrain alike.
    base["cost"]["workloads"]["chat-serve"]["monthly_usd"] -= 1000
    base["cost"]["monthly_usd"] -= 1000
    pool = next(item for item in base["resources"] if item["name"] == "chat-serve-gpu-pool")
    pool["monthly_usd"] -= 1000
    pool["inputs"]["autoscaling"]["totalMaxNodeCount"] -= 1
    return parse_document(base, "base.json"), parse_document(head, "head.json")


def test_changes_are_grouped_by_workload(pair):
    diff = diff_documents(*pair)
    [change] = diff.resources
    assert (change.name, change.component, change.delta_usd) == ("chat-serve-gpu-pool", "chat-serve", 1000.0)
    by_workload = {item.workload: item for item in diff.workloads}
    assert set(by_workload) == {"jax-pretrain", "chat-serve", "ml-platform-shared"}
    assert by_workload["chat-serve"].monthly.delta_usd == 1000.0
    assert by_workload["jax-pretrain"].monthly.delta_usd == 0.0


def test_the_pr_comment_shows_cost_by_workload(pair):
    comment = render_markdown(diff_documents(*pair))
    assert "#### Cost by workload (a month as planned)" in comment
    row = next(line for line in comment.splitlines() if line.startswith("| `chat-serve` |"))
    assert "→" in row and "(+$1,000)" in row
    assert "| `ml-platform-shared` |" in comment
    assert "changed in 1 workload(s)" in comment
    assert "**`chat-serve`** · 1 to change · +$1,000 a month" in comment


def test_text_and_json_carry_the_workloads(pair):
    diff = diff_documents(*pair)
    assert "Workload chat-serve: monthly_usd $16,694 -> $17,694" in render_text(diff)
    data = diff.to_json_dict()
    assert {item["workload"] for item in data["workloads"]} == {"jax-pretrain", "chat-serve", "ml-platform-shared"}
    assert data["resources"][0]["component"] == "chat-serve"


def test_a_new_fleet_stack_diffs_against_nothing():
    from accelfit.diff.document import new_stack_document

    head = json.loads(GOLDEN.read_text())
    diff = diff_documents(parse_document(new_stack_document(head["stack"]), "base"), parse_document(head, "head"))
    assert {item.workload: item.monthly.base_usd for item in diff.workloads}["chat-serve"] is None
    assert {resource.component for resource in diff.resources} == {"jax-pretrain", "chat-serve",
                                                                     "ml-platform-shared"}
    assert "| `chat-serve` | - → $17,694" in render_markdown(diff)


def test_a_workload_pushed_over_its_spec_budget_is_called_out_and_fails_the_guard(tmp_path, capsys):
    from accelfit.cli.main import main

    head = json.loads(GOLDEN.read_text())
    base = copy.deepcopy(head)
    head["cost"]["workloads"]["chat-serve"]["monthly_usd"] = 26000.0  # its spec allows 25,000 a month
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(json.dumps(head))
    diff = diff_documents(parse_document(base, "base"), parse_document(head, "head"))
    [serve] = [item for item in diff.workloads if item.workload == "chat-serve"]
    assert serve.max_monthly_usd == 25000 and serve.pushes_over_budget
    assert "**Workload chat-serve over budget:**" in render_markdown(diff)
    code = main(["diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"), "--fail-over-budget"])
    assert code == 1
    assert "workload chat-serve costs 26,000.00 USD a month, over its budget of 25,000.00" in capsys.readouterr().err


def test_a_workloads_new_selection_is_named_in_the_comment():
    head = json.loads(GOLDEN.read_text())
    base = copy.deepcopy(head)
    member = next(item for item in base["plan"]["workloads"] if item["name"] == "jax-pretrain")
    member["plan"]["option"] = "gke-tpu/gcp/us-central1/tpu-v5e/v5litepod-8/x1/on-demand"
    diff = diff_documents(parse_document(base, "base"), parse_document(head, "head"))
    changed = [item for item in diff.workloads if item.option_changed]
    assert [item.workload for item in changed] == ["jax-pretrain"]
    comment = render_markdown(diff)
    assert "- **Selection changed (`jax-pretrain`):** `gke-tpu/gcp/us-central1/tpu-v5e/v5litepod-8/x1/on-demand` → " \
           "`gke-tpu/gcp/us-central1/tpu-v6e/v6e-4/x1/on-demand`" in comment
