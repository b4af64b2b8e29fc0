"""Where the data lives (data.region): what moving it to the plan's region costs, and what the plan says about it.

A training run reads its dataset once from wherever it is copied to and writes its final checkpoint back; a
service loads its weights. Moving them out of `data.region` costs the source cloud's transfer rate (catalog
service prices, per GB): between regions of one continent, between continents, or internet egress when the plan
runs in the other cloud or on owned servers. The move is a one-time part of the option's cost, so a nearby region
wins unless another is cheaper by more than the move costs. Without data.region (and without placement.regions)
the plan says it chose the region on price alone.
"""

from __future__ import annotations

from accelfit.clouds import cloud_named
from accelfit.catalog.models import Catalog
from accelfit.planner import preferences as pref
from accelfit.pricing.figures import Part, RunWindow
from accelfit.spec import WorkloadSpec
from accelfit.spec.regions import cloud_of_region

# Region-name prefixes -> continent (Google Cloud and AWS region naming).
_CONTINENTS = (
    (("us-", "northamerica-", "ca-"), "north-america"),
    (("southamerica-", "sa-"), "south-america"),
    (("europe-", "eu-"), "europe"),
    (("asia-", "ap-"), "asia-pacific"),
    (("australia-",), "australia"),
    (("me-", "il-"), "middle-east"),
    (("africa-", "af-"), "africa"),
)


def continent(region: str) -> str:
    for prefixes, name in _CONTINENTS:
        if region.startswith(prefixes):
            # AWS names Sydney and Melbourne ap-southeast-2 / ap-southeast-4: Australia, not the rest of Asia.
            return "australia" if region in ("ap-southeast-2", "ap-southeast-4") else name
    return region


def _destination(cloud: str) -> str:
    """How a move's destination is named: the cloud, or owned servers (their title)."""
    found = cloud_named(cloud)
    return found.title if found.owned else found.name


def transfer_rate(catalog: Catalog, source: str, cloud: str, region: str) -> tuple[float, str]:
    """(USD per GB, what kind of move) from region `source` to `region` of `cloud`."""
    source_cloud = cloud_of_region(source) or cloud
    if source_cloud == cloud and source == region:
        return 0.0, "same region"
    if source_cloud != cloud:
        service, kind = "egress-internet", f"out of {source_cloud} to {_destination(cloud)}"
    elif continent(source) == continent(region):
        service, kind = "transfer-same-continent", "between regions of one continent"
    else:
        service, kind = "transfer-other-continent", "between continents"
    found = catalog.service_price(source_cloud, service, source)
    return (found.usd if found else 0.0), kind


def moved_tb(spec: WorkloadSpec, checkpoint_tb: float) -> tuple[float, str]:
    """TB moved out of data.region once: the dataset, and the final checkpoint back (training) or the weights."""
    if spec.training is not None:
        final = checkpoint_tb / pref.CHECKPOINTS_KEPT
        return spec.data.dataset_tb + final, (f"{spec.data.dataset_tb:g} TB dataset in and the final "
                                              f"{final:.3g} TB checkpoint back")
    return spec.data.dataset_tb + checkpoint_tb, f"{spec.data.dataset_tb:g} TB data and {checkpoint_tb:.3g} TB weights"


def transfer_part(spec: WorkloadSpec, catalog: Catalog, cloud: str, region: str, checkpoint_tb: float,
                  run: RunWindow | None) -> Part | None:
    """The one-time move out of data.region, or None when there is no data.region or nothing moves."""
    source = spec.data.region
    if source is None:
        return None
    rate, kind = transfer_rate(catalog, source, cloud, region)
    tb, what = moved_tb(spec, checkpoint_tb)
    usd = tb * 1000.0 * rate
    if usd <= 0.0:
        return None
    note = f"one-time move from data.region {source} ({kind}, ${rate:.4g}/GB): {what}"
    if run is not None:
        return Part("transfer", 0.0, 0.0, usd, note)
    return Part("transfer", usd, usd, None, note + "; counted in full in the month it happens")


def region_reason(spec: WorkloadSpec, region: str, parts: tuple[Part, ...]) -> str:
    """What the region choice rests on: the move out of data.region, or price alone."""
    source = spec.data.region
    if source is None:
        if spec.placement.regions:
            return ""
        return ("Region: chosen on price alone: the spec gives neither data.region (where the data lives) nor "
                "placement.regions; set data.region to price moving the data, so a nearby region wins unless another "
                "is cheaper by more than the move.")
    moved = next((part for part in parts if part.item == "transfer"), None)
    if moved is None:
        return f"Region: {region}, where the data lives (data.region {source}): nothing to move."
    usd = moved.run_usd if moved.run_usd is not None else moved.monthly_usd
    return (f"Region: {region}; the data lives in {source}, and the {moved.note} costs about ${usd:,.0f}, priced "
            "into every option, so a region nearer the data wins unless this one is cheaper by more than that.")
