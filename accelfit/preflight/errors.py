"""A reader's refusal to start: no credentials, or credentials the cloud rejects (exit 2, with how to log in)."""

from __future__ import annotations

from accelfit.errors import InputError, problem
from accelfit.preflight.readers import reader_class

SDK_MISSING = "pip install 'accelfit[preflight]'"


def credentials_error(cloud: str, why: str, *, profile: str = "") -> InputError:
    """Exit 2 with how to log in to the cloud, as its record's preflight reader says (for the profile in use)."""
    return InputError([problem(None, f"{cloud} credentials", why, reader_class(cloud).login(profile))])


# What a "could not check" line says when the cloud's endpoints cannot be reached (no network, DNS, proxy, TLS).
UNREACHABLE_FIX = "check the network (proxy: HTTPS_PROXY), then run preflight again"


def sdk_missing(cloud: str, module: str) -> InputError:
    return InputError([problem(None, "preflight", f"reading {cloud} needs {module}, which is not installed",
                               SDK_MISSING)])
