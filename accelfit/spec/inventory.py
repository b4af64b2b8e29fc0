"""A bare-metal inventory: owned GPU servers that accelfit prepares over SSH and joins to a cluster."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from accelfit.catalog.names import UnknownAcceleratorError, accelerator_kind, canonical_accelerator, max_per_server
from accelfit.spec.models import DNS_LABEL, StrictModel

_HOSTNAME = re.compile(r"^(?=.{1,253}$)([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$")
# Kubernetes label keys: optional DNS prefix, then a name of at most 63 characters.
_LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


class Server(StrictModel):
    name: str = Field(pattern=DNS_LABEL, max_length=63, description="Unique; becomes the Kubernetes node name.")
    address: str = Field(description="Unique IP address or DNS name reached over SSH.")
    ssh_user: str = Field(pattern=r"^[a-z_][a-z0-9_-]{0,31}$", description="User accelfit logs in as over SSH.")
    gpu_model: str = Field(description="Canonical accelerator name or alias, e.g. h100-80gb or H100.")
    gpu_count: int = Field(ge=1, le=16, description="GPUs in the server.")
    cpu_cores: int = Field(ge=1, le=1024, description="Physical CPU cores.")
    memory_gib: float = Field(gt=0, le=65536, description="System memory, GiB.")
    nvme_tb: float = Field(default=0, ge=0, le=1000, description="Local NVMe, TB.")
    network_gbps: float = Field(gt=0, le=100000, description="Total network bandwidth, Gbps.")
    rack: str | None = Field(default=None, max_length=63, description="Rack, for topology labels.")
    form_factor: Literal["sxm", "pcie"] | None = Field(
        default=None, description="How the GPUs connect: sxm (HGX/DGX baseboard with NVSwitches: Fabric Manager is "
        "installed, and NVLSM on B200) or pcie (no NVSwitch). Empty: preflight detects it on the host.")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra Kubernetes node labels.")

    @field_validator("address")
    @classmethod
    def _address(cls, address: str) -> str:
        try:
            ipaddress.ip_address(address)
            return address
        except ValueError:
            if _HOSTNAME.match(address):
                return address
        raise ValueError(f"{address!r} is neither an IP address nor a host name")

    @field_validator("gpu_model")
    @classmethod
    def _gpu_model(cls, name: str) -> str:
        try:
            canonical = canonical_accelerator(name)
        except UnknownAcceleratorError as error:
            hint = f"did you mean {error.suggestion!r}? " if error.suggestion else ""
            raise ValueError(f"unknown GPU model {name!r}; {hint}known: {', '.join(error.known)}") from None
        if accelerator_kind(canonical) != "gpu":
            raise ValueError(f"{name!r} is a TPU; bare-metal servers carry GPUs")
        return canonical

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: dict[str, str]) -> dict[str, str]:
        for key, value in labels.items():
            if not _LABEL_KEY.match(key):
                raise ValueError(f"label key {key!r} is not a valid Kubernetes label key")
            if not _LABEL_VALUE.match(value):
                raise ValueError(f"label {key}={value!r}: value must be at most 63 letters, digits, '-', '_', '.'")
        return labels

    @model_validator(mode="after")
    def _gpu_count_fits_model(self) -> Server:
        most = max_per_server(self.gpu_model)
        if most is not None and self.gpu_count > most:
            raise ValueError(f"gpu_count: {self.gpu_count} {self.gpu_model} GPUs in one server, but that model "
                             f"fits at most {most} per server; check the server's GPU count or model")
        return self


class Inventory(StrictModel):
    site: str = Field(pattern=DNS_LABEL, max_length=63, description="Site name, used in labels and resource names.")
    servers: tuple[Server, ...] = Field(min_length=1, description="The GPU servers.")

    @model_validator(mode="after")
    def _unique(self) -> Inventory:
        for attribute in ("name", "address"):
            seen: dict[str, int] = {}
            for index, server in enumerate(self.servers):
                value = getattr(server, attribute)
                if value in seen:
                    raise ValueError(f"servers[{index}].{attribute}: {value!r} is already used by "
                                     f"servers[{seen[value]}]; every server needs its own {attribute}")
                seen[value] = index
        return self
