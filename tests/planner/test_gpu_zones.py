"""GCP GPU pools go only where the machine family is offered (accelfit/catalog/data/gpu_availability.yaml):
never blindly the region's first zone; serving spreads over up to three such zones, training keeps one."""

from __future__ import annotations

from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.catalog.models import Cloud
from accelfit.planner import Environment, NoFeasiblePlan, plan


def _gpu_pool(result):
    return next(pool for pool in result.node_pools if pool.role == "gpu")


def test_every_gcp_gpu_family_has_availability_rows(catalog):
    families = {row.family for row in catalog.instance_types_for(Cloud.gcp)}
    assert families <= {row.family for row in catalog.gpu_zones}
    assert all(row.source and row.as_of for row in catalog.gpu_zones)


def test_h200_training_lands_in_the_zone_that_offers_a3_ultra(catalog):
    spec = make_spec(TRAINING, model__parameters="70B", training__tokens="1T", training__deadline_days=30,
                     placement__clouds=["gcp"], placement__regions=["us-central1"],
                     placement__accelerators=["h200-141gb"])
    result = plan(spec, catalog, Environment("staging", None))
    pool = _gpu_pool(result)
    assert pool.machine_type == "a3-ultragpu-8g"
    # us-central1-a is the region's first zone, but A3 Ultra is offered there only in -b.
    assert pool.zones == ("us-central1-b",)
    system = next(item for item in result.node_pools if item.role == "system")
    assert system.zones == pool.zones


def test_serving_spreads_over_offered_zones(catalog):
    spec = make_spec(INFERENCE, placement__clouds=["gcp"], placement__regions=["us-central1"],
                     placement__accelerators=["l4"])
    pool = _gpu_pool(plan(spec, catalog, Environment("prod", None)))
    offered = catalog.gpu_zones_in(Cloud.gcp, "g2", "us-central1")
    assert len(pool.zones) == 3 and set(pool.zones) <= set(offered)


def test_region_without_an_offered_zone_is_rejected_with_a_reason(catalog):
    """A priced region whose zones do not offer the family is rejected (rule "zone"), not planned into -a."""
    rows = tuple(row.model_copy(update={"zones": tuple(zone for zone in row.zones if not zone.startswith("us-central1"))})
                 if row.family == "a3-ultra" else row for row in catalog.gpu_zones)
    trimmed = catalog.model_copy(update={"gpu_zones": rows})
    spec = make_spec(TRAINING, model__parameters="70B", training__tokens="1T", training__deadline_days=30,
                     placement__clouds=["gcp"], placement__regions=["us-central1"],
                     placement__accelerators=["h200-141gb"])
    try:
        rejected = plan(spec, trimmed, Environment("staging", None)).rejected
    except NoFeasiblePlan as error:
        rejected = error.rejected
    reasons = [item.reason for item in rejected if item.rule == "zone"]
    assert reasons and all("us-central1" in reason and "a3-ultra" in reason for reason in reasons)
