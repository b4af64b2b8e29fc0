"""The cloud and platform names that plans, specs and catalog rows carry, as values checked against the registry
(issue 35): one type each where three cloud enums stood (catalog rows' `Cloud`, the plan's `PlanCloud`, the spec's
`PlacementCloud`) and the plan's `Platform`, so a cloud registered later (a test's, a plug-in) is a value everywhere
without editing an enum. Each is a str: comparisons and lookups take the plain name. One object per name, so
`row.cloud is Cloud.gcp` still holds; `.value` and the members (Cloud.gcp, Platform.gke_gpu) as the enums had them;
the JSON schema lists the registered names as the enums did (same title, same $defs entry)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Self, cast

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from accelfit.clouds.registry import _registry, all_clouds, cloud_names, on_change


class _Listed(type):
    """Iterating the type gives its values, registry order, as iterating an Enum gave its members."""

    def __iter__(cls) -> Iterator[Any]:
        return iter([cls(name) for name in cls.known()])  # type: ignore[attr-defined]


class RegisteredName(str, metaclass=_Listed):
    """A name the registry knows. Subclasses say which names (`known`)."""

    __slots__ = ()
    _interned: ClassVar[dict[str, RegisteredName]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._interned = {}

    @classmethod
    def known(cls) -> tuple[str, ...]:
        """The names this kind of value takes; each subclass (Cloud, PlacementCloud, PlanCloud, Platform) answers
        from the registry. The base type names nothing, so making one of it is a programming error."""
        raise TypeError(f"{cls.__name__} says no names: subclass RegisteredName and define known()")

    @classmethod
    def interned(cls, name: str) -> Self | None:
        """The value already made for a registered `name`, else None (then call the type): the hot path."""
        return cast("Self | None", cls._interned.get(name))

    @classmethod
    def _forget_unregistered(cls) -> None:
        for name in [name for name in cls._interned if not cls.is_known(name)]:
            del cls._interned[name]

    @classmethod
    def is_known(cls, name: str) -> bool:
        return name in cls.known()

    def __new__(cls, value: Any) -> RegisteredName:
        name = value if value.__class__ is str else str(getattr(value, "value", value))
        found = cls._interned.get(name)  # only registered names: a removed cloud's are forgotten (on_change)
        if found is None:
            if not cls.is_known(name):
                raise ValueError(f"{name!r} is not a valid {cls.__name__}; known: {', '.join(cls.known())}")
            found = cls._interned[name] = super().__new__(cls, name)
        return found

    @property
    def value(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def _validate(cls, value: Any) -> RegisteredName:
        if value.__class__ is cls:
            return value
        found = cls._interned.get(value) if isinstance(value, str) else None
        if found is not None:
            return found
        if isinstance(value, str) and cls.is_known(value):
            return cls(value)
        # The error an Enum field gave (type "enum", the allowed values), so messages name the choices as before.
        known = cls.known()
        expected = " or ".join(filter(None, (", ".join(f"'{name}'" for name in known[:-1]), f"'{known[-1]}'")))
        raise PydanticCustomError("enum", "Input should be {expected}", {"expected": expected})

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate, serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
            ref=f"{cls.__module__}.{cls.__qualname__}")

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"enum": list(cls.known()), "title": cls.__name__, "type": "string"}


def _members(cls: type[RegisteredName]) -> None:
    for name in cls.known():
        setattr(cls, name.replace("-", "_"), cls(name))


class Cloud(RegisteredName):
    """A cloud that sells capacity (a catalog row's cloud): every registered cloud but owned servers."""

    gcp: ClassVar[Cloud]
    aws: ClassVar[Cloud]

    @classmethod
    def known(cls) -> tuple[str, ...]:
        return tuple(cloud.name for cloud in all_clouds() if not cloud.owned)

    @classmethod
    def is_known(cls, name: str) -> bool:  # hot (catalog lookups): one dict lookup
        found = _registry().get(name)
        return found is not None and not found.owned


class PlacementCloud(Cloud):
    """A cloud placement.clouds may allow (owned servers come in through placement.deployment instead)."""

    gcp: ClassVar[PlacementCloud]
    aws: ClassVar[PlacementCloud]


class PlanCloud(RegisteredName):
    """The cloud a plan runs in: every registered cloud, owned servers (onprem) too."""

    gcp: ClassVar[PlanCloud]
    aws: ClassVar[PlanCloud]
    onprem: ClassVar[PlanCloud]

    @classmethod
    def known(cls) -> tuple[str, ...]:
        return cloud_names()

    @classmethod
    def is_known(cls, name: str) -> bool:
        return name in _registry()


class Platform(RegisteredName):
    """Where a plan places work: every registered cloud's platforms."""

    gke_gpu: ClassVar[Platform]
    gke_tpu: ClassVar[Platform]
    tpu_vm: ClassVar[Platform]
    eks_gpu: ClassVar[Platform]
    baremetal_gpu: ClassVar[Platform]
    gce_gpu_vm: ClassVar[Platform]
    ec2_gpu_vm: ClassVar[Platform]

    @classmethod
    def known(cls) -> tuple[str, ...]:
        return tuple(platform for cloud in all_clouds() for platform in cloud.platforms)


_TYPES = (Cloud, PlacementCloud, PlanCloud, Platform)
for _type in _TYPES:
    _members(_type)


def _forget_removed() -> None:
    for kind in _TYPES:
        kind._forget_unregistered()


on_change(_forget_removed)
