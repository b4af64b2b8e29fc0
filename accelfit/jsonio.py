"""Reading JSON documents (preview documents, `pulumi preview --json`, policy config) strictly.

Python's `json` accepts `NaN` and `Infinity` (not JSON; a NaN cost makes every comparison false, so budget guards
silently pass), turns `1e400` into infinity, raises ValueError on integers of 4,300+ digits, and recurses once per
nesting level. Here each of those is an `InputError` that names the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.inputfile import MAX_INT_DIGITS, read_text

MAX_DEPTH = 100


class _Refused(ValueError):
    """A value the strict JSON reader refuses (non-finite number, oversized integer); reported as an input error."""


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"a {len(text.lstrip('-'))}-digit integer is far outside any allowed range")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{text[:40]} is too large to be a number")
    return value


def _depth(value: Any) -> int:
    deepest = 0
    pending = [(value, 1)]
    while pending:
        current, depth = pending.pop()
        if isinstance(current, dict):
            current = list(current.values())
        if isinstance(current, list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                pending.extend((item, depth + 1) for item in current if isinstance(item, (dict, list)))
    return deepest


def parse_json(text: str, source: str, fix: str) -> Any:
    """Decode `text`; `fix` tells the user how to get a good document (e.g. which command writes it)."""
    try:
        data = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
    except json.JSONDecodeError as error:
        raise InputError([problem(source, f"line {error.lineno} column {error.colno}",
                                  f"not valid JSON ({error.msg})", fix)]) from None
    except _Refused as error:
        raise InputError([problem(source, "", str(error), fix)]) from None
    except RecursionError:
        raise InputError([problem(source, "", f"the document is nested too deep (more than {MAX_DEPTH} levels)", fix)]) from None
    if _depth(data) > MAX_DEPTH:
        raise InputError([problem(source, "", f"the document is nested too deep (more than {MAX_DEPTH} levels)", fix)])
    return data


def read_json(path: Path | str, fix: str) -> Any:
    return parse_json(read_text(path), str(path), fix)
