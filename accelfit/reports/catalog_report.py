"""What `accelfit catalog` shows: a filtered view of the catalog as a stable JSON document, a text table or markdown.

The JSON document is an interface (scripts read it), so its keys only ever grow:
    {"schema_version", "filters", "accelerators": [...],
     "instance_types": [... each with "prices": [{pricing, region, hourly_usd, as_of, source, verified}]],
     "tpu_slices": [... each with "regions", "multi_host" and "prices" per slice-hour
                    (chip-hour price x chips; "chip_hourly_usd" keeps the per-chip figure)]}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accelfit.catalog.models import Accelerator, Catalog, Cloud, InstanceType, Price, PricingModel, TpuSlice
from accelfit.clouds import cloud_named
from accelfit.reports.table import render_markdown_table, render_table

# Regions used for the table's price columns when no --region is given: the regions every price table quotes.
_HOME_REGION = {Cloud.aws: "us-east-1", Cloud.gcp: "us-central1"}
_UNVERIFIED_MARK = "*"


@dataclass(frozen=True)
class CatalogFilter:
    """Filters from the command line; None means no filter. `accelerator` is already canonical."""

    cloud: Cloud | None = None
    accelerator: str | None = None
    region: str | None = None
    kind: str | None = None  # "gpu" | "tpu"


@dataclass(frozen=True)
class CatalogView:
    filters: CatalogFilter
    accelerators: tuple[Any, ...]
    instance_types: tuple[InstanceType, ...]
    tpu_slices: tuple[TpuSlice, ...]


def select(catalog: Catalog, filters: CatalogFilter) -> CatalogView:
    """The rows the filters keep. An accelerator is listed when some kept offering carries it (or, without
    cloud/region filters, always), so `--cloud aws` does not list TPUs."""
    instances: tuple[InstanceType, ...] = ()
    slices: tuple[TpuSlice, ...] = ()
    if filters.kind in (None, "gpu"):
        instances = catalog.instance_types_for(filters.cloud, filters.accelerator, filters.region)
        if filters.accelerator is None:
            instances = tuple(sorted(instances, key=lambda row: (row.cloud.value, row.family, row.accelerator_count,
                                                                 row.vcpus, row.name)))
    if filters.kind in (None, "tpu") and (filters.cloud is None or cloud_named(filters.cloud.value).tpu_platforms):
        slices = catalog.tpu_slices_for(filters.accelerator, region=filters.region)
    offered = {row.accelerator for row in instances} | {row.accelerator for row in slices}
    narrowed = filters.cloud is not None or filters.region is not None
    accelerators = tuple(row for row in catalog.accelerators
                         if (filters.accelerator is None or row.name == filters.accelerator)
                         and (filters.kind is None or row.kind == filters.kind)
                         and (not narrowed or row.name in offered))
    return CatalogView(filters, accelerators, instances, slices)


# ---------------------------------------------------------------------------------------------- JSON document


def catalog_document(catalog: Catalog, filters: CatalogFilter) -> dict[str, Any]:
    view = select(catalog, filters)
    return {
        "schema_version": catalog.schema_version,
        "filters": {"cloud": filters.cloud.value if filters.cloud else None, "accelerator": filters.accelerator,
                    "region": filters.region, "kind": filters.kind},
        "accelerators": [_accelerator_json(catalog, row) for row in view.accelerators],
        "instance_types": [_instance_json(catalog, row, filters.region) for row in view.instance_types],
        "tpu_slices": [_slice_json(catalog, row, filters.region) for row in view.tpu_slices],
    }


def _price_json(price: Price, hourly_usd: float) -> dict[str, Any]:
    return {"pricing": price.pricing.value, "region": price.region, "hourly_usd": round(hourly_usd, 6),
            "as_of": price.as_of.isoformat(), "source": price.source, "verified": price.verified}


def _accelerator_json(catalog: Catalog, row: Accelerator) -> dict[str, Any]:
    document = row.model_dump(mode="json")
    try:
        figure = catalog.mfu(row.name)
    except LookupError:
        document["mfu"] = None
    else:
        document["mfu"] = {"mfu": figure.mfu, "notes": figure.notes, "as_of": figure.as_of.isoformat(),
                           "source": figure.source, "verified": figure.verified}
    return document


def _instance_json(catalog: Catalog, row: InstanceType, region: str | None) -> dict[str, Any]:
    document = row.model_dump(mode="json")
    document["prices"] = [_price_json(price, price.hourly_usd) for price in catalog.prices_for(row.cloud, row.name)
                          if region is None or price.region == region]
    return document


def _slice_json(catalog: Catalog, row: TpuSlice, region: str | None) -> dict[str, Any]:
    document = row.model_dump(mode="json")
    regions = catalog.available_regions(row.accelerator)
    document["zones"] = list(catalog.available_zones(row.accelerator))
    document["regions"] = list(regions)
    document["multi_host"] = row.multi_host
    prices = []
    for price in catalog.prices_for(Cloud.gcp, row.accelerator):
        if price.region in regions and (region is None or price.region == region):
            entry = _price_json(price, price.hourly_usd * row.chips)
            entry["unit"] = "slice-hour"
            entry["chip_hourly_usd"] = price.hourly_usd
            prices.append(entry)
    document["prices"] = prices
    return document


# ---------------------------------------------------------------------------------------------- tables


def render_catalog_text(catalog: Catalog, filters: CatalogFilter) -> str:
    return _render(catalog, filters, markdown=False)


def render_catalog_markdown(catalog: Catalog, filters: CatalogFilter) -> str:
    return _render(catalog, filters, markdown=True)


def _render(catalog: Catalog, filters: CatalogFilter, markdown: bool) -> str:
    view = select(catalog, filters)
    table = render_markdown_table if markdown else render_table
    sections: list[str] = []

    def add(title: str, headers: Sequence[str], rows: list[list[object]]) -> None:
        if not rows:
            return
        heading = f"### {title}" if markdown else f"{title}\n"
        sections.append(f"{heading}\n{table(headers, rows)}" if markdown else f"{heading}{table(headers, rows)}")

    add("Accelerators", ["name", "kind", "mem GiB", "BW GB/s", "bf16 TFLOPs", "fp8 TFLOPs", "link", "link GB/s",
                         "per server", "MFU"],
        [_accelerator_row(catalog, row) for row in view.accelerators])
    add("Instance types", ["cloud", "instance", "accelerator", "GPUs", "vCPU", "RAM GiB", "NVMe GB", "net Gbps",
                           "fabric", "regions", "price region", "on-demand $/h", "spot $/h", "as of"],
        [_instance_row(catalog, row, filters.region) for row in view.instance_types])
    add("TPU slices", ["slice", "generation", "chips", "hosts", "topology", "GKE machine", "zones", "max slices",
                       "price region", "on-demand $/h", "spot $/h", "as of"],
        [_slice_row(catalog, row, filters.region) for row in view.tpu_slices])
    if not sections:
        return "no catalog entries match the filters"
    footer = (f"{_UNVERIFIED_MARK} unverified figure (second-hand, recalled or derived); `--json` gives each "
              "price's source. Prices are USD per hour; TPU prices per slice (chip-hour price x chips).")
    return "\n\n".join([*sections, footer])


def _accelerator_row(catalog: Catalog, row: Any) -> list[object]:
    try:
        mfu: object = f"{catalog.mfu(row.name).mfu:.2f}"
    except LookupError:
        mfu = None
    tflops = {precision.value: value for precision, value in row.dense_tflops.items()}
    return [row.name, row.kind, _num(row.memory_gib), _num(row.memory_bandwidth_gbps), _num(tflops.get("bf16")),
            _num(tflops.get("fp8")), row.interconnect, _num(row.interconnect_gbps), row.max_per_server, mfu]


def _instance_row(catalog: Catalog, row: InstanceType, region: str | None) -> list[object]:
    fabric = (f"EFA x{row.efa_interfaces}" if row.efa_interfaces else
              f"GPUDirect-{row.gpudirect.upper()} +{row.extra_networks} VPC" if row.gpudirect != "none" else "-")
    price_region, on_demand, spot, as_of = _price_cells(catalog, row.cloud, row.name, row.regions, region, 1)
    return [row.cloud.value, row.name, row.accelerator, row.accelerator_count, row.vcpus, _num(row.memory_gib),
            _num(row.local_nvme_gb), _num(row.network_gbps), fabric, _compact(row.regions), price_region, on_demand,
            spot, as_of]


def _slice_row(catalog: Catalog, row: TpuSlice, region: str | None) -> list[object]:
    price_region, on_demand, spot, as_of = _price_cells(catalog, Cloud.gcp, row.accelerator,
                                                        catalog.available_regions(row.accelerator), region, row.chips)
    return [row.name, row.accelerator, row.chips, row.hosts, row.topology, row.gke_machine_type,
            _compact(catalog.available_zones(row.accelerator)),
            row.max_slices, price_region, on_demand, spot, as_of]


def _price_cells(catalog: Catalog, cloud: Cloud, sku: str, offered: Sequence[str], region: str | None,
                 multiplier: int) -> tuple[object, object, object, object]:
    """(region, on-demand, spot, as_of) for the asked region, else the cloud's home region, else the first priced."""
    prices = [price for price in catalog.prices_for(cloud, sku) if price.region in offered]
    if region is not None:
        chosen: str | None = region
    else:
        priced = [price.region for price in prices]
        chosen = _HOME_REGION[cloud] if _HOME_REGION[cloud] in priced else (priced[0] if priced else None)
    if chosen is None:
        return None, None, None, None
    here = {price.pricing: price for price in prices if price.region == chosen}
    cells = []
    for model in (PricingModel.on_demand, PricingModel.spot):
        price = here.get(model)
        cells.append(None if price is None else
                     f"{price.hourly_usd * multiplier:,.2f}" + ("" if price.verified else _UNVERIFIED_MARK))
    dates = sorted({price.as_of.isoformat() for price in here.values()})
    return chosen, cells[0], cells[1], (dates[-1] if dates else None)


def _num(value: float | None) -> str | None:
    if value is None:
        return None
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.0f}"


def _compact(items: Sequence[str], shown: int = 2) -> str:
    """'us-central1, us-east1 +9': enough to see where, without a column as wide as the terminal."""
    head = ", ".join(items[:shown])
    return head + (f" +{len(items) - shown}" if len(items) > shown else "")
