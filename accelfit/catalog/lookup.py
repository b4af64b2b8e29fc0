"""Dict indexes over a `Catalog`, built once so lookups in the planner's loops are O(1), never row scans.

`Catalog` builds one `CatalogIndex` when it is constructed and answers its lookup methods from it; nothing
here is meant to be used directly.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from accelfit.catalog.rows import (
    Accelerator,
    Availability,
    CatalogRows,
    Cloud,
    EfficiencyFigure,
    InstanceType,
    NotSold,
    Price,
    ServicePrice,
    TpuSlice,
    region_of_zone,
)
from accelfit.buying import buying_model
from accelfit.catalog.names import UnknownAcceleratorError, fold
from accelfit.errors import did_you_mean



@dataclass(frozen=True)
class CatalogIndex:
    by_alias: dict[str, Accelerator]  # folded alias or canonical name -> row
    instance_by_key: dict[tuple[Cloud, str], InstanceType]
    instances_by_accelerator: dict[str, tuple[InstanceType, ...]]
    slice_by_name: dict[str, TpuSlice]
    slices_by_accelerator: dict[str, tuple[TpuSlice, ...]]
    price_by_key: dict[tuple[Cloud, str, str, str], Price]  # the pricing: a PricingModel, a str
    prices_by_sku: dict[tuple[Cloud, str], tuple[Price, ...]]
    not_sold_by_key: dict[tuple[Cloud, str, str], tuple[NotSold, ...]]
    service_by_key: dict[tuple[Cloud, str, str], ServicePrice]
    efficiency_by_accelerator: dict[str, EfficiencyFigure]
    availability_by_key: dict[tuple[Cloud, str, str], Availability]
    availability_by_sku: dict[tuple[Cloud, str], tuple[Availability, ...]]

    @classmethod
    def build(cls, catalog: CatalogRows) -> CatalogIndex:
        by_alias: dict[str, Accelerator] = {}
        for row in catalog.accelerators:
            for alias in (row.name, *row.aliases):
                by_alias.setdefault(fold(alias), row)

        instances: dict[str, list[InstanceType]] = defaultdict(list)
        for instance in catalog.instance_types:
            instances[instance.accelerator].append(instance)
        slices: dict[str, list[TpuSlice]] = defaultdict(list)
        for tpu_slice in catalog.tpu_slices:
            slices[tpu_slice.accelerator].append(tpu_slice)

        by_sku: dict[tuple[Cloud, str], list[Price]] = defaultdict(list)
        for price in catalog.prices:
            by_sku[(price.cloud, price.sku)].append(price)

        not_sold: dict[tuple[Cloud, str, str], list[NotSold]] = defaultdict(list)
        for rule in catalog.not_sold:
            not_sold[(rule.cloud, rule.sku, rule.pricing)].append(rule)

        available: dict[tuple[Cloud, str], list[Availability]] = defaultdict(list)
        for offered in catalog.availability:
            available[(offered.cloud, offered.sku)].append(offered)

        return cls(
            by_alias=by_alias,
            # setdefault keeps the first row on duplicates; the loader reports duplicates as problems.
            instance_by_key={(row.cloud, row.name): row for row in reversed(catalog.instance_types)},
            instances_by_accelerator={name: tuple(rows) for name, rows in instances.items()},
            slice_by_name={row.name: row for row in reversed(catalog.tpu_slices)},
            slices_by_accelerator={name: tuple(sorted(rows, key=lambda row: (row.chips, row.name)))
                                   for name, rows in slices.items()},
            price_by_key={(row.cloud, row.sku, row.region, row.pricing): row for row in reversed(catalog.prices)},
            prices_by_sku={key: tuple(sorted(rows, key=lambda row: (row.region, buying_model(row.pricing).catalog_order)))
                           for key, rows in by_sku.items()},
            not_sold_by_key={key: tuple(rows) for key, rows in not_sold.items()},
            service_by_key={(row.cloud, row.service, row.region): row for row in reversed(catalog.service_prices)},
            efficiency_by_accelerator={row.accelerator: row for row in reversed(catalog.efficiency)},
            availability_by_key={(row.cloud, row.sku, row.region): row for row in reversed(catalog.availability)},
            availability_by_sku={key: tuple(sorted(rows, key=lambda row: row.region)) for key, rows in available.items()},
        )

    def offering_key(self, offering: str) -> str:
        """A TPU generation's canonical name for any alias ('v5p' -> 'tpu-v5p'); a machine family as given."""
        found = self.by_alias.get(fold(offering))
        return found.name if found is not None else offering

    def zones_of(self, cloud: Cloud, offering: str) -> tuple[str, ...]:
        rows = self.availability_by_sku.get((cloud, self.offering_key(offering)), ())
        return tuple(sorted({zone for row in rows for zone in row.zones}))

    def accelerator(self, name: str) -> Accelerator:
        found = self.by_alias.get(fold(name))
        if found is None:
            close = did_you_mean(fold(name), self.by_alias)
            known = tuple(dict.fromkeys(row.name for row in self.by_alias.values()))
            raise UnknownAcceleratorError(name, self.by_alias[close].name if close else None, known)
        return found

    def instances(self, cloud: Cloud | str | None, accelerator: str | None,
                  region: str | None) -> tuple[InstanceType, ...]:
        if accelerator is not None:
            rows: tuple[InstanceType, ...] = self.instances_by_accelerator.get(self.accelerator(accelerator).name, ())
        else:
            rows = tuple(row for group in self.instances_by_accelerator.values() for row in group)
        wanted_cloud = Cloud(cloud) if cloud is not None else None
        return tuple(row for row in rows
                     if (wanted_cloud is None or row.cloud == wanted_cloud)
                     and (region is None or region in row.regions))

    def slices(self, accelerator: str | None, zone: str | None, region: str | None) -> tuple[TpuSlice, ...]:
        if accelerator is not None:
            rows: tuple[TpuSlice, ...] = self.slices_by_accelerator.get(self.accelerator(accelerator).name, ())
        else:
            rows = tuple(row for group in self.slices_by_accelerator.values() for row in group)
        if zone is None and region is None:
            return rows

        def offered(row: TpuSlice) -> bool:
            zones = self.zones_of(Cloud.gcp, row.accelerator)
            return ((zone is None or zone in zones)
                    and (region is None or any(region_of_zone(item) == region for item in zones)))

        return tuple(row for row in rows if offered(row))

    def mfu(self, accelerator: str) -> EfficiencyFigure:
        name = self.accelerator(accelerator).name
        found = self.efficiency_by_accelerator.get(name)
        if found is None:
            raise LookupError(f"the catalog has no MFU figure for {name!r}; add one to efficiency.yaml")
        return found
