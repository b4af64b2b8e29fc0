"""A bare-metal inventory: owned GPU servers that accelfit prepares over SSH and joins to a cluster."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from accelfit.catalog.names import UnknownAcceleratorError, accelerator_kind, canonical_accelerator, max_per_server
from accelfit.errors import short_repr
from accelfit.spec.models import DNS_LABEL, Number, StrictModel, WholeNumber
from accelfit.values import credential_message, credential_paths

# RFC 1123 host names: dot-separated labels of letters, digits and '-', at most 253 characters in all. `\Z`, not
# `$`: `$` also matches before a final newline, and "gpu-01\n" is not a host name.
_HOST_LABEL = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?\Z")
# Kubernetes label keys: optional DNS prefix, then a name of at most 63 characters.
_LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?\Z")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\Z")


def _host_name_problem(address: str) -> str | None:
    """Why `address` is not a usable host name, or None when it is one."""
    if not address or len(address) > 253:
        return "a host name has 1 to 253 characters"
    labels = address.split(".")
    if not all(_HOST_LABEL.match(label) for label in labels):
        return "a host name is dot-separated labels of letters, digits and '-'"
    if all(label.isdigit() for label in labels):
        # 999.999.999.999, 010.000.000.001 and 10.0.1 would be looked up as names; they are broken IPv4 addresses.
        return "it looks like an IPv4 address but is not one (four numbers 0-255, no leading zeros)"
    if labels[-1].isdigit():
        return "the last label of a host name cannot be all digits"
    return None


def address_key(address: str) -> str:
    """One spelling per address, to find duplicates: IP addresses in canonical form (an IPv4-mapped IPv6 address
    as its IPv4 address), host names in lowercase."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address.lower()
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.compressed


class Server(StrictModel):
    name: str = Field(pattern=DNS_LABEL, max_length=63, description="Unique; becomes the Kubernetes node name.")
    address: str = Field(max_length=253, description="Unique IP address or DNS name reached over SSH.")
    ssh_user: str = Field(pattern=r"^[a-z_][a-z0-9_-]{0,31}$", description="User accelfit logs in as over SSH.")
    gpu_model: str = Field(description="Canonical accelerator name or alias, e.g. h100-80gb or H100.")
    gpu_count: WholeNumber = Field(ge=1, le=16, description="GPUs in the server.")
    cpu_cores: WholeNumber = Field(ge=1, le=1024, description="Physical CPU cores.")
    memory_gib: Number = Field(gt=0, le=65536, description="System memory, GiB.")
    nvme_tb: Number = Field(default=0, ge=0, le=1000, description="Local NVMe, TB.")
    network_gbps: Number = Field(gt=0, le=100000, description="Total network bandwidth, Gbps.")
    rack: str | None = Field(default=None, max_length=63, pattern=r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$",
                             description="Rack, for topology labels.")
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
            why = _host_name_problem(address)
            if why is None:
                return address
        raise ValueError(f"{short_repr(address)} is neither an IP address nor a host name; {why}")

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
        if len(labels) > 64:
            raise ValueError(f"{len(labels)} labels; a node carries at most 64 extra labels here")
        for key, value in labels.items():
            if not _LABEL_KEY.match(key) or len(key) > 253:
                raise ValueError(f"label key {short_repr(key)} is not a valid Kubernetes label key")
            if not _LABEL_VALUE.match(value):
                raise ValueError(f"label {short_repr(key)}={short_repr(value)}: value must be at most 63 letters, "
                                 "digits, '-', '_', '.'")
        return labels

    @model_validator(mode="after")
    def _gpu_count_fits_model(self) -> Server:
        most = max_per_server(self.gpu_model)
        if most is not None and self.gpu_count > most:
            raise ValueError(f"gpu_count: {self.gpu_count} {self.gpu_model} GPUs in one server, but that model "
                             f"fits at most {most} per server; check the server's GPU count or model")
        return self


class Ownership(StrictModel):
    """What the inventory's servers cost to own. Each figure left out is the sourced default in
    accelfit/pricing/data/owned_hardware.yaml, and every plan says which figures are defaults."""

    purchase_usd_per_server: Number | None = Field(
        default=None, ge=0, le=100_000_000, description="Purchase price of one server, USD (0: already written off).")
    purchased: dt.date | None = Field(default=None, description="When the servers were bought (YYYY-MM-DD); stated "
                                      "with the month their amortization ends.")
    amortization_months: WholeNumber | None = Field(
        default=None, ge=1, le=240, description="Months the purchase price is spread over, straight-line.")
    energy_usd_per_kwh: Number | None = Field(default=None, ge=0, le=10, description="Electricity price, USD/kWh.")
    pue: Number | None = Field(default=None, ge=1, le=5,
                               description="Power usage effectiveness of the site (facility power / IT power), >= 1.")
    rack_power_kw: Number | None = Field(default=None, gt=0, le=1000,
                                         description="IT power budget of one rack, kW: how many servers share a rack.")
    colocation_usd_per_rack_month: Number | None = Field(
        default=None, ge=0, le=10_000_000, description="What one rack costs per month (space, cooling), USD.")
    staff_usd_per_server_year: Number | None = Field(
        default=None, ge=0, le=10_000_000, description="Support contract and staff time per server-year, USD.")


# The largest site accelfit builds: measured, not guessed (benchmarks/bench_baremetal.py, issue 39, two cores): a
# 30,000-server preview records 60,021 resources in 5.2 GB and some 113 CPU-s (10,000: 1.8 GB, 26 CPU-s), about what
# a CI runner holds; the Pulumi SDK alone, same resources, is 3.1 GB and 45 CPU-s. Larger sites: split the inventory.
MAX_SERVERS = 30_000


class Inventory(StrictModel):
    site: str = Field(pattern=DNS_LABEL, max_length=63, description="Site name, used in labels and resource names.")
    servers: tuple[Server, ...] = Field(min_length=1, max_length=MAX_SERVERS, description="The GPU servers.")
    ownership: Ownership = Field(default_factory=Ownership,
                                 description="What the servers cost to own; figures left out are sourced defaults.")

    @model_validator(mode="before")
    @classmethod
    def _no_credentials(cls, data: Any) -> Any:
        """A password or key pasted into an inventory (ssh_user, a label) is refused unquoted: hosts are reached
        with the stack's secret accelfit:sshPrivateKey."""
        for path, kind, masked_form in credential_paths(data):
            raise ValueError(credential_message(path, kind, masked_form))
        servers = data.get("servers") if isinstance(data, dict) else None
        for index, server in enumerate(servers if isinstance(servers, list) else []):
            if not isinstance(server, dict):
                continue
            # A user name never holds ':', an address never '@': either is `user:password` or `user@host` pasted
            # whole, and the usual "(got ...)" would print it.
            for field, mark, kind in (("ssh_user", ":", "a user name with its password"),
                                      ("address", "@", "a user (and password) in the address")):
                value = server.get(field)
                if isinstance(value, str) and mark in value:
                    raise ValueError(f"servers[{index}].{field}: holds {kind} (the value is not shown); give "
                                     f"{'the user name alone' if field == 'ssh_user' else 'the host name or IP alone'}"
                                     "; hosts are reached with the stack's secret key (pulumi config set --secret "
                                     "accelfit:sshPrivateKey < <key file>)")
        return data

    @model_validator(mode="after")
    def _unique(self) -> Inventory:
        spellings = {"name": str.lower, "address": address_key}
        for attribute, key_of in spellings.items():
            seen: dict[str, int] = {}
            for index, server in enumerate(self.servers):
                value = getattr(server, attribute)
                key = key_of(value)
                if key in seen:
                    first = getattr(self.servers[seen[key]], attribute)
                    same = "" if first == value else f" (written {first!r} there: the same {attribute})"
                    raise ValueError(f"servers[{index}].{attribute}: {value!r} is already used by "
                                     f"servers[{seen[key]}]{same}; every server needs its own {attribute}")
                seen[key] = index
        return self
