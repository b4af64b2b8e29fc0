"""Which CRDs GKE manages on a cluster (data/gke_managed_crds.yaml), so the serving route applies only the ones GKE
does not: on a GKE version that installs the InferencePool CRD, the GAIE release manifest is not applied. Pure."""

from __future__ import annotations

import datetime as dt
import functools
import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from accelfit.catalog.rows import Frozen, Sourced
from accelfit.yamlio import read_package_yaml

DATA_FILE = Path(__file__).parents[1] / "data" / "gke_managed_crds.yaml"
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)-gke\.(\d+)\Z")


class ManagedCrd(Sourced):
    # pydantic checks patterns with Rust's regex, whose end of text is \z (Python's is \Z).
    from_version: str = Field(pattern=r"^\d+\.\d+\.\d+-gke\.\d+\z")


class GkeManagedCrds(Frozen):
    schema_version: Literal[1]
    inference_pool: ManagedCrd
    channel_floor: dict[Literal["RAPID", "REGULAR", "STABLE"], str]
    channel_floor_as_of: dt.date
    channel_floor_source: str


@functools.cache
def gke_managed_crds() -> GkeManagedCrds:
    return GkeManagedCrds.model_validate(read_package_yaml(DATA_FILE))


def gke_version(version: str) -> tuple[int, int, int, int]:
    """1.34.0-gke.1626000 -> (1, 34, 0, 1626000), ordered as GKE orders its versions."""
    match = _VERSION.match(version)
    if match is None:
        raise ValueError(f"{version!r} is not a GKE version (e.g. 1.34.0-gke.1626000)")
    return tuple(int(part) for part in match.groups())  # type: ignore[return-value]


def gke_manages_inference_pool(channel: str, data: GkeManagedCrds | None = None) -> bool:
    """True when every version a cluster on `channel` can run has GKE install the InferencePool CRD."""
    data = data or gke_managed_crds()
    floor = data.channel_floor.get(channel)  # type: ignore[call-overload]
    return floor is not None and gke_version(floor) >= gke_version(data.inference_pool.from_version)
