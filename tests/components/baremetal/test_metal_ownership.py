"""The inventory's ownership figures reach the nodes the stack builds (issue 38): each node is annotated with them,
and the preview prices the node with exactly those figures."""

from __future__ import annotations

import pytest

import metal_stack
from accelfit.catalog import load_catalog
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.onprem import owned_server_cost
from accelfit.spec.inventory import Inventory

FIGURES = {"purchase_usd_per_server": 180000, "amortization_months": 60, "pue": 1.25,
           "staff_usd_per_server_year": 9000}


def test_the_inventorys_figures_are_on_every_node_and_price_it():
    inventory = Inventory.model_validate({"site": "lab-rack-a", "ownership": FIGURES,
                                          "servers": [metal_stack.server(i) for i in range(2)]})
    recording, error = metal_stack.record_build(metal_stack.plan_for(inventory), inventory)
    assert error is None, error
    patches = recording.of_type("kubernetes:core/v1:NodePatch")
    assert len(patches) == 2
    for patch in patches:
        annotations = patch.inputs["metadata"]["annotations"]
        assert annotations == {"accelfit.io/owned-purchase-usd-per-server": "180000",
                               "accelfit.io/owned-amortization-months": "60", "accelfit.io/owned-pue": "1.25",
                               "accelfit.io/owned-staff-usd-per-server-year": "9000"}
        report = price_resources([NeutralResource(patch.type, patch.name, patch.inputs)], load_catalog(),
                                 PricingContext())
        expected = owned_server_cost(700, 8, FIGURES).hourly_usd * 730
        assert report.resources[0].full_scale_monthly_usd == pytest.approx(expected, abs=0.01)


def test_a_measured_power_draw_in_the_plan_is_on_every_node_and_prices_it():
    # The plan's pool carries the board power `accelfit calibrate` measured; each node carries it to the preview,
    # which prices the energy from it (without it, from the catalog's 700 W).
    inventory = Inventory.model_validate({"site": "lab-rack-a", "servers": [metal_stack.server(i) for i in range(2)]})
    plan = metal_stack.plan_for(inventory)
    pools = tuple(pool.model_copy(update={"measured_power_w": 450.0}) if pool.role == "gpu" else pool
                  for pool in plan.node_pools)
    recording, error = metal_stack.record_build(plan.model_copy(update={"node_pools": pools}), inventory)
    assert error is None, error
    for patch in recording.of_type("kubernetes:core/v1:NodePatch"):
        assert patch.inputs["metadata"]["annotations"] == {"accelfit.io/owned-measured-power-w": "450"}
        report = price_resources([NeutralResource(patch.type, patch.name, patch.inputs)], load_catalog(),
                                 PricingContext())
        expected = owned_server_cost(700, 8, {}, measured_power_w=450).hourly_usd * 730
        assert report.resources[0].full_scale_monthly_usd == pytest.approx(expected, abs=0.01)
        assert expected < owned_server_cost(700, 8, {}).hourly_usd * 730
