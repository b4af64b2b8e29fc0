"""Pricing: the one cost model (three named figures) and the pricing of resources with stated assumptions. Pure."""

from typing import Any

from accelfit.pricing.figures import CostFigures, Part, RunWindow, figures

# The pricing of built resources (previews, `accelfit cost`) is imported on first use, so a plan, which needs only the
# cost model above, does not pay for it.
_RESOURCES = {"ASSUMPTIONS", "PRICED_TYPES", "CostReport", "NeutralResource", "PricingContext", "ResourceCost",
              "monthly_cost_of_resources", "price_resources"}


def __getattr__(name: str) -> Any:  # the lazily imported names are of several types
    if name in _RESOURCES:
        from accelfit.pricing import resources

        return getattr(resources, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ASSUMPTIONS", "PRICED_TYPES", "CostFigures", "CostReport", "NeutralResource", "Part", "PricingContext",
    "ResourceCost", "RunWindow", "figures", "monthly_cost_of_resources", "price_resources",
]
