"""What the catalog prices and what it does not: every offered (SKU, region) pair per cloud and pricing model.

An offered pair is one the availability data lists: a GPU instance type in a region (`InstanceType.regions`,
filled from the availability rows) or a TPU generation in a region where the catalog has slice shapes. A pair is
priced under a model when a price row exists for it. A pair the cloud does not sell under a model at all (a sourced
`not_sold` row, e.g. a3-highgpu-1g on demand: GCP sells it only as Spot or flex-start) is not a gap: it is listed
as "not sold this way" with its source and left out of that model's offered and missing counts. Pure: a Catalog
in, counts and lists out.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelfit.catalog.models import Catalog, Cloud, PricingModel

COVERED_MODELS = (PricingModel.on_demand, PricingModel.spot)


@dataclass(frozen=True)
class CoverageLine:
    cloud: str
    kind: str  # "gpu" (instance-hour) | "tpu" (chip-hour)
    pricing: str
    offered: int  # pairs the cloud sells under this pricing model (not-sold pairs left out)
    priced: int
    missing: tuple[tuple[str, str], ...]  # (sku, region) without a price
    not_sold: tuple[tuple[str, str, str], ...] = ()  # (sku, region, source): the cloud does not sell it this way

    @property
    def share(self) -> float:
        return self.priced / self.offered if self.offered else 0.0


def offered_pairs(catalog: Catalog) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(cloud, kind) -> [(sku, region)] in catalog order."""
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for instance in catalog.instance_types:
        pairs.setdefault((instance.cloud.value, "gpu"), []).extend((instance.name, r) for r in instance.regions)
    tpu: dict[tuple[str, str], None] = {}
    for tpu_slice in catalog.tpu_slices:
        tpu.update(((tpu_slice.accelerator, region), None)
                   for region in catalog.available_regions(tpu_slice.accelerator))
    if tpu:
        pairs[(Cloud.gcp.value, "tpu")] = list(tpu)
    return pairs


def coverage(catalog: Catalog, models: tuple[PricingModel, ...] = COVERED_MODELS) -> tuple[CoverageLine, ...]:
    lines = []
    for (cloud, kind), pairs in sorted(offered_pairs(catalog).items()):
        for model in models:
            not_sold, sold = [], []
            for sku, region in pairs:
                rule = catalog.not_sold_rule(cloud, sku, region, model)
                if rule is None:
                    sold.append((sku, region))
                else:
                    not_sold.append((sku, region, rule.source))
            missing = tuple(pair for pair in sold if catalog.price(cloud, pair[0], pair[1], model) is None)
            lines.append(CoverageLine(cloud, kind, model.value, len(sold), len(sold) - len(missing), missing,
                                      tuple(not_sold)))
    return tuple(lines)
