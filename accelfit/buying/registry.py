"""The buying models accelfit knows, by name (issue 35), as accelfit/clouds/registry.py keeps the clouds: the shipped
ones (accelfit/buying/shipped.py), and `register` adds another (a test's, a plug-in) for the life of the process."""

from __future__ import annotations

import difflib

from accelfit.buying.model import BuyingModel
from accelfit.buying.shipped import SHIPPED

_REGISTERED: dict[str, BuyingModel] = {model.name: model for model in SHIPPED}


class UnknownBuyingModel(ValueError):
    """A name no registered buying model has; the message lists the known ones and the closest match."""


def register(model: BuyingModel) -> BuyingModel:
    """Add a buying model; its name must be new, and a model filed under another tier must name a known tier."""
    if model.name in _REGISTERED:
        raise ValueError(f"buying model {model.name!r} is already registered")
    if model.tier != model.name and model.tier not in tier_names():
        raise ValueError(f"buying model {model.name!r}: tier {model.tier!r} is not a known tier")
    _REGISTERED[model.name] = model
    return model


def unregister(name: str) -> None:
    """Remove a model added with `register` (the shipped ones stay)."""
    if any(model.name == name for model in SHIPPED):
        raise ValueError(f"buying model {name!r} is shipped; it cannot be removed")
    _REGISTERED.pop(name, None)


def all_buying_models() -> tuple[BuyingModel, ...]:
    """Every registered model in the catalog's order (on-demand, spot, committed-1y, committed-3y, reservation,
    flex-start, capacity-block, then any added)."""
    return tuple(sorted(_REGISTERED.values(), key=lambda model: model.catalog_order))


def buying_model_names() -> tuple[str, ...]:
    return tuple(model.name for model in all_buying_models())


def is_buying_model(name: str) -> bool:
    return str(getattr(name, "value", name)) in _REGISTERED


def find_buying_model(name: str) -> BuyingModel | None:
    """The model of a plan's or offer's pricing, or None where that is no buying model (owned servers: "owned")."""
    return _REGISTERED.get(str(getattr(name, "value", name)))


def buying_model(name: str) -> BuyingModel:
    found = _REGISTERED.get(str(getattr(name, "value", name)))
    if found is None:
        close = difflib.get_close_matches(str(name), buying_model_names(), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownBuyingModel(f"unknown buying model {str(name)!r}{hint}; known: {', '.join(buying_model_names())}")
    return found


def term_hours(name: str) -> float | None:
    """A commitment's term, billed every hour; None for any other model, and for a plan's pricing that is no buying
    model (owned servers)."""
    found = find_buying_model(name)
    return found.term_hours if found is not None else None


def is_preemptible(name: str) -> bool:
    """Whether a plan's or offer's pricing is capacity the cloud may take back (spot); False for owned servers."""
    found = find_buying_model(name)
    return found is not None and found.preemptible


def is_held(name: str) -> bool:
    """Whether a plan's or offer's pricing is capacity the team already holds (a reservation, priced as paid)."""
    found = find_buying_model(name)
    return found is not None and found.price_source == "held"


def tier_of(name: str) -> str:
    """The capacity tier a model falls under in a fallback chain (a commitment is the reservation tier)."""
    return buying_model(name).tier


def tier_names() -> tuple[str, ...]:
    """The capacity tiers in fallback-chain order: each model that is its own tier, by its chain_order."""
    tiers = [model for model in _REGISTERED.values() if model.tier == model.name]
    return tuple(model.name for model in sorted(tiers, key=lambda model: (model.chain_order, model.catalog_order)))
