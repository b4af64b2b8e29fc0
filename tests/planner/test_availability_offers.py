"""A price row in a region or zone the availability data does not list is not an offer; GCP pools go in a zone
the availability data lists."""

from __future__ import annotations

import datetime as dt

from planner_specs import INFERENCE, make_spec

from accelfit.catalog.models import Catalog, Cloud, Price, PricingModel
from accelfit.planner.candidates import offers_for


def _with_price(catalog: Catalog, **fields) -> Catalog:
    price = Price(cloud=Cloud.aws, unit="instance-hour", pricing=PricingModel.on_demand, as_of=dt.date(2026, 11, 23),
                  source="test row", **fields)
    # Catalog(...) itself runs no integrity checks (the loader does), so this builds the breach directly.
    return Catalog(**{**dict(catalog), "prices": (*catalog.prices, price)})


def test_a_price_without_availability_is_not_an_offer(catalog):
    assert catalog.offered_zones("aws", "g6.xlarge", "eu-west-3") is None
    priced = _with_price(catalog, sku="g6.xlarge", region="eu-west-3", hourly_usd=0.5)
    spec = make_spec(INFERENCE, placement={"clouds": ["aws"]})
    offers = offers_for(spec, priced, None).offers
    assert ("g6.xlarge", "us-east-1") in {(offer.machine, offer.region) for offer in offers}
    assert "eu-west-3" not in {offer.region for offer in offers}


def test_gcp_gpu_pools_use_a_zone_the_availability_lists(catalog):
    spec = make_spec(INFERENCE, placement={"clouds": ["gcp"], "regions": ["us-central1"]})
    offers = [offer for offer in offers_for(spec, catalog, None).offers if offer.machine == "a3-ultragpu-8g"]
    assert offers and all(offer.zones == ("us-central1-b",) for offer in offers)


def test_tpu_availability_rows_decide_the_zones_of_a_generation(catalog):
    """Replace the v6e row of us-central1 (an import's Cloud TPU zone list would): offers follow it."""
    from accelfit.catalog.models import Availability

    row = Availability(cloud=Cloud.gcp, sku="tpu-v6e", region="us-central1", zones=("us-central1-c",),
                       as_of=dt.date(2026, 11, 23), source="test row: Cloud TPU API zone list")
    kept = tuple(r for r in catalog.availability if (r.sku, r.region) != ("tpu-v6e", "us-central1"))
    listed = Catalog(**{**dict(catalog), "availability": (*kept, row)})
    spec = make_spec(INFERENCE, placement={"clouds": ["gcp"], "regions": ["us-central1"]},
                     inference__traffic="steady")
    v6e_zones = {offer.zones for offer in offers_for(spec, listed, None).offers if offer.accelerator.name == "tpu-v6e"}
    assert v6e_zones == {("us-central1-c",)}
