"""A fake eighth buying model registered from a test module (tests/buying/fake_buying.py) reaches every place that
reads the buying-model table, without a file outside that module changing (issue 35): the spec's budget.pricing,
the catalog's price rows and lookups, the planner and the pools it builds, the fallback chain's tiers, the preview's
pricing, and the budget policy's config schema."""

from __future__ import annotations

import datetime as dt

import jsonschema
import pytest

from accelfit.buying import buying_model_names, register, tier_names, unregister
from accelfit.catalog import Catalog, Cloud, Price, PricingModel
from accelfit.catalog.loader import load_catalog
from accelfit.planner.fleet.model import FallbackStep
from accelfit.planner.model import NodePool
from accelfit.planner import plan_fleet
from accelfit.planner.planner import Environment, plan
from accelfit.pricing.rates import PricingContext, RateBook
from accelfit.spec import WorkloadSpec
from policies.accelfit_policies.cost import budget_policy
from tests.buying import fake_buying

MACHINE, REGION = "a3-highgpu-8g", "us-central1"


@pytest.fixture
def eighth():
    register(fake_buying.MODEL)
    try:
        yield fake_buying.MODEL
    finally:
        unregister(fake_buying.NAME)


def _spec(pricing) -> WorkloadSpec:
    return WorkloadSpec.model_validate(dict(
        name="buy", kind="training", framework="pytorch", model={"parameters": "7B"},
        training={"tokens": "50B", "deadline_days": 5}, budget={"pricing": pricing},
        placement={"orchestration": "kubernetes", "clouds": ["gcp"], "regions": [REGION],
                   "accelerators": ["h100"]}))


def _catalog_with_its_row() -> Catalog:
    catalog = load_catalog()
    on_demand = catalog.price(Cloud.gcp, MACHINE, REGION, "on-demand")
    row = Price(**{**dict(on_demand), "pricing": fake_buying.NAME, "hourly_usd": fake_buying.HOURLY_USD,
                   "as_of": dt.date(2026, 11, 1), "source": "tests/buying/fake_buying.py"})
    return Catalog(**{**dict(catalog), "prices": (*catalog.prices, row)})


def test_unknown_until_registered():
    assert fake_buying.NAME not in buying_model_names()
    with pytest.raises(ValueError, match="not a valid PricingModel"):
        PricingModel(fake_buying.NAME)
    with pytest.raises(ValueError, match=r"budget\.pricing"):
        _spec(fake_buying.NAME)


def test_the_table_the_spec_and_the_catalog_take_it(eighth):
    assert buying_model_names()[-1] == fake_buying.NAME
    assert tier_names() == ("reservation", "flex-start", "capacity-block", "day-ahead", "on-demand", "spot")
    assert _spec([fake_buying.NAME, "on-demand"]).budget.pricing_options == ("day-ahead", "on-demand")
    catalog = _catalog_with_its_row()
    assert catalog.price(Cloud.gcp, MACHINE, REGION, fake_buying.NAME).hourly_usd == fake_buying.HOURLY_USD


def test_the_budget_policy_schema_lists_it(eighth):
    properties = dict(budget_policy().config_schema.properties)
    jsonschema.validate({"pricing": fake_buying.NAME}, {"type": "object", "properties": properties})


def test_a_plan_buys_it_and_its_pools_carry_it(eighth):
    chosen = plan(_spec([fake_buying.NAME]), _catalog_with_its_row())
    assert chosen.pricing == fake_buying.NAME
    (gpu,) = [pool for pool in chosen.node_pools if pool.role == "gpu"]
    assert gpu.buying == fake_buying.NAME and not (gpu.spot or gpu.flex_start or gpu.capacity_block)
    assert chosen.option.endswith("/x2/day-ahead")
    on_demand = plan(_spec(["on-demand"]), _catalog_with_its_row())

    def compute(planned) -> float:
        return next(line.monthly_usd for line in planned.estimate.breakdown if line.item == "compute")
    assert compute(chosen) * 5 < compute(on_demand)  # priced at its own row ($7.5/h), not on demand's


def test_the_fallback_chain_steps_through_its_tier_in_order(eighth):
    spec = _spec(["day-ahead", "on-demand", "spot"])
    planned, _ = plan_fleet([spec], _catalog_with_its_row(), [Environment()], None, fleet_name=None)
    same_type = [step.pricing for step in planned.workloads[0].fallback if step.accelerator == "h100-80gb"]
    assert same_type == ["day-ahead", "on-demand", "spot"]


def test_the_chain_and_the_preview_pricing_take_it(eighth):
    step = FallbackStep(rank=2, option="x", accelerator="h100-80gb", count=8, pricing=fake_buying.NAME, pool=None,
                        monthly_usd=1.0, total_usd=1.0)
    assert step.pricing == fake_buying.NAME
    book = RateBook(_catalog_with_its_row(), PricingContext(regions={"gcp": REGION}))
    hourly, basis, _ = book.node_hourly(Cloud.gcp, MACHINE, REGION, fake_buying.NAME)
    assert hourly == fake_buying.HOURLY_USD and basis.startswith(f"{fake_buying.NAME} $7.5/")
    assert NodePool(name="gpu", role="gpu", machine_type=MACHINE, min_nodes=0, max_nodes=1, initial_nodes=0,
                    zones=("us-central1-a",), buying=fake_buying.NAME).buying == fake_buying.NAME
