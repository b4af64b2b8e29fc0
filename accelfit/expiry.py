"""An ephemeral stack's expiry, `accelfit:expiresAt`: an ISO 8601 UTC instant (`2026-11-29T20:00:00Z`), written by
`accelfit ephemeral up` from its --ttl, read by `accelfit ephemeral sweep` (which destroys the stack after it) and by
the program, which labels every resource `expires-at` with it. Pure."""

from __future__ import annotations

import datetime as dt
import re

from accelfit.errors import InputError, problem

_TTL = re.compile(r"^([1-9][0-9]{0,3})([hd])\Z")
MAX_TTL = dt.timedelta(days=7)  # a copy that must live longer is an environment (`accelfit env new`), not ephemeral
_INSTANT = "%Y-%m-%dT%H:%M:%SZ"


def parse_ttl(text: str) -> dt.timedelta:
    match = _TTL.match((text or "").strip())
    ttl = None if match is None else dt.timedelta(hours=int(match[1]) * (24 if match[2] == "d" else 1))
    if ttl is None or ttl > MAX_TTL:
        raise InputError([problem(None, "--ttl", "not a time to live of 1h to 7d",
                                  "write hours or days, e.g. --ttl 24h or --ttl 2d", text)])
    return ttl


def expires_at(now: dt.datetime, ttl: dt.timedelta) -> str:
    return (now.astimezone(dt.UTC) + ttl).replace(microsecond=0).strftime(_INSTANT)


def parse_instant(value: object, source: str | None) -> dt.datetime:
    try:
        return dt.datetime.strptime(str(value), _INSTANT).replace(tzinfo=dt.UTC)
    except ValueError:
        raise InputError([problem(source, "config.accelfit:expiresAt", "not a UTC instant",
                                  "write it as 2026-11-29T20:00:00Z (accelfit ephemeral up writes it)", value)]) from None


def expiry_label(value: object, source: str | None) -> str | None:
    """The `expires-at` label value (GCP label values allow no ':'): 20261129t200000z; None when unset."""
    if value in (None, ""):
        return None
    return parse_instant(value, source).strftime("%Y%m%dt%H%M%Sz")


def expired(value: object, now: dt.datetime, source: str | None) -> bool:
    return value not in (None, "") and parse_instant(value, source) <= now
