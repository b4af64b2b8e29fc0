"""The pricers of priced resource types, registered by Pulumi type token (issue 35).

Each cloud's module (its `Cloud.pricer_module` in accelfit/clouds) registers a function per type it prices with
`@prices(token, ...)`; the Kubernetes objects every cloud's serving route builds are priced by
accelfit/pricing/pricers/serving.py. The modules are imported by name on first use, so adding a cloud adds a module
and touches none of the others, and a stack that prices nothing never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from accelfit.clouds import all_clouds
from accelfit.pricing.rates import NeutralResource, Priced, RateBook

Pricer = Callable[[NeutralResource, RateBook], Priced | None]
CROSS_CLOUD = ("accelfit.pricing.pricers.serving",)

_PRICERS: dict[str, Pricer] = {}
_OWNER: dict[str, str] = {}  # type token -> the module that registered its pricer
_LOADED: set[str] = set()


def prices(*types: str) -> Callable[[Pricer], Pricer]:
    """Register the decorated function as the pricer of `types`; a type has one pricer."""
    def register(function: Pricer) -> Pricer:
        for token in types:
            owner = _OWNER.get(token)
            if owner is not None and owner != function.__module__:
                raise ValueError(f"{token} is priced by {owner} already; {function.__module__} cannot price it too")
            _PRICERS[token] = function
            _OWNER[token] = function.__module__
        return function
    return register


def _modules() -> tuple[str, ...]:
    return (*CROSS_CLOUD, *(cloud.pricer_module for cloud in all_clouds() if cloud.pricer_module))


def _load() -> None:
    for module in _modules():
        if module not in _LOADED:
            import_module(module)
            _LOADED.add(module)


def pricer_for(resource_type: str) -> Pricer | None:
    _load()
    return _PRICERS.get(resource_type)


def priced_types() -> frozenset[str]:
    _load()
    return frozenset(_PRICERS)


def types_priced_by(module: str) -> frozenset[str]:
    """The type tokens `module` registered pricers for (a cloud's record lists the same ones)."""
    _load()
    return frozenset(token for token, owner in _OWNER.items() if owner == module)
