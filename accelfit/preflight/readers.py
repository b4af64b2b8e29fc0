"""The preflight reader of a cloud, as its record names it (accelfit.clouds: `preflight_reader`, "module:Class").

The class is the cloud's whole preflight side (issue 35: one source, the record): `for_needs(needs)` builds the
reader for a stack's needs, `read(needs)` reads the account, and three static methods say what a user is told:
`login(profile)` how to log in, `quota_request(need, project, wanted)` and `reservation_request(res, wanted,
project)` how to ask the cloud for more. Tests hand in readers on recorded answers by replacing `for_needs`."""

from __future__ import annotations

from typing import Any

from accelfit.clouds import cloud_named
from accelfit.clouds.registry import hook


def reader_class(cloud: str) -> Any:
    """The reader class its record names; a cloud with none (owned servers) is never read (the CLI skips it)."""
    record = cloud_named(cloud)
    if not record.preflight_reader:
        raise ValueError(f"cloud {record.name!r} has no preflight reader")
    return hook(record.preflight_reader)
