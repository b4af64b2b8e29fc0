"""Pricing of resources: monthly cost per priced resource from the catalog, with stated assumptions. Pure."""

from accelfit.pricing.resources import (
    ASSUMPTIONS, PRICED_TYPES, CostReport, NeutralResource, PricingContext, ResourceCost, monthly_cost_of_resources,
    price_resources,
)

__all__ = [
    "ASSUMPTIONS", "PRICED_TYPES", "CostReport", "NeutralResource", "PricingContext", "ResourceCost",
    "monthly_cost_of_resources", "price_resources",
]
