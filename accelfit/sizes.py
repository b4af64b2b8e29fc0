"""Sizes with suffixes, as people write them in specs: `70B` parameters, `2T` tokens, `512Gi` of memory.

Two families, kept apart on purpose because "2T" means two trillion tokens but "2Ti" means 2 TiB:
- counts (parameters, tokens): K, M, B or G (10^9), T (10^12), P (10^15), case-insensitive, or plain numbers;
- byte sizes: K/M/G/T/P (powers of 1000, an optional trailing B) and Ki/Mi/Gi/Ti/Pi (powers of 1024).
"""

from __future__ import annotations

import math
import re

_COUNT_SUFFIXES = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}
_DECIMAL_BYTES = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_BINARY_BYTES = {"ki": 2.0**10, "mi": 2.0**20, "gi": 2.0**30, "ti": 2.0**40, "pi": 2.0**50}

_NUMBER = r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?"
_COUNT_RE = re.compile(rf"^\s*({_NUMBER})\s*([kKmMbBgGtTpP]?)\s*$")
_BYTES_RE = re.compile(rf"^\s*({_NUMBER})\s*([kKmMgGtTpP]?[iI]?)[bB]?\s*$")


class SizeError(ValueError):
    """A size that cannot be parsed; the message says what is accepted."""


def _as_number(value: object, what: str) -> float | None:
    if isinstance(value, bool):
        raise SizeError(f"{what} must be a number, not a boolean")
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float range (10**400)
            raise SizeError(f"{what} is far too large") from None
        if not math.isfinite(number):
            raise SizeError(f"{what} must be a finite number")
        return number
    if not isinstance(value, str):
        raise SizeError(f"{what} must be a number or a string such as '70B'")
    return None


def parse_count(value: object) -> float:
    """Parse a count such as 70B, 1.5M, 2T or 6.74e9 into a float (e.g. 7e10)."""
    number = _as_number(value, "a count")
    if number is None:
        match = _COUNT_RE.match(str(value))
        if not match:
            raise SizeError("expected a number with an optional suffix K, M, B, T or P, such as 70B or 2T")
        number = float(match.group(1)) * _COUNT_SUFFIXES[match.group(2).lower()]
    if not math.isfinite(number) or number < 0:
        raise SizeError("a count must be a finite number, zero or more")
    return number


def parse_bytes(value: object) -> float:
    """Parse a byte size such as 512Gi, 2TB, 1.5T or 1024 into bytes."""
    number = _as_number(value, "a size")
    if number is None:
        match = _BYTES_RE.match(str(value))
        if not match:
            raise SizeError("expected a number with an optional unit such as 512Gi, 2Ti, 20TB or 500G")
        suffix = match.group(2).lower()
        scale = _BINARY_BYTES.get(suffix) if suffix.endswith("i") else _DECIMAL_BYTES.get(suffix)
        if scale is None:
            raise SizeError(f"unknown unit {match.group(2)!r}; use K, M, G, T, P or Ki, Mi, Gi, Ti, Pi")
        number = float(match.group(1)) * scale
    if not math.isfinite(number) or number < 0:
        raise SizeError("a size must be a finite number, zero or more")
    return number


def format_count(value: float) -> str:
    """70_000_000_000 -> '70B'; used in explanations, not for round-tripping."""
    for suffix, scale in (("P", 1e15), ("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"
