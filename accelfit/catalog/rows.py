"""Typed rows of the accelerator catalog. Units are in the field names; every fact carries `as_of` and `source`.

The rows are loaded from the versioned YAML files in `accelfit/catalog/data/` (see `loader.py`); `CatalogRows` is
all of them together, which `lookup.py` indexes and `models.Catalog` answers questions from. Nothing here reads
files or knows about Pulumi.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from accelfit.buying import buying_model_names, is_buying_model
from accelfit.clouds.names import Cloud as Cloud  # a row's cloud, re-exported with the rows


class Frozen(BaseModel):
    """Base for catalog rows: immutable, unknown keys rejected (a misspelt key in a data file is an error)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Precision(str, Enum):
    fp32 = "fp32"
    tf32 = "tf32"
    bf16 = "bf16"
    fp16 = "fp16"
    fp8 = "fp8"
    fp4 = "fp4"
    int8 = "int8"


class PricingModel(str):
    """A buying model's name (a price row's pricing, budget.pricing), checked against the buying-model table
    (accelfit/buying: what each one is): the seven shipped models and any registered later. A str, so lookups take
    either; `.value` and the members (PricingModel.spot) as the Enum it replaced had them."""

    __slots__ = ()
    on_demand: ClassVar[PricingModel]
    spot: ClassVar[PricingModel]
    committed_1y: ClassVar[PricingModel]
    committed_3y: ClassVar[PricingModel]
    reservation: ClassVar[PricingModel]
    flex_start: ClassVar[PricingModel]
    capacity_block: ClassVar[PricingModel]

    def __new__(cls, value: str) -> PricingModel:
        name = str(getattr(value, "value", value))
        if not is_buying_model(name):
            raise ValueError(f"{name!r} is not a valid PricingModel; known: {', '.join(buying_model_names())}")
        return super().__new__(cls, name)

    @property
    def value(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"PricingModel({self.value!r})"

    @classmethod
    def _validate(cls, value: Any) -> PricingModel:
        if value.__class__ is cls:
            return value
        if isinstance(value, str) and is_buying_model(value):
            return cls(value)
        # The error an Enum field gave (type "enum", the allowed values), so messages name the choices as before.
        expected = ", ".join(f"'{name}'" for name in buying_model_names()[:-1])
        expected += f" or '{buying_model_names()[-1]}'"
        raise PydanticCustomError("enum", "Input should be {expected}", {"expected": expected})

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate, serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
            ref="accelfit.catalog.rows.PricingModel")

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"enum": list(buying_model_names()), "title": "PricingModel", "type": "string"}


for _name in ("on-demand", "spot", "committed-1y", "committed-3y", "reservation", "flex-start", "capacity-block"):
    setattr(PricingModel, _name.replace("-", "_"), PricingModel(_name))


AcceleratorKind = Literal["gpu", "tpu"]


class Sourced(Frozen):
    """A fact with the date it was true and where it came from."""

    as_of: dt.date = Field(description="Date the figure was read or published.")
    source: str = Field(min_length=3, description="Where the figure comes from (document, page, repository@commit).")
    verified: bool = Field(default=True, description="False where the figure is second-hand, recalled or judged; "
                           "`source` then says why.")


class Accelerator(Sourced):
    """One accelerator chip (per GPU or per TPU chip)."""

    name: str = Field(description="Canonical name, e.g. h100-80gb or tpu-v5p.")
    kind: AcceleratorKind
    vendor: Literal["nvidia", "google"]
    aliases: tuple[str, ...] = Field(default=(), description="Other spellings accepted on input.")
    memory_gib: float = Field(gt=0, description="Device memory per chip, GiB.")
    memory_bandwidth_gbps: float = Field(gt=0, description="Device memory bandwidth per chip, GB/s.")
    dense_tflops: dict[Precision, float] = Field(
        description="Dense (no sparsity) peak per supported precision, TFLOP/s (TOPS for int8). "
        "A precision missing here is not supported by the chip.")
    peak_sources: dict[Precision, str] = Field(
        default_factory=dict, description="Where a precision's peak comes from, per precision, when it needs its "
        "own citation (FP8/INT8 rates are datasheet sparse figures halved, or TOPS from another page); the row's "
        "`source` covers the others. Serving uses each precision's own peak; training measures MFU against BF16.")
    interconnect: str = Field(description="Chip-to-chip link, e.g. NVLink4, PCIe4, ICI.")
    interconnect_gbps: float = Field(ge=0, description="Chip-to-chip bandwidth per chip, bidirectional, GB/s; 0 if none.")
    power_w: float | None = Field(default=None, gt=0, description="Board power, W, where published.")
    max_per_server: int = Field(ge=1, description="Most chips of this model one server or TPU host holds.")
    tensorcores_per_chip: int | None = Field(default=None, ge=1, description="TPU only: TensorCores per chip.")

    @model_validator(mode="after")
    def _peak_sources_name_known_peaks(self) -> Accelerator:
        unknown = sorted(key.value for key in self.peak_sources if key not in self.dense_tflops)
        if unknown:
            raise ValueError(f"peak_sources: {', '.join(unknown)} has a source but no peak in dense_tflops; add the "
                             "peak or drop the source")
        return self

    def supports(self, precision: Precision) -> bool:
        return precision in self.dense_tflops

    def __hash__(self) -> int:
        # dense_tflops is a dict, which the generated frozen hash cannot hash; the name identifies a chip.
        return hash((type(self).__name__, self.name))


class InstanceType(Sourced):
    """A cloud machine shape that carries GPUs (AWS instance type or GCP machine type)."""

    cloud: Cloud
    name: str = Field(description="Instance or machine type, e.g. p5.48xlarge or a3-highgpu-8g.")
    family: str = Field(description="Family, e.g. p5 or a3-high.")
    accelerator: str = Field(description="Canonical accelerator name.")
    accelerator_count: int = Field(ge=1, description="GPUs per instance.")
    vcpus: int = Field(ge=1, description="vCPUs per instance.")
    memory_gib: float = Field(gt=0, description="RAM per instance, GiB.")
    local_nvme_gb: float = Field(ge=0, description="Local NVMe/SSD attached to the instance, GB; 0 if none.")
    network_gbps: float = Field(gt=0, description="Total network bandwidth, Gbps (EFA/RDMA included).")
    efa_interfaces: int = Field(default=0, ge=0, description="AWS: most EFA interfaces the type takes; 0 = no EFA.")
    network_cards: int = Field(default=1, ge=1, description="AWS: network cards (EFA interfaces go one per card).")
    gpudirect: Literal["none", "tcpx", "tcpxo", "rdma"] = Field(
        default="none", description="GCP: GPUDirect flavour for multi-NIC machines.")
    extra_networks: int = Field(default=0, ge=0, description="GCP: extra VPCs the machine needs for GPUDirect NICs.")
    gke_accelerator: str | None = Field(default=None, description="GCP: guest accelerator / GKE label string.")
    regions: tuple[str, ...] = Field(
        default=(), description="Regions where the availability data lists the type. Filled by the loader from "
        "the `availability` rows; never written in an instance-type row (availability is its own data).")


class TpuSlice(Sourced):
    """One Cloud TPU slice shape of a generation."""

    accelerator: str = Field(description="Canonical TPU generation name, e.g. tpu-v5p.")
    name: str = Field(description="Cloud TPU accelerator type, e.g. v5p-128 (TensorCores) or v5litepod-8 (chips).")
    chips: int = Field(ge=1, description="TPU chips in the slice.")
    hosts: int = Field(ge=1, description="TPU VMs (GKE nodes) in the slice.")
    topology: str = Field(pattern=r"^[0-9]+x[0-9]+(x[0-9]+)?$", description="e.g. 2x4 or 4x4x4.")
    accelerator_config_type: str = Field(description="tpu.V2Vm accelerator_config.type, e.g. V5P or V5LITE_POD.")
    gke_machine_type: str = Field(description="GKE node machine type, e.g. ct5p-hightpu-4t.")
    gke_accelerator: str = Field(description="GKE node label cloud.google.com/gke-tpu-accelerator.")
    chips_per_host: int = Field(ge=1, description="TPU chips per host VM.")
    host_vcpus: int = Field(ge=1, description="vCPUs per TPU host VM.")
    host_memory_gib: float = Field(gt=0, description="RAM per TPU host VM, GiB.")
    max_slices: int = Field(default=1, ge=1, description="Most slices of this shape in one multislice job.")

    @model_validator(mode="after")
    def _shape_is_consistent(self) -> TpuSlice:
        # Messages follow accelfit.validation's "<path>: <what>; <fix>" convention so they point at the field.
        product = 1
        for side in self.topology.split("x"):
            product *= int(side)
        if product != self.chips:
            raise ValueError(f"topology: {self.topology} holds {product} chips but chips is {self.chips}; "
                             "make the topology's sides multiply to the chip count")
        # A slice smaller than one host (v5e/v6e 1t machines) still occupies one host.
        if self.chips != self.hosts * self.chips_per_host and not (self.hosts == 1 and self.chips <= self.chips_per_host):
            raise ValueError(f"hosts: {self.hosts} hosts x {self.chips_per_host} chips per host != {self.chips} chips; "
                             "set hosts = chips / chips_per_host")
        return self

    @property
    def multi_host(self) -> bool:
        return self.hosts > 1


def region_of_zone(zone: str) -> str:
    """'us-central1-b' -> 'us-central1' (GCP); 'us-east-1a' -> 'us-east-1' (AWS)."""
    if zone[-1:].isalpha() and zone[-2:-1].isdigit():
        return zone[:-1]
    return zone.rsplit("-", 1)[0]


class Price(Sourced):
    """Hourly price of an instance type (per instance-hour) or of a TPU generation (per chip-hour).

    `verified` (from Sourced) is False where the figure is second-hand or recalled; `source` then says why.
    """

    cloud: Cloud
    sku: str = Field(description="Instance/machine type name, or the TPU accelerator name for chip-hours.")
    unit: Literal["instance-hour", "chip-hour"]
    region: str = Field(description="Region the price applies to, e.g. us-east-1 or us-central1.")
    pricing: PricingModel
    hourly_usd: float = Field(gt=0, allow_inf_nan=False,  # an infinite price would make every plan cost Infinity
                              description="USD per hour (per instance, or per chip for TPU), above 0.")


class Availability(Sourced):
    """Where a cloud offers a SKU: one row per (cloud, sku, region), with the zones where it is offered.

    The one data model for availability, never inferred from a price: GPU instance / machine types
    (`gpu_availability.yaml`) and TPU generations (sku `tpu-v5p`, ...). A price row in a region or zone that no
    availability row lists is not an offer. `zones` is empty where the source gives only the region (AWS
    availability-zone names differ per account; AZ IDs such as use1-az1 are the same for everyone and are what
    an AWS row lists when it lists zones).
    """

    cloud: Cloud
    sku: str = Field(description="Instance/machine type name, or a TPU generation (canonical name, e.g. tpu-v6e).")
    region: str = Field(description="Region, e.g. us-east-1 or us-central1.")
    zones: tuple[str, ...] = Field(default=(), description="Zones (GCP zone names, AWS AZ IDs) where it is offered; "
                                   "empty when the source lists only the region.")


class NotSold(Sourced):
    """A way a cloud does not sell a SKU at all, e.g. GCP sells a3-highgpu-1g/-2g/-4g only as Spot or flex-start VMs,
    never on demand. A fact with a source, not a missing price: `accelfit catalog --coverage` reports the pair as
    "not sold this way" instead of unpriced, and the planner rejects it as not sold instead of asking for a price
    import. A price row for a not-sold key is an integrity problem (one of the two is wrong)."""

    cloud: Cloud
    sku: str = Field(description="Instance/machine type name (or TPU generation).")
    pricing: PricingModel = Field(description="The pricing model the cloud does not sell the SKU under.")
    regions: tuple[str, ...] = Field(default=("*",), min_length=1,
                                     description="Regions the rule holds in; '*' for every region.")
    sold_as: tuple[str, ...] = Field(min_length=1, description="How the cloud does sell it, e.g. spot, flex-start, "
                                     "reservation (calendar mode / future reservation).")

    def covers(self, region: str) -> bool:
        return "*" in self.regions or region in self.regions


class CatalogOrigin(Frozen):
    """Which catalog a plan used: the shipped snapshot, or an import with its date and source."""

    kind: Literal["shipped", "imported"]
    as_of: dt.date = Field(description="Shipped: newest price date in the snapshot. Imported: the import date.")
    source: str = Field(description="Shipped: 'accelfit shipped snapshot'. Imported: the directory or URL read.")

    @property
    def label(self) -> str:
        if self.kind == "shipped":
            return f"shipped snapshot, newest price {self.as_of}"
        return f"imported {self.as_of} from {self.source}"


class ServicePrice(Sourced):
    """Price of a supporting service: storage, egress, cluster fees, NAT."""

    cloud: Cloud
    service: str = Field(description="e.g. gcs-standard, s3-standard, filestore-zonal, fsx-lustre-persistent2-125, "
                         "pd-balanced, ebs-gp3, egress-internet, gke-cluster, eks-cluster, nat-hour, nat-data, "
                         "serving-lb-hour, serving-lb-data, managed-prometheus-samples.")
    unit: Literal["gib-month", "gb", "hour", "million-samples"] = Field(description="What one `usd` buys.")
    region: str = Field(description="Region, or '*' for a price that is the same everywhere.")
    usd: float = Field(ge=0, allow_inf_nan=False, description="USD per unit, 0 or more.")


class EfficiencyFigure(Sourced):
    """Model FLOPs utilisation to expect for dense LLM training on an accelerator, from published runs."""

    accelerator: str = Field(description="Canonical accelerator name.")
    mfu: float = Field(gt=0, lt=1, description="Model FLOPs utilisation, a fraction between 0 and 1.")
    notes: str = Field(default="", description="Which run or judgement the figure rests on.")


# Lookups are hot (thousands per plan) and an Enum call costs ~0.5 us: members pass through, known values are
# looked up, anything else gets the Enum's own error.


def _as_cloud(value: Cloud | str) -> Cloud:
    if value.__class__ is Cloud:
        return value
    known = Cloud.interned(value)  # the hot path: one object per name, still registered
    return known if known is not None else Cloud(value)


def _as_pricing(value: PricingModel | str) -> str:
    """A lookup key: a PricingModel is a str, so a known name is its own key; an unknown one is an error."""
    return value if value.__class__ is PricingModel or is_buying_model(value) else PricingModel(value)


class CatalogRows(Frozen):
    """Every row of one catalog, as loaded; `models.Catalog` adds the indexes and the lookups over them."""

    schema_version: int
    accelerators: tuple[Accelerator, ...]
    instance_types: tuple[InstanceType, ...]
    tpu_slices: tuple[TpuSlice, ...]
    prices: tuple[Price, ...]
    service_prices: tuple[ServicePrice, ...]
    efficiency: tuple[EfficiencyFigure, ...]
    availability: tuple[Availability, ...] = ()
    not_sold: tuple[NotSold, ...] = ()
    origin: CatalogOrigin | None = Field(default=None, description="Which catalog this is; None for hand-built ones.")
