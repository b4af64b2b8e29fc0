"""The buying-model table (accelfit/buying): the shipped records, lookups, and the policy schema listing them all."""

from __future__ import annotations

import jsonschema
import pytest

from accelfit.buying import (
    BuyingModel, UnknownBuyingModel, all_buying_models, buying_model, buying_model_names, register, tier_names,
    tier_of, unregister,
)
from accelfit.catalog import PricingModel
from policies.accelfit_policies.cost import budget_policy
from policies.runner import _check_types

SHIPPED = ("on-demand", "spot", "committed-1y", "committed-3y", "reservation", "flex-start", "capacity-block")


def test_the_seven_shipped_models_in_the_catalog_order():
    assert buying_model_names() == SHIPPED
    # The catalog's and the spec's values are the table's (PricingModel was an Enum of them).
    assert tuple(getattr(PricingModel, name.replace("-", "_")).value for name in SHIPPED) == SHIPPED


def test_tiers_in_fallback_chain_order():
    assert tier_names() == ("reservation", "flex-start", "capacity-block", "on-demand", "spot")
    assert tier_of("committed-1y") == tier_of("committed-3y") == "reservation"
    assert tier_of("spot") == "spot"


def test_what_each_record_says():
    assert buying_model("reservation").sunk and buying_model("reservation").price_source == "held"
    assert not any(model.sunk for model in all_buying_models() if model.name != "reservation")
    assert {m.name for m in all_buying_models() if m.needs_reservation} == {"reservation", "capacity-block"}
    assert {m.name for m in all_buying_models() if not m.autoscaler_moves_to} == {"flex-start", "capacity-block"}
    assert {m.name: m.term_hours for m in all_buying_models() if m.commitment} == {
        "committed-1y": 8760.0, "committed-3y": 26280.0}
    assert buying_model("flex-start").sold_on("gcp") and not buying_model("flex-start").sold_on("aws")
    assert buying_model("capacity-block").sold_by == ("aws",)
    assert buying_model("spot").preemptible and buying_model("spot").sold_on("aws")


def test_an_unknown_name_says_the_closest():
    with pytest.raises(UnknownBuyingModel, match="did you mean 'flex-start'"):
        buying_model("flexstart")


def test_registering_a_taken_name_or_an_unknown_tier_is_refused():
    with pytest.raises(ValueError, match="already registered"):
        register(BuyingModel(name="spot", tier="spot", chain_order=9, catalog_order=9))
    with pytest.raises(ValueError, match="not a known tier"):
        register(BuyingModel(name="x", tier="nowhere", chain_order=9, catalog_order=9))
    with pytest.raises(ValueError, match="shipped"):
        unregister("spot")


def _budget_schema() -> dict:
    policy = budget_policy()
    return {"type": "object", "properties": dict(policy.config_schema.properties), "additionalProperties": False}


@pytest.mark.parametrize("name", SHIPPED)
def test_the_budget_policy_schema_accepts_every_model(name):
    jsonschema.validate({"pricing": name}, _budget_schema())
    _check_types("stack-monthly-budget", {"pricing": name}, _budget_schema()["properties"])


def test_the_budget_policy_schema_refuses_a_bogus_model():
    """Before the table the schema listed 4 of the 7 (no reservation, flex-start, capacity-block)."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"pricing": "half-price"}, _budget_schema())
    with pytest.raises(ValueError, match="'half-price' is not one of on-demand, spot"):
        _check_types("stack-monthly-budget", {"pricing": "half-price"}, _budget_schema()["properties"])
