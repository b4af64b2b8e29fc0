"""The catalog model: its typed rows (`rows.py`) and `Catalog`, which answers the planner's and pricing's questions
from dict indexes (`lookup.py`) built once when it is constructed. Nothing here reads files or knows about Pulumi:
the planner and the pricing code get a `Catalog` passed in.
"""

from __future__ import annotations

from pydantic import PrivateAttr

from accelfit.catalog.lookup import CatalogIndex
# The rows are part of the catalog model: importers name them from here or from rows.py alike.
from accelfit.catalog.rows import (
    Accelerator, AcceleratorKind, Availability, CatalogOrigin, CatalogRows, Cloud, EfficiencyFigure, Frozen, InstanceType,
    NotSold,
    Precision, Price, PricingModel, ServicePrice, Sourced, TpuSlice, _as_cloud, _as_pricing, region_of_zone,
)

# What importers name from here: the catalog and its rows (mypy's no_implicit_reexport reads this list).
__all__ = [
    "Accelerator", "AcceleratorKind", "Availability", "Catalog", "CatalogOrigin", "CatalogRows", "Cloud",
    "EfficiencyFigure", "Frozen", "InstanceType", "NotSold", "Precision", "Price", "PricingModel", "ServicePrice",
    "Sourced", "TpuSlice", "region_of_zone",
]


class Catalog(CatalogRows):
    """Everything the planner and pricing know about hardware and prices. Built by `loader.load_catalog`.

    The lookup methods answer from dict indexes built once when the catalog is constructed (see `lookup.py`),
    so the planner can call them in its inner loops without scanning the rows.
    """
    _index: CatalogIndex = PrivateAttr()

    def model_post_init(self, context: object, /) -> None:
        self._index = CatalogIndex.build(self)

    @property
    def _lookup(self) -> CatalogIndex:
        # pydantic answers `self._index` from its __getattr__, about 1.3 us a call; the planner's loops make
        # thousands of lookups per plan, so they read the private slot directly (0.1 us).
        # pydantic types the private slots as Optional (None before model_post_init, which sets _index).
        index: CatalogIndex = self.__pydantic_private__["_index"]  # type: ignore[index]
        return index

    @property
    def label(self) -> str:
        """Which catalog this is, as plans and reports print it."""
        return self.origin.label if self.origin is not None else "hand-built catalog"

    def accelerator(self, name: str) -> Accelerator:
        """The accelerator for a canonical name or any alias ('H100', 'v5litepod').

        Raises `names.UnknownAcceleratorError` (a ValueError carrying a suggestion) for an unknown name.
        """
        return self._lookup.accelerator(name)

    def canonical(self, name: str) -> str:
        """Canonical name for any alias this catalog knows; raises UnknownAcceleratorError."""
        return self._lookup.accelerator(name).name

    def instance_type(self, cloud: Cloud | str, name: str) -> InstanceType | None:
        return self._lookup.instance_by_key.get((_as_cloud(cloud), name))

    def instance_types_for(self, cloud: Cloud | str | None = None, accelerator: str | None = None,
                           region: str | None = None) -> tuple[InstanceType, ...]:
        """GPU instance types, filtered by cloud, accelerator (alias ok) and region; catalog order."""
        return self._lookup.instances(cloud, accelerator, region)

    def tpu_slice(self, name: str) -> TpuSlice | None:
        """A slice by Cloud TPU accelerator type, e.g. 'v5p-128' or 'v5litepod-16'."""
        return self._lookup.slice_by_name.get(name)

    def tpu_slices_for(self, accelerator: str | None = None, zone: str | None = None,
                       region: str | None = None) -> tuple[TpuSlice, ...]:
        """TPU slice shapes, filtered by generation (alias ok), zone and region (where the generation is
        available); smallest first."""
        return self._lookup.slices(accelerator, zone, region)

    def available_zones(self, offering: str, cloud: Cloud | str = Cloud.gcp) -> tuple[str, ...]:
        """Zones where the availability rows list `offering` (a TPU generation, alias ok, or an instance type),
        sorted; empty when no row lists a zone for it."""
        return self._lookup.zones_of(_as_cloud(cloud), offering)

    def available_regions(self, offering: str, cloud: Cloud | str = Cloud.gcp) -> tuple[str, ...]:
        """Regions of `available_zones`, sorted."""
        return tuple(sorted({region_of_zone(zone) for zone in self.available_zones(offering, cloud)}))

    def zone_listing(self, offering: str, zone: str, cloud: Cloud | str = Cloud.gcp) -> Availability | None:
        """The availability row that lists `offering` (alias ok) in `zone` (for its source and date), or None."""
        row = self._lookup.availability_by_key.get((_as_cloud(cloud), self._lookup.offering_key(offering),
                                                   region_of_zone(zone)))
        return row if row is not None and zone in row.zones else None

    def price(self, cloud: Cloud | str, sku: str, region: str,
              pricing: PricingModel | str = PricingModel.on_demand) -> Price | None:
        """Hourly price of an instance type (per instance) or TPU generation (per chip), or None if unknown."""
        return self._lookup.price_by_key.get((_as_cloud(cloud), sku, region, _as_pricing(pricing)))

    def not_sold_rule(self, cloud: Cloud | str, sku: str, region: str,
                      pricing: PricingModel | str = PricingModel.on_demand) -> NotSold | None:
        """The sourced row saying the cloud does not sell `sku` in `region` under `pricing`, or None."""
        for row in self._lookup.not_sold_by_key.get((_as_cloud(cloud), sku, _as_pricing(pricing)), ()):
            if row.covers(region):
                return row
        return None

    def prices_for(self, cloud: Cloud | str, sku: str) -> tuple[Price, ...]:
        """Every price row for one SKU (all regions and pricing models), sorted by region then pricing."""
        return self._lookup.prices_by_sku.get((_as_cloud(cloud), sku), ())

    def tpu_slice_hourly_usd(self, tpu_slice: TpuSlice, region: str,
                             pricing: PricingModel | str = PricingModel.on_demand) -> float | None:
        """Slice-hour price = chip-hour price x chips, or None where the generation has no price there."""
        found = self.price(Cloud.gcp, tpu_slice.accelerator, region, pricing)
        return None if found is None else found.hourly_usd * tpu_slice.chips

    def availability_for(self, cloud: Cloud | str, sku: str) -> tuple[Availability, ...]:
        """Every availability row of one SKU (instance type or TPU generation), in region order."""
        return self._lookup.availability_by_sku.get((_as_cloud(cloud), sku), ())

    def offered_zones(self, cloud: Cloud | str, sku: str, region: str) -> tuple[str, ...] | None:
        """Zones where the availability data lists the SKU in `region` (() when it lists only the region), or
        None when it does not list the SKU there: then no price row there is an offer."""
        row = self._lookup.availability_by_key.get((_as_cloud(cloud), sku, region))
        return None if row is None else row.zones

    def gpu_zones_in(self, cloud: Cloud | str, family: str, region: str) -> tuple[str, ...] | None:
        """Zones of `region` where any machine type of a GPU family (e.g. a3-ultra) is listed, sorted; None when
        no availability row of the family lists zones there (unknown, not empty)."""
        found: set[str] = set()
        listed = False
        for instance in self._lookup.instances(cloud, None, region):
            if instance.family == family:
                zones = self.offered_zones(cloud, instance.name, region)
                listed = listed or bool(zones)
                found.update(zones or ())
        return tuple(sorted(found)) if listed else None

    def service_price(self, cloud: Cloud | str, service: str, region: str) -> ServicePrice | None:
        """Price of a supporting service in a region, falling back to the cloud-wide row (region '*')."""
        key = _as_cloud(cloud)
        return (self._lookup.service_by_key.get((key, service, region))
                or self._lookup.service_by_key.get((key, service, "*")))

    def mfu(self, accelerator: str) -> EfficiencyFigure:
        """Expected training MFU for an accelerator (alias ok).

        Raises UnknownAcceleratorError for an unknown name and LookupError when the catalog has no figure.
        """
        return self._lookup.mfu(accelerator)
