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

from accelfit.buying import buying_model
from accelfit.catalog.models import Catalog, Cloud, PricingModel

# Every pricing model a price row can carry. `reservation` is not among them: a held reservation is priced as
# already paid ($0 marginal, valued at its on-demand row), never from a price row of its own.
COVERED_MODELS = (PricingModel.on_demand, PricingModel.spot, PricingModel.committed_1y, PricingModel.committed_3y,
                  PricingModel.flex_start, PricingModel.capacity_block)
# Why a model covers fewer pairs than the cloud offers on demand, printed under the table.
MODEL_NOTES = {
    PricingModel.committed_1y: "committed-1y/3y: GCP GPU rows from Cyclenerd's pricing.yml (2026-07-30) where its "
                               "on-demand figure agrees with the catalog's within 2% and it "
                               "lists the type and region (no A2-ultra, A3-mega, A3-ultra or A4 rate there); TPU rows "
                               "for one region per generation only; no AWS row: no Savings Plans or Reserved Instance "
                               "rate for the P and G types could be sourced here.",
    PricingModel.flex_start: "flex-start: GCP only, every accelerator-optimized type but A4X and G4; each row is the "
                             "on-demand price as a ceiling (no flex-start rate was found in the sources read).",
    PricingModel.capacity_block: "capacity-block: AWS only, the instance types sold as Capacity Blocks; rates for "
                                 "us-east-1 only (effective hourly rate per instance).",
}


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


def sells(cloud: str, kind: str, model: PricingModel, sku: str) -> bool:
    """Whether the cloud sells this kind of capacity under the model at all (flex-start is GCP's, Capacity Blocks
    are AWS's GPU instances of the types it lists; the rules are accelfit/cloudrules data)."""
    if not buying_model(model).sold_on(cloud):  # the table's sold_by
        return False
    if model == PricingModel.flex_start:
        from accelfit.clouds.gcp_flex_start import flex_start_rules

        return not any(sku.startswith(family + "-") for family in flex_start_rules()["excluded_families"])
    if model == PricingModel.capacity_block:
        from accelfit.clouds.aws_capacity_blocks import capacity_block_rules

        return kind == "gpu" and sku in capacity_block_rules()["instance_types"]
    return True


def coverage(catalog: Catalog, models: tuple[PricingModel, ...] = COVERED_MODELS) -> tuple[CoverageLine, ...]:
    lines = []
    for (cloud, kind), all_pairs in sorted(offered_pairs(catalog).items()):
        for model in models:
            pairs = [pair for pair in all_pairs if sells(cloud, kind, model, pair[0])]
            if not pairs:
                continue
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
