"""Pricing: the one cost model (three named figures) and the pricing of resources with stated assumptions. Pure."""

from accelfit.pricing.figures import CostFigures, Part, RunWindow, figures
from accelfit.pricing.resources import (
    ASSUMPTIONS, PRICED_TYPES, CostReport, NeutralResource, PricingContext, ResourceCost, monthly_cost_of_resources,
    price_resources,
)

__all__ = [
    "ASSUMPTIONS", "PRICED_TYPES", "CostFigures", "CostReport", "NeutralResource", "Part", "PricingContext",
    "ResourceCost", "RunWindow", "figures", "monthly_cost_of_resources", "price_resources",
]
