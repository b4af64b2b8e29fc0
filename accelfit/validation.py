"""Turn pydantic validation errors into `Problem`s that name the field path, the bad value and the fix.

Shared by every strict input model (workload spec, inventory, stack config, catalog rows). Messages raised by
our own validators follow one convention, "<relative.path>: <what is wrong>; <how to fix it>", so cross-field
rules point at the field they are about rather than at the whole object.
"""

from __future__ import annotations

import re
import types
import typing
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from accelfit.errors import InputError, Problem, did_you_mean, join_path, problem, short_repr

M = TypeVar("M", bound=BaseModel)

# Enough to show every real mistake in a spec; 50,000 unknown keys are summarised rather than each explained.
MAX_DETAILS = 100
_PYDANTIC_TAG = re.compile(r"^[a-z][a-z0-9_-]*\[.*\]$", re.S)
_OWN_MESSAGE = re.compile(r"^(?P<path>[A-Za-z_][A-Za-z0-9_.\[\]]*): (?P<rest>.*)$", re.S)


def validate(model: type[M], data: Any, file: str | None, prefix: str = "") -> M:
    """Validate `data` as `model`; every problem found becomes part of one InputError."""
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise InputError([problem(file, prefix, f"expected a mapping of keys to values, found {kind}",
                                  f"write the {model.__name__} as YAML keys, see `accelfit schema`")])
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InputError(problems_from(error, model, file, prefix)) from None


def problems_from(error: ValidationError, model: type[BaseModel], file: str | None, prefix: str) -> list[Problem]:
    details = error.errors(include_url=False)
    problems = [_problem(detail, model, file, prefix) for detail in details[:MAX_DETAILS]]
    if len(details) > MAX_DETAILS:
        problems.append(problem(file, prefix, f"{len(details) - MAX_DETAILS:,} more problems of the same kind",
                                "fix the ones above, then check again"))
    # One problem per field is enough; pydantic reports a union's failure once per member.
    unique: dict[tuple[str, str], Problem] = {}
    for item in problems:
        unique.setdefault((item.field, item.message), item)
    return list(unique.values())


_TYPE_KINDS = ("bool_type", "int_type", "float_type", "int_from_float", "finite_number", "string_type",
               "int_parsing", "float_parsing")


def _problem(detail: ErrorDetails, root: type[BaseModel], file: str | None, prefix: str) -> Problem:
    # Drop pydantic's own union/validator tags ("function-after[...]"), never a user's key such as "[]".
    loc = tuple(part for part in detail["loc"] if not (isinstance(part, str) and _PYDANTIC_TAG.match(part)))
    if not loc and detail["loc"]:
        loc = (detail["loc"][-1],)
    kind = detail["type"]
    value = detail.get("input")
    path = join_path(prefix, *loc)
    owner = _model_at(root, loc[:-1]) if loc else root

    if kind == "extra_forbidden":
        return _unknown_key(file, path, owner, str(loc[-1]))
    if kind == "missing":
        field = owner.model_fields.get(str(loc[-1])) if owner else None
        described = f" ({field.description})" if field and field.description else ""
        return problem(file, path, "required field is missing", f"add {loc[-1]}{described}")
    if kind in ("value_error", "assertion_error"):
        return _own_message(detail, file, path, prefix, owner, loc, value)
    if kind == "enum":
        return _not_allowed(detail, file, path, value)
    if kind.startswith(("greater_than", "less_than")):
        return problem(file, path, f"out of range: {_allowed_range(owner, loc)}", _field_hint(owner, loc), value)
    if kind in _TYPE_KINDS:
        return problem(file, path, _type_message(kind, value, owner, loc), _field_hint(owner, loc), value)
    return problem(file, path, str(detail["msg"]).rstrip("."), _field_hint(owner, loc), value)


def _unknown_key(file: str | None, path: str, owner: Any, key: str) -> Problem:
    allowed = list(owner.model_fields) if owner else []
    close = did_you_mean(key, allowed) if len(key) <= 64 else None
    fix = f"did you mean {close!r}?" if close else f"remove it; allowed keys here: {', '.join(allowed)}"
    return problem(file, path, f"unknown key {short_repr(key)}", fix)


def _own_message(detail: ErrorDetails, file: str | None, path: str, prefix: str, owner: Any,
                 loc: tuple[Any, ...], value: Any) -> Problem:
    """A validator's own message: "<path>: <what>; <fix>" names a field below this one, else "<what>; <fix>"."""
    message = str(detail["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    match = _OWN_MESSAGE.match(message)
    if match and not match.group("path").startswith("http"):
        path = join_path(path, match.group("path")) if path else join_path(prefix, match.group("path"))
        what, _, fix = match.group("rest").partition("; ")
        return problem(file, path, what, fix or "see `accelfit schema` for this field")
    what, _, fix = message.partition("; ")
    return problem(file, path, what, fix or _field_hint(owner, loc), value)


def _not_allowed(detail: ErrorDetails, file: str | None, path: str, value: Any) -> Problem:
    expected = detail.get("ctx", {}).get("expected", "")
    choices = re.findall(r"'([^']*)'", expected)
    close = did_you_mean(str(value), choices) if isinstance(value, str) else None
    fix = (f"did you mean {close!r}? " if close else "") + f"use one of: {', '.join(choices)}"
    return problem(file, path, "not an allowed value", fix, value)


def _constraints(owner: type[BaseModel] | None, loc: tuple[Any, ...]) -> dict[str, float]:
    if not (owner and loc and isinstance(loc[-1], str) and loc[-1] in owner.model_fields):
        return {}
    found: dict[str, float] = {}
    for item in owner.model_fields[loc[-1]].metadata:
        for bound in ("gt", "ge", "lt", "le"):
            if getattr(item, bound, None) is not None:
                found[bound] = getattr(item, bound)
    return found


def _allowed_range(owner: type[BaseModel] | None, loc: tuple[Any, ...]) -> str:
    """"allowed: more than 0 and at most 3650", from the field's own constraints."""
    bounds = _constraints(owner, loc)
    words = {"gt": "more than", "ge": "at least", "lt": "less than", "le": "at most"}
    parts = [f"{words[bound]} {_number(bounds[bound])}" for bound in ("gt", "ge", "lt", "le") if bound in bounds]
    return f"allowed is {' and '.join(parts)}" if parts else "the value is outside the allowed range"


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() and abs(value) < 1e16 else f"{value:g}"


def _type_message(kind: str, value: Any, owner: type[BaseModel] | None, loc: tuple[Any, ...]) -> str:
    wanted = {"bool_type": "true or false", "string_type": "text"}.get(
        kind, "a whole number" if kind.startswith("int") else "a finite number")
    if isinstance(value, bool) and kind != "bool_type":
        return f"expected {wanted}, not a boolean (YAML reads true/false/yes/no/on/off as booleans)"
    if isinstance(value, str) and kind != "string_type":
        return f"expected {wanted}, not a string (write the number without quotes)"
    bounds = _constraints(owner, loc)
    allowed = f"; {_allowed_range(owner, loc)}" if bounds else ""
    return f"expected {wanted}{allowed}"


def _field_hint(owner: type[BaseModel] | None, loc: tuple[Any, ...]) -> str:
    if owner and loc and isinstance(loc[-1], str) and loc[-1] in owner.model_fields:
        description = owner.model_fields[loc[-1]].description
        if description:
            return f"{loc[-1]} is: {description}"
    return "see `accelfit schema` for the expected value"


def _model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class that owns the field at `loc` (list indexes skipped), or None."""
    current: Any = root
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or part not in current.model_fields:
            return None
        current = _inner_model(current.model_fields[part].annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    """Unwrap Optional[X], tuple[X, ...], list[X], dict[str, X] to find a model class X."""
    if isinstance(annotation, type) and issubclass(annotation, (BaseModel, Enum)):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, tuple, list, dict, typing.Annotated):
        for arg in typing.get_args(annotation):
            found = _inner_model(arg)
            if isinstance(found, type) and issubclass(found, BaseModel):
                return found
    return annotation
