"""The buying-model table (issue 35): one `BuyingModel` record per way to buy capacity (on-demand, spot,
committed-1y, committed-3y, reservation, flex-start, capacity-block), looked up by name. Read by the spec, the
catalog, the planner and its fallback chain, pricing, the policy schema and the components instead of branching on
the names. Imports nothing above the foundation."""

from accelfit.buying.model import BuyingModel
from accelfit.buying.registry import (
    UnknownBuyingModel, all_buying_models, buying_model, buying_model_names, find_buying_model, is_buying_model,
    is_held, is_preemptible, register, term_hours, tier_names, tier_of, unregister,
)

__all__ = ["BuyingModel", "UnknownBuyingModel", "all_buying_models", "buying_model", "buying_model_names",
           "find_buying_model", "is_buying_model", "is_held", "is_preemptible", "register", "term_hours",
           "tier_names", "tier_of", "unregister"]
