"""The clouds accelfit knows, by name (issue 35): `cloud_named`, `all_clouds`, `cloud_of_platform`.

Like SkyPilot's registry (skypilot-org/skypilot sky/clouds/cloud_registry.py: clouds registered by name, looked up
from a string with an error that lists the known ones), without its global decorator magic: the shipped clouds are
one module each, listed below; `register` adds another (a test's fake cloud, a plug-in) for the life of the process.
"""

from __future__ import annotations

from importlib import import_module
from collections.abc import Callable
from typing import Any

from accelfit.clouds.cloud import Cloud

SHIPPED = ("accelfit.clouds.gcp", "accelfit.clouds.aws", "accelfit.clouds.onprem")
_REGISTERED: dict[str, Cloud] = {}
_LISTENERS: list[Callable[[], None]] = []  # told after a cloud is added or removed (accelfit/clouds/names.py)


class UnknownCloud(ValueError):
    """A name or platform no registered cloud has; the message lists the known ones and the closest match."""


def _registry() -> dict[str, Cloud]:
    if not _REGISTERED:
        for module in SHIPPED:
            cloud: Cloud = import_module(module).CLOUD
            _REGISTERED[cloud.name] = cloud
    return _REGISTERED


def hook(path: str) -> Any:
    """A record's "module:name" hook (code that lives in a layer above the registry), imported when first asked."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def register(cloud: Cloud) -> Cloud:
    """Add a cloud; its name and platforms must be new."""
    registry = _registry()
    if cloud.name in registry:
        raise ValueError(f"cloud {cloud.name!r} is already registered")
    taken = {platform for known in registry.values() for platform in known.platforms} & set(cloud.platforms)
    if taken:
        raise ValueError(f"cloud {cloud.name!r}: platforms {', '.join(sorted(taken))} belong to another cloud")
    registry[cloud.name] = cloud
    _changed()
    return cloud


def unregister(name: str) -> None:
    """Remove a cloud added with `register` (the shipped ones stay)."""
    if any(import_module(module).CLOUD.name == name for module in SHIPPED):
        raise ValueError(f"cloud {name!r} is shipped; it cannot be removed")
    _registry().pop(name, None)
    _changed()


def on_change(listener: Callable[[], None]) -> None:
    """Call `listener` after each `register` and `unregister` (the name values forget a removed cloud)."""
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()


def all_clouds() -> tuple[Cloud, ...]:
    """Every registered cloud, the shipped ones first in their order (gcp, aws, onprem)."""
    return tuple(_registry().values())


def cloud_names() -> tuple[str, ...]:
    return tuple(_registry())


def _unknown(kind: str, value: str, known: tuple[str, ...]) -> UnknownCloud:
    import difflib  # only when a word is unknown: every command imports this module

    close = difflib.get_close_matches(value, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return UnknownCloud(f"unknown {kind} {value!r}{hint}; known: {', '.join(known)}")


def cloud_named(name: str) -> Cloud:
    found = _registry().get(str(getattr(name, "value", name)))
    if found is None:
        raise _unknown("cloud", str(name), cloud_names())
    return found


def cloud_of_platform(platform: str) -> Cloud:
    value = str(getattr(platform, "value", platform))
    for cloud in _registry().values():
        if cloud.offers(value):
            return cloud
    raise _unknown("platform", value, tuple(p for cloud in _registry().values() for p in cloud.platforms))


def is_cluster_platform(platform: str) -> bool:
    """The platform's work runs as node pools of a cloud Kubernetes cluster accelfit creates (Cloud.cluster_platforms):
    GKE's GPU and TPU pools, EKS's node groups, a registered cloud's own cluster platform."""
    value = str(getattr(platform, "value", platform))
    return any(value in cloud.cluster_platforms for cloud in _registry().values())


def clouds_supporting(feature: str) -> tuple[Cloud, ...]:
    """The clouds that can do `feature` (dstack's features.py idea: derived from each cloud's own data)."""
    return tuple(cloud for cloud in _registry().values() if cloud.supports(feature))


def cloud_of_scheme(scheme: str) -> Cloud | None:
    """The cloud whose workload identity reads objects under a URI scheme (gs, s3), or None (hf, https)."""
    return next((cloud for cloud in _registry().values() if scheme in cloud.storage_schemes), None)
