"""GCP GPU pools go only where the machine type is offered (accelfit/catalog/data/gpu_availability.yaml): never
blindly the region's first zone; serving spreads over up to three such zones, training keeps one."""

from __future__ import annotations

from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.catalog.models import Cloud
from accelfit.planner import Environment, plan


def _gpu_pool(result):
    return next(pool for pool in result.node_pools if pool.role == "gpu")


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
                     placement__accelerators=["l4"], inference__latency_p99_ms=15000)
    pool = _gpu_pool(plan(spec, catalog, Environment("prod", None)))
    offered = catalog.offered_zones(Cloud.gcp, pool.machine_type, "us-central1")
    assert len(pool.zones) == min(3, len(offered)) > 1 and set(pool.zones) <= set(offered)


def test_training_uses_one_offered_zone(catalog):
    spec = make_spec(TRAINING, model__parameters="70B", training__tokens="1T", training__deadline_days=30,
                     placement__clouds=["gcp"], placement__regions=["us-central1"],
                     placement__accelerators=["h100-80gb"])
    pool = _gpu_pool(plan(spec, catalog, Environment("staging", None)))
    assert len(pool.zones) == 1
    assert pool.zones[0] in catalog.offered_zones(Cloud.gcp, pool.machine_type, "us-central1")
