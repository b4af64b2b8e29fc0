"""One pricing path: a one-workload stack's preview is priced as its fleet of one (price_fleet, the path every
fleet takes), and its document shows that fleet's one workload."""

from __future__ import annotations

from accelfit.preview import fleet_document
from accelfit.preview.run import preview_stack

from test_preview_stack import ROOT

FIGURES = ("monthly_usd", "full_scale_monthly_usd", "run_total_usd")


def test_a_one_workload_stack_is_priced_as_its_fleet_of_one(monkeypatch):
    calls = []
    price_fleet = fleet_document.price_fleet

    def spy(resources, owners, members, catalog):
        costs = price_fleet(resources, owners, members, catalog)
        calls.append((owners, members, costs))
        return costs

    monkeypatch.setattr(fleet_document, "price_fleet", spy)
    document = preview_stack("dev", ROOT).document
    (owners, members, costs), = calls
    (member,) = members
    # Alone in a cluster of its own: the workload owns every resource of the stack, shared items included.
    assert member.cluster is None and not costs.shared
    assert set(owners.values()) == {member.name}
    assert {row["urn"] for row in document["resources"]} == set(owners)
    own = costs.own[member.name]
    assert {key: document["cost"][key] for key in FIGURES} == own.figures_json()
    assert {key: document["cost"][key] for key in FIGURES} == costs.fleet.to_json_dict()
    priced = {row["urn"]: row["monthly_usd"] for row in document["resources"] if row["cost_basis"]}
    assert priced == {cost.urn: cost.monthly_usd for cost in own.resources}
    assert "workload" not in document["resources"][0]  # the one-workload shape, unchanged
