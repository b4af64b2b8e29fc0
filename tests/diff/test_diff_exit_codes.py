"""The budget guard and the exit-code contract of `accelfit diff`: 0 fine, 1 a guard that was asked for
tripped (stderr names the flag), 2 invalid input (the file and the field, no traceback)."""

from __future__ import annotations

import json

import pytest

from accelfit.cli.main import main


def _run(capsys, *args):
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def costs(make_document, make_resource, write_json):
    """Write a base/head pair with the given monthly costs and budget; return their paths."""
    def write(base_usd, head_usd, budget=None):
        base = make_document([make_resource("pool", monthly_usd=base_usd)], max_monthly_usd=budget)
        head = make_document([make_resource("pool", monthly_usd=head_usd)], max_monthly_usd=budget)
        return write_json("base.json", base), write_json("head.json", head)
    return write


def test_a_cost_increase_alone_exits_0(capsys, costs):
    code, out, _ = _run(capsys, "diff", *costs(100, 300))
    assert code == 0 and "+200.0%" in out


def test_fail_on_increase_exceeded_exits_1_and_names_the_flag(capsys, costs):
    code, out, err = _run(capsys, "diff", *costs(100, 130), "--fail-on-increase", "20")
    assert code == 1
    assert "--fail-on-increase 20" in err and "+30.0%" in err
    assert "!! Cost increase: +30.0%" in out  # called out at the top of the report too


@pytest.mark.parametrize("base_usd, head_usd", [(100, 120), (100, 110), (100, 50)])
def test_fail_on_increase_within_the_limit_exits_0(capsys, costs, base_usd, head_usd):
    code, _, err = _run(capsys, "diff", *costs(base_usd, head_usd), "--fail-on-increase", "20")
    assert code == 0 and err == ""


def test_a_cost_from_nothing_exceeds_any_limit(capsys, costs):
    code, _, err = _run(capsys, "diff", *costs(0, 10), "--fail-on-increase", "1000")
    assert code == 1 and "new cost" in err


def test_over_budget_is_called_out_even_without_the_flag(capsys, costs):
    code, out, _ = _run(capsys, "diff", *costs(900, 1200, budget=1000), "--markdown")
    assert code == 0
    assert "> **Over budget:** $1,200 a month as planned against a budget of $1,000 (over by $200); this change " \
           "pushes it over." in out


def test_fail_over_budget_exits_1_when_the_change_pushes_it_over(capsys, costs):
    code, _, err = _run(capsys, "diff", *costs(900, 1200, budget=1000), "--fail-over-budget")
    assert code == 1 and "--fail-over-budget" in err


def test_fail_over_budget_lets_a_change_that_lowers_an_overrun_through(capsys, costs):
    # Already over budget, and this change reduces the cost: blocking it would block the fix.
    code, out, _ = _run(capsys, "diff", *costs(1500, 1200, budget=1000), "--fail-over-budget")
    assert code == 0 and "it was already over; this change does not raise the cost" in out


def test_fail_over_budget_without_a_budget_exits_0(capsys, costs):
    code, _, _ = _run(capsys, "diff", *costs(100, 100_000), "--fail-over-budget")
    assert code == 0


def test_both_guards_report_both_flags(capsys, costs):
    code, _, err = _run(capsys, "diff", *costs(900, 1200, budget=1000), "--fail-over-budget",
                        "--fail-on-increase", "10")
    assert code == 1 and "--fail-over-budget" in err and "--fail-on-increase 10" in err


def test_the_fixture_change_trips_both_guards(capsys, base_path, head_path):
    code, _, err = _run(capsys, "diff", base_path, head_path, "--json", "--fail-on-increase", "50",
                        "--fail-over-budget")
    assert code == 1
    assert err.count("failed: ") == 2


# ---- invalid input: exit 2, the file and the field named ------------------------------------------------------

def test_a_missing_file_exits_2_naming_it(capsys, tmp_path, head_path):
    code, _, err = _run(capsys, "diff", tmp_path / "nope.json", head_path)
    assert code == 2 and "nope.json" in err and "Traceback" not in err


def test_invalid_json_exits_2_with_the_line(capsys, tmp_path, head_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"stack": "dev",\n  "resources": [', encoding="utf-8")
    code, _, err = _run(capsys, "diff", broken, head_path)
    assert code == 2 and "broken.json: line 2" in err and "not valid JSON" in err


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("resources"), "resources: missing"),
    (lambda d: d["resources"][0].update(monthly_usd="12"), "resources[0].monthly_usd: expected int or float"),
    (lambda d: d["resources"][0].update(inputs=[]), "resources[0].inputs: expected Mapping"),
    (lambda d: d["resources"][0].update(monthly_usd=True), "resources[0].monthly_usd: expected int or float"),
    (lambda d: d["cost"].pop("monthly_usd"), "cost.monthly_usd: missing"),
    (lambda d: d["policies"].update(violations={}), "policies.violations: expected list"),
    (lambda d: d["policies"]["violations"].append({"policy": "x"}), "policies.violations[0].message: missing"),
    (lambda d: d.update(schema_version=2), "schema_version: unsupported version"),
    (lambda d: d["resources"].append(dict(d["resources"][0])), "resources: two resources share an identity"),
])
def test_a_malformed_document_exits_2_naming_file_and_field(capsys, write_json, make_document, make_resource,
                                                            head_path, mutate, field):
    document = make_document([make_resource("pool", monthly_usd=1)])
    mutate(document)
    path = write_json("bad.json", document)
    code, _, err = _run(capsys, "diff", path, head_path)
    assert code == 2
    assert f"bad.json: {field}" in err and "Fix:" in err and "Traceback" not in err


def test_every_problem_is_reported_at_once(capsys, write_json, head_path):
    path = write_json("bad.json", {"stack": 3, "resources": "x", "cost": {}, "policies": {}})
    code, _, err = _run(capsys, "diff", path, head_path)
    assert code == 2
    assert {"stack: expected str", "resources: expected list", "cost.monthly_usd: missing"} <= {
        line.split("bad.json: ", 1)[1].split(" (got", 1)[0].split(". Fix", 1)[0] for line in err.splitlines()}


def test_a_document_that_is_not_an_object_exits_2(capsys, write_json, head_path):
    code, _, err = _run(capsys, "diff", write_json("list.json", []), head_path)
    assert code == 2 and "expected a JSON object" in err


def test_one_document_only_exits_2(capsys, head_path):
    code, _, err = _run(capsys, "diff", head_path)
    assert code == 2 and "two preview documents are needed" in err


def test_markdown_and_json_together_exit_2(capsys, base_path, head_path):
    code, _, err = _run(capsys, "diff", base_path, head_path, "--markdown", "--json")
    assert code == 2 and "choose one output format" in err


def test_a_negative_threshold_exits_2(capsys, base_path, head_path):
    code, _, _ = _run(capsys, "diff", base_path, head_path, "--fail-on-increase", "-5")
    assert code == 2


def test_json_output_is_valid_json_with_the_guard(capsys, costs):
    code, out, _ = _run(capsys, "diff", *costs(100, 150, budget=120), "--json", "--fail-on-increase", "40")
    diff = json.loads(out)
    assert code == 1
    assert diff["cost"]["increase_pct"] == 50.0 and diff["cost"]["increase_exceeded"] is True
    assert diff["cost"]["over_budget"] is True


@pytest.mark.parametrize(("edit", "words"), [
    (lambda text: text.replace('"monthly_usd": 100', '"monthly_usd": NaN', 1), "NaN is not a JSON number"),
    (lambda text: text.replace('"monthly_usd": 100', '"monthly_usd": 1e400', 1), "too large"),
    (lambda text: text.replace('"schema_version": 1', '"schema_version": true', 1), "schema_version"),
])
def test_broken_numbers_in_a_document_exit_2(capsys, costs, edit, words):
    base, head = costs(100, 100)
    text = base.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text
    base.write_text(changed, encoding="utf-8")
    code, out, err = _run(capsys, "diff", base, head, "--json", "--fail-over-budget")
    assert code == 2 and words in err and out == ""


def test_two_different_stacks_need_the_flag(capsys, make_document, make_resource, write_json):
    base = write_json("base.json", {**make_document([make_resource("pool")]), "stack": "staging"})
    head = write_json("head.json", make_document([make_resource("pool")]))
    code, _, err = _run(capsys, "diff", base, head)
    assert code == 2 and "--different-stacks" in err
    code, out, _ = _run(capsys, "diff", base, head, "--different-stacks")
    assert code == 0 and "comparing stack staging (base)" in out
