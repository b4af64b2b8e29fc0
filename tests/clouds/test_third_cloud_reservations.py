"""placement.reservations on the third cloud (issue 35): how its zones end and how its reservations are named are
fields of its record (`zone_suffix`, `reservation_name_pattern`, `reservation_name_rule`: tests/clouds/fake_cloud.py),
so the spec takes a reservation in its zone, the plan consumes it there, its builder records it on its node and its
pricer prices that node as already paid, as the plan does. Before, the spec's per-cloud tables had no row for it and
a reservation there stopped with a KeyError."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import ValidationError

from accelfit.catalog import load_catalog
from accelfit.cli.main import main
from accelfit.clouds import register, unregister
from accelfit.planner.planner import plan
from accelfit.spec import WorkloadSpec
from tests.clouds import fake_cloud
from tests.clouds.test_third_cloud import STACK, _project

RESERVATION = {"name": "fkr-000123", "zone": "fk-east1-b", "instance_type": fake_cloud.MACHINE_TYPE, "count": 2}


def _spec(**reservation: object) -> WorkloadSpec:
    return WorkloadSpec.model_validate(dict(
        name="third", kind="training", framework="pytorch", model={"parameters": "7B"},
        training={"tokens": "20B", "deadline_days": 10}, budget={"pricing": "reservation"},
        placement={"orchestration": "kubernetes", "clouds": [fake_cloud.CLOUD.name],
                   "reservations": [{**RESERVATION, **reservation}]}))


def test_a_reservation_in_its_zone_is_planned_built_and_priced_as_paid(third_cloud):
    from accelfit.pricing import NeutralResource, PricingContext, price_resources
    from accelfit.preview.recorder import record
    from components.build import build
    from components.common import Ownership

    spec = _spec()
    (held,) = spec.placement.reservations
    assert (held.cloud, held.region) == ("fakecloud", fake_cloud.REGION)
    catalog = load_catalog()
    chosen = plan(spec, catalog)
    (pool,) = chosen.node_pools
    assert (pool.buying, pool.reservation, pool.zones) == ("reservation", "fkr-000123", ("fk-east1-b",))
    ownership = Ownership(team="ml", cost_center="cc-1", environment="dev", workload="third")
    recording = record(lambda: build(chosen, ownership, catalog), project="third", stack="dev")
    (node,) = [r for r in recording.resources if r.type == fake_cloud.NODE_TYPE]
    assert node.inputs["reservation"] == "fkr-000123"
    report = price_resources([NeutralResource(type=node.type, name=node.name, props=node.inputs)], catalog,
                             PricingContext())
    (cost,) = report.resources
    assert cost.full_scale_monthly_usd == 0.0 and "reservation fkr-000123: already paid" in cost.basis


@pytest.mark.parametrize(("change", "message"), [
    ({"name": "cr-0123456789abcdef0"}, "name: 'cr-0123456789abcdef0' is not a FakeCloud reservation id (fkr- and "
                                       "six digits) from its console"),
    ({"zone": "fk-east1b"}, "zone: 'fk-east1b' is not a zone of a region accelfit knows"),
])
def test_its_own_name_and_zone_rules_refuse_a_reservation(third_cloud, change, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _spec(**change)


def test_a_cloud_without_reservation_rules_refuses_one():
    register(dataclasses.replace(fake_cloud.CLOUD, reservation_name_pattern=""))
    try:
        with pytest.raises(ValidationError, match="'fk-east1-b' is in FakeCloud, which takes no reservations"):
            _spec()
    finally:
        unregister(fake_cloud.CLOUD.name)


def test_its_stack_on_a_reservation_previews_at_the_plans_figures(third_cloud, tmp_path, capsys, monkeypatch):
    """`accelfit preview --stack` of its stack with a reservation: the node takes it, the preview prices it as
    the plan does (already paid), and the policy pack knows its nodes are reserved, not on demand."""
    held = ("      orchestration: kubernetes\n      reservations:\n        - {name: fkr-000123, zone: fk-east1-b, "
            f"instance_type: {fake_cloud.MACHINE_TYPE}, count: 2}}\n")
    project = _project(tmp_path, ("      orchestration: kubernetes\n", held))
    stack_file = project / "stacks" / f"Pulumi.{STACK}.yaml"
    stack_file.write_text(stack_file.read_text().replace("pricing: on-demand", "pricing: reservation"))
    monkeypatch.chdir(project)
    assert main(["preview", "--stack", STACK, "--json"]) == 0, capsys.readouterr().err
    document = json.loads(capsys.readouterr().out)
    (node,) = [r for r in document["resources"] if r["type"] == fake_cloud.NODE_TYPE]
    assert node["inputs"]["reservation"] == "fkr-000123"
    for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd"):
        assert document["cost"][figure] == pytest.approx(document["plan"]["estimate"][figure], rel=1e-5,
                                                         abs=0.05), figure
    assert document["cost"]["full_scale_monthly_usd"] < fake_cloud.HOURLY_USD * 730
    # Reserved capacity is exempt from the spot rule (allowReserved), read through its record's node reader.
    assert [v["policy"] for v in document["policies"]["violations"]] == []
