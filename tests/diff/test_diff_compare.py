"""The comparison itself, one behaviour per test, over small hand-made documents."""

from __future__ import annotations

import pytest

from accelfit.diff import diff_documents, parse_document


def _diff(base, head, **kwargs):
    return diff_documents(parse_document(base, "base.json"), parse_document(head, "head.json"), **kwargs)


def test_identical_documents_have_no_changes(make_document, make_resource):
    doc = make_document([make_resource("a", monthly_usd=10)])
    diff = _diff(doc, doc)
    assert diff.resources == () and diff.unchanged == 1 and diff.violations == ()


def test_added_and_removed_resources_carry_their_whole_cost(make_document, make_resource):
    base = make_document([make_resource("old", monthly_usd=30)])
    head = make_document([make_resource("new", monthly_usd=50)])
    by_name = {r.name: r for r in _diff(base, head).resources}
    assert (by_name["new"].action, by_name["new"].before_usd, by_name["new"].after_usd) == ("add", 0.0, 50)
    assert (by_name["old"].action, by_name["old"].before_usd, by_name["old"].after_usd) == ("remove", 30, 0.0)


def test_an_in_place_change_lists_the_changed_input_paths(make_document, make_resource):
    base = make_document([make_resource("a", inputs={"autoscaling": {"totalMaxNodeCount": 2}, "x": 1})])
    head = make_document([make_resource("a", inputs={"autoscaling": {"totalMaxNodeCount": 4}, "x": 1})])
    [resource] = _diff(base, head).resources
    assert resource.action == "change"
    assert [(c.path, c.old, c.new) for c in resource.changes] == [("autoscaling.totalMaxNodeCount", 2, 4)]


@pytest.mark.parametrize("path, old, new", [
    ("nodeConfig", {"spot": True}, {"spot": False}),  # spot -> on-demand
    ("nodeConfig", {"guestAccelerators": [{"count": 1}]}, {"guestAccelerators": [{"count": 2}]}),
    ("placementPolicy", None, {"tpuTopology": "4x4"}),  # a TPU topology appears
    ("initialNodeCount", 1, 4),
])
def test_replacement_forcing_inputs_make_a_replace(make_document, make_resource, path, old, new):
    base = make_document([make_resource("pool", inputs={path: old} if old is not None else {})])
    head = make_document([make_resource("pool", inputs={path: new})])
    [resource] = _diff(base, head).resources
    assert resource.action == "replace"
    assert resource.replace_reasons


def test_an_input_the_resource_ignores_neither_updates_nor_replaces_it(make_document, make_resource):
    """ignoreChanges keeps the state's value: a pool's new initial count (which would force a new pool) and an
    earlier release's auto-name next to today's fitted name are no change at all."""
    base = make_document([make_resource("pool", inputs={"initialNodeCount": 3, "nodeLocations": ["a", "b", "c"]})])
    row = make_resource("pool", inputs={"initialNodeCount": 4, "name": "chat-serve-gpu",
                                        "nodeLocations": ["a", "b"]})
    row["ignore_changes"] = ["initialNodeCount", "name"]
    [resource] = _diff(base, make_document([row])).resources
    assert resource.action == "change"
    assert [change.path for change in resource.changes] == ["nodeLocations"]
    del row["ignore_changes"]
    assert _diff(base, make_document([row])).resources[0].action == "replace"


def test_an_input_that_only_forces_replacement_on_another_type_is_an_update(make_document, make_resource):
    # `location` replaces a bucket; a router's field of the same name is not in the table.
    base = make_document([make_resource("r", type="gcp:compute/router:Router", inputs={"location": "a"})])
    head = make_document([make_resource("r", type="gcp:compute/router:Router", inputs={"location": "b"})])
    assert _diff(base, head).resources[0].action == "change"


def test_a_cost_change_without_an_input_change_is_a_mover_not_a_change(make_document, make_resource):
    # A catalog price update moves the cost of an untouched resource: the engine changes nothing, so it is not a
    # "change", but a reviewer must still see the cost move.
    base = make_document([make_resource("a", monthly_usd=100)])
    head = make_document([make_resource("a", monthly_usd=120)])
    result = _diff(base, head)
    assert result.resources == () and result.count("change") == 0 and result.unchanged == 1
    [mover] = result.movers
    assert (mover.name, mover.changes, mover.delta_usd) == ("a", (), 20)
    assert result.to_json_dict()["summary"]["repriced"] == 1


def test_identical_inputs_are_unchanged(make_document, make_resource):
    base = make_document([make_resource("a", inputs={"x": 1, "y": [1, 2]}, monthly_usd=100)])
    result = _diff(base, base)
    assert (result.resources, result.movers, result.unchanged) == ((), (), 1)


def test_the_spec_change_behind_a_plan_change_is_shown(make_document, make_resource):
    from accelfit.diff import render_text
    from accelfit.diff.format import spec_change_text

    base = {**make_document([make_resource("a")]), "spec": {"model": {"parameters": 1e9, "precision": "bf16"}}}
    head = {**make_document([make_resource("a")]), "spec": {"model": {"parameters": 3e9, "precision": "bf16"}}}
    result = _diff(base, head)
    [change] = result.spec_changes
    assert spec_change_text(change) == "model.parameters: 1B -> 3B"
    assert "model.parameters: 1B -> 3B" in render_text(result)


def test_resources_are_grouped_by_their_top_level_component(make_document, make_resource):
    tree = [make_resource("cluster", type="accelfit:gcp:GkeCluster", parent=None, custom=False),
            make_resource("cluster-pools", type="accelfit:gcp:Pools", parent="cluster", custom=False)]
    base = make_document([*tree, make_resource("p", parent="cluster-pools", inputs={"a": 1}),
                          make_resource("loose", parent=None, inputs={"a": 1})])
    head = make_document([*tree, make_resource("p", parent="cluster-pools", inputs={"a": 2}),
                          make_resource("loose", parent=None, inputs={"a": 2})])
    assert {r.name: r.component for r in _diff(base, head).resources} == {"p": "cluster", "loose": "(stack)"}


def test_components_themselves_are_not_diffed(make_document, make_resource):
    base = make_document([make_resource("c", type="accelfit:gcp:Network", parent=None, custom=False)])
    head = make_document([])
    assert _diff(base, head).resources == ()


def test_movers_are_ordered_by_the_size_of_the_move(make_document, make_resource):
    base = make_document([make_resource("small", monthly_usd=100), make_resource("cut", monthly_usd=900),
                          make_resource("big", monthly_usd=100), make_resource("still", monthly_usd=5)])
    head = make_document([make_resource("small", monthly_usd=110), make_resource("cut", monthly_usd=100),
                          make_resource("big", monthly_usd=600), make_resource("still", monthly_usd=5)])
    movers = _diff(base, head).movers
    assert [(m.name, m.delta_usd) for m in movers] == [("cut", -800), ("big", 500), ("small", 10)]


def test_violations_are_new_fixed_or_still_failing(make_document):
    def v(policy, resource, message="m", level="advisory"):
        return {"policy": policy, "level": level, "resource": resource, "message": message}
    base = make_document(violations=[v("private-buckets", "b"), v("spot-outside-prod", "p"),
                                     v("stack-monthly-budget", "(stack)", "costs 10")])
    head = make_document(violations=[v("spot-outside-prod", "p"), v("no-ssh-from-world", "fw", level="mandatory"),
                                     v("stack-monthly-budget", "(stack)", "costs 20")])
    statuses = {(x.status, x.policy) for x in _diff(base, head).violations}
    assert statuses == {("new", "no-ssh-from-world"), ("fixed", "private-buckets"), ("failing", "spot-outside-prod"),
                        ("failing", "stack-monthly-budget")}


def test_a_still_failing_violation_reports_the_new_message(make_document):
    base = make_document(violations=[{"policy": "stack-monthly-budget", "level": "advisory", "resource": None,
                                      "message": "stack costs 10 USD"}])
    head = make_document(violations=[{"policy": "stack-monthly-budget", "level": "advisory", "resource": None,
                                      "message": "stack costs 20 USD"}])
    [violation] = _diff(base, head).violations
    assert (violation.status, violation.message) == ("failing", "stack costs 20 USD")


def test_a_second_violation_of_one_rule_on_one_resource_is_new(make_document):
    one = {"policy": "required-ownership-labels", "level": "advisory", "resource": "pool", "message": "no team"}
    two = {**one, "message": "no cost-center"}
    diff = _diff(make_document(violations=[one]), make_document(violations=[one, two]))
    assert sorted((v.status, v.message) for v in diff.violations) == [("failing", "no team"), ("new", "no cost-center")]


def test_new_mandatory_violations_come_first(make_document):
    head = make_document(violations=[
        {"policy": "a-rule", "level": "advisory", "resource": "x", "message": "m"},
        {"policy": "z-rule", "level": "mandatory", "resource": "x", "message": "m"}])
    assert [v.policy for v in _diff(make_document(), head).violations] == ["z-rule", "a-rule"]


def test_selection_change_and_stale_lock_are_reported(make_document):
    base = make_document(option="gke-tpu/gcp/us-central1/tpu-v6e/v6e-4/x1/spot")
    head = make_document(option="gke-tpu/gcp/us-central1/tpu-v6e/v6e-16/x1/spot", lock_state="stale",
                         lock_message="a fresh plan would choose v5e")
    selection = _diff(base, head).selection
    assert selection.option_changed and selection.lock_stale
    assert selection.lock_message == "a fresh plan would choose v5e"


def test_protected_resources_keep_their_flag(make_document, make_resource):
    base = make_document([make_resource("bucket", type="gcp:storage/bucket:Bucket", protect=True,
                                        inputs={"location": "US"})])
    head = make_document([make_resource("bucket", type="gcp:storage/bucket:Bucket", protect=True,
                                        inputs={"location": "EU"})])
    [resource] = _diff(base, head).resources
    assert resource.action == "replace" and resource.protect


def test_diffing_two_files_never_imports_pulumi(base_path, head_path):
    # `accelfit diff` runs in CI before any cloud SDK is needed; it must stay pure (and fast).
    import subprocess
    import sys

    code = ("import sys; from accelfit.cli.main import main; "
            f"main(['diff', {str(base_path)!r}, {str(head_path)!r}, '--markdown']); "
            "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0].startswith('pulumi')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.rstrip().endswith("LOADED []")
