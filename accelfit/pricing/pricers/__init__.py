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

# module -> {type token: pricer}, filled as each module is imported. Only the modules of registered clouds (and the
# cross-cloud ones) price: a module imported while its cloud is not registered prices nothing.
_BY_MODULE: dict[str, dict[str, Pricer]] = {}
_ACTIVE: dict[tuple[str, ...], dict[str, Pricer]] = {}


def prices(*types: str) -> Callable[[Pricer], Pricer]:
    """Register the decorated function as the pricer of `types`; a type has one pricer."""
    def register(function: Pricer) -> Pricer:
        for token in types:
            owner = next((module for module, table in _BY_MODULE.items() if token in table), None)
            if owner is not None and owner != function.__module__:
                raise ValueError(f"{token} is priced by {owner} already; {function.__module__} cannot price it too")
            _BY_MODULE.setdefault(function.__module__, {})[token] = function
        _ACTIVE.clear()
        return function
    return register


def _modules() -> tuple[str, ...]:
    return (*CROSS_CLOUD, *(cloud.pricer_module for cloud in all_clouds() if cloud.pricer_module))


def _active() -> dict[str, Pricer]:
    modules = _modules()
    found = _ACTIVE.get(modules)
    if found is None:
        for module in modules:
            import_module(module)
        found = {token: pricer for module in modules for token, pricer in _BY_MODULE.get(module, {}).items()}
        _ACTIVE.clear()
        _ACTIVE[modules] = found
    return found


def pricer_for(resource_type: str) -> Pricer | None:
    return _active().get(resource_type)


def priced_types() -> frozenset[str]:
    return frozenset(_active())


def types_priced_by(module: str) -> frozenset[str]:
    """The type tokens `module` registered pricers for (a cloud's record lists the same ones)."""
    import_module(module)
    return frozenset(_BY_MODULE.get(module, {}))
