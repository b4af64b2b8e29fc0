"""The accelerator catalog: dated, sourced facts about chips, machine shapes, TPU slices and prices.

Pure data in, data out: nothing here imports Pulumi or a provider SDK.

Loading:
    load_catalog(data_dir=None, imported=None) -> Catalog
        The active catalog: the packaged data (`accelfit/catalog/data/*.yaml`) overlaid with the catalog that
        `accelfit catalog update` imported under $ACCELFIT_CATALOG_DIR when one is installed (`store.py`),
        validated and cached per process; `catalog.origin` says which it is. Pass a directory (and an imported
        directory) to load another copy (never cached). Every bad row or broken cross-reference is reported
        together in one `accelfit.errors.InputError` that names the file and field path (`prices[12].hourly_usd`).
    update.update_catalog(source) imports SkyPilot's catalog v8 (`skypilot.py`) atomically;
    accelfit.cloudrules.coverage.coverage(catalog) counts what is priced per cloud and pricing model.

Lookups (methods on `Catalog`, answered from dict indexes built once per catalog):
    accelerator(name) -> Accelerator                      canonical name or alias; UnknownAcceleratorError
    canonical(name) -> str
    instance_type(cloud, name) -> InstanceType | None
    instance_types_for(cloud=None, accelerator=None, region=None) -> tuple[InstanceType, ...]
    tpu_slice(name) -> TpuSlice | None                    e.g. "v5p-128", "v5litepod-16"
    tpu_slices_for(accelerator=None, zone=None, region=None) -> tuple[TpuSlice, ...]   smallest first
    price(cloud, sku, region, pricing="on-demand") -> Price | None
        per instance-hour for instance types, per chip-hour for TPU generations (sku "tpu-v5p")
    prices_for(cloud, sku) -> tuple[Price, ...]
    tpu_slice_hourly_usd(tpu_slice, region, pricing="on-demand") -> float | None   chip-hour x chips
    service_price(cloud, service, region) -> ServicePrice | None                   falls back to region "*"
    availability_for(cloud, sku) -> tuple[Availability, ...]                       GPU types and TPU generations
    offered_zones(cloud, sku, region) -> tuple[str, ...] | None                    None = not offered there
    mfu(accelerator) -> EfficiencyFigure                  LookupError when no figure

Names (cheap, read only accelerators.yaml): canonical_accelerator, canonical_names, accelerator_kind,
max_per_server, UnknownAcceleratorError.
"""

from accelfit.catalog.loader import DATA_DIR, SCHEMA_VERSION, load_catalog
from accelfit.catalog.models import (
    Accelerator,
    AcceleratorKind,
    Availability,
    Catalog,
    CatalogOrigin,
    Cloud,
    EfficiencyFigure,
    InstanceType,
    Precision,
    Price,
    PricingModel,
    ServicePrice,
    TpuSlice,
)
from accelfit.catalog.names import (
    UnknownAcceleratorError,
    accelerator_kind,
    canonical_accelerator,
    canonical_names,
    max_per_server,
)

__all__ = [
    "DATA_DIR",
    "SCHEMA_VERSION",
    "Accelerator",
    "AcceleratorKind",
    "Availability",
    "Catalog",
    "CatalogOrigin",
    "Cloud",
    "EfficiencyFigure",
    "InstanceType",
    "Precision",
    "Price",
    "PricingModel",
    "ServicePrice",
    "TpuSlice",
    "UnknownAcceleratorError",
    "accelerator_kind",
    "canonical_accelerator",
    "canonical_names",
    "load_catalog",
    "max_per_server",
]
