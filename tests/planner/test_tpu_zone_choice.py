"""The planner chooses TPU zones only from the catalog's availability rows, never from price rows."""

from __future__ import annotations

import pytest
from planner_specs import TRAINING, make_spec

from accelfit.planner import plan
from accelfit.planner.candidates import offers_for


@pytest.mark.parametrize("pricing", ["on-demand", "spot"])
@pytest.mark.parametrize("orchestration", ["kubernetes", "vms"])
def test_the_planner_offers_tpus_only_in_available_zones(catalog, pricing, orchestration):
    spec = make_spec(TRAINING, budget__pricing=pricing, placement__clouds=["gcp"],
                     placement__orchestration=orchestration)
    tpu_offers = [offer for offer in offers_for(spec, catalog, None).offers if offer.tpu_slice is not None]
    assert tpu_offers
    for offer in tpu_offers:
        for zone in offer.zones:
            assert catalog.zone_listing(offer.accelerator.name, zone) is not None, (offer.machine, zone)


def test_v6e_in_us_central1_lands_in_the_only_listed_zone(catalog):
    spec = make_spec(TRAINING, placement__clouds=["gcp"], placement__regions=["us-central1"],
                     placement__accelerators=["tpu-v6e"])
    chosen = plan(spec, catalog)
    assert chosen.zones == ("us-central1-b",)
    assert all(pool.zones == ("us-central1-b",) for pool in chosen.node_pools)


def test_tpu_vm_multislice_plans_state_the_provisioning_trade_off(catalog):
    spec = make_spec(TRAINING, model__parameters="70B", training__tokens="2T", training__deadline_days=20,
                     placement__clouds=["gcp"], placement__orchestration="vms", placement__accelerators=["tpu-v5e"])
    chosen = plan(spec, catalog)
    assert chosen.platform.value == "tpu-vm" and chosen.accelerator.slices > 1, chosen.accelerator
    [warning] = [item for item in chosen.warnings if "not provisioned together" in item]
    assert f"The {chosen.accelerator.slices} slices" in warning and "orchestration: kubernetes" in warning


def test_single_slice_tpu_vm_plans_carry_no_multislice_warning(catalog):
    spec = make_spec(TRAINING, placement__clouds=["gcp"], placement__orchestration="vms")
    chosen = plan(spec, catalog)
    assert chosen.accelerator.slices == 1
    assert not any("not provisioned together" in item for item in chosen.warnings)
