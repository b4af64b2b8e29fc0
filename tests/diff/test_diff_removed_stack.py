"""A stack the pull request deletes: its base preview against the `removed_stack` stand-in reports every resource
as removed and every cost figure going to zero, in the text, the markdown comment and the JSON totals."""

from __future__ import annotations

import json

import pytest

from accelfit.cli.main import main
from accelfit.diff import diff_documents, parse_document, render_markdown, render_text
from accelfit.diff.document import removed_stack_document


@pytest.fixture
def removed(base_doc):
    return diff_documents(parse_document(base_doc, "base.json"),
                          parse_document(removed_stack_document(base_doc["stack"]), "head (removed)"))


def test_every_resource_is_removed_and_every_figure_goes_to_zero(removed, base_doc):
    custom = [r for r in base_doc["resources"] if r.get("custom", True)]
    assert removed.head_is_removed and not removed.base_is_new
    assert removed.count("remove") == len(custom) > 10
    assert removed.count("add") == removed.count("change") == removed.count("replace") == removed.unchanged == 0
    assert removed.budget.head_monthly_usd == 0.0
    assert removed.budget.delta_usd == -round(base_doc["cost"]["monthly_usd"], 2) < 0
    assert {f.figure: (f.base_usd, f.head_usd) for f in removed.figures} == {
        figure: (pytest.approx(base_doc["cost"][figure]), 0.0)
        for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd")}
    # Each removed resource's own cost leaves the total with it.
    assert sum(r.delta_usd for r in removed.resources) == pytest.approx(-base_doc["cost"]["monthly_usd"], abs=0.05)


def test_the_text_and_the_comment_say_the_stack_is_removed(removed):
    text = render_text(removed)
    assert "note: stack dev does not exist on the head side: the change deletes it" in text
    assert "`pulumi destroy --stack dev`" in text
    assert f"Resources: 0 to add, 0 to change, 0 to replace, {removed.count('remove')} to remove" in text
    assert "-> $0.00 a month as planned" in text and "-100.0%)" in text
    # The head has no plan at all: that is the removal, not a "selection changed" to nothing.
    assert "Selection changed" not in text
    comment = render_markdown(removed)
    assert comment.startswith("<!-- accelfit:dev -->")
    assert "_Removed stack: stack dev does not exist on the head side" in comment
    assert "→ $0.00 a month as planned" in comment and "Selection changed" not in comment
    assert f"{removed.count('remove')} to remove" in comment


def test_the_json_totals_carry_the_removal(removed, base_doc):
    data = removed.to_json_dict()
    assert data["head_is_removed"] is True and data["base_is_new"] is False
    assert data["summary"]["remove"] == removed.count("remove") and data["summary"]["add"] == 0
    assert data["cost"]["head_monthly_usd"] == 0.0
    assert data["cost"]["delta_monthly_usd"] == -round(base_doc["cost"]["monthly_usd"], 2)
    assert all(r["action"] == "remove" and r["after_monthly_usd"] == 0.0 for r in data["resources"])


def test_a_cost_guard_never_trips_on_a_removal(base_path, write_json, capsys):
    head = write_json("removed.json", removed_stack_document("dev"))
    code = main(["diff", str(base_path), str(head), "--markdown", "--fail-over-budget", "--fail-on-increase", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "_Removed stack:" in out
    assert main(["diff", str(base_path), str(head), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["head_is_removed"] is True


def test_a_document_that_is_not_a_removal_says_so(base_doc):
    assert parse_document(base_doc, "base.json").removed_stack is False
    assert diff_documents(parse_document(base_doc, "b"), parse_document(base_doc, "h")).head_is_removed is False


def test_a_removed_fleet_takes_each_workload_to_zero():
    from pathlib import Path

    fleet = json.loads((Path(__file__).parents[1] / "preview" / "golden" / "preview-example-gcp-fleet.json")
                       .read_text(encoding="utf-8"))
    diff = diff_documents(parse_document(fleet, "base.json"),
                          parse_document(removed_stack_document(fleet["stack"]), "head (removed)"))
    assert diff.is_fleet and len(diff.workloads) >= 2
    for workload in diff.workloads:
        assert workload.monthly.base_usd > 0 and workload.monthly.head_usd == 0.0
    text, comment = render_text(diff), render_markdown(diff)
    assert "Selection changed" not in text + comment
    assert "$0.00" in comment.split("#### Cost by workload")[1].split("####")[0]
