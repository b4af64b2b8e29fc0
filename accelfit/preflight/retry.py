"""The one retry policy both cloud readers use: a throttled call is tried ATTEMPTS times with capped exponential
backoff, then reported as not checked (never as fitting)."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from accelfit.preflight.model import Unchecked

ATTEMPTS = 4


class Throttled(Exception):
    """A call the cloud still throttled after ATTEMPTS tries."""


def call_with_retries(fn: Callable[[], Any], is_throttled: Callable[[Exception], bool],
                      sleep: Callable[[float], None]) -> Any:
    for attempt in range(ATTEMPTS):
        try:
            return fn()
        except Exception as error:
            if not is_throttled(error):
                raise
            if attempt == ATTEMPTS - 1:
                raise Throttled() from None
            sleep(min(2 ** attempt, 8))
    raise AssertionError("unreachable: the loop returns or raises")


def throttled_unchecked(check: str) -> Unchecked:
    return Unchecked(check=check, reason=f"throttled: still refused after {ATTEMPTS} tries",
                     fix="run preflight again in a minute")
