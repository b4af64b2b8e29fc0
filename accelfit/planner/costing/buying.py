"""The ways teams buy accelerators beyond on demand, spot and commitments (budget.pricing reservation, flex-start,
capacity-block): where each can be bought, and the reservations the team holds (placement.reservations).

- reservation: capacity the team already holds (a GCP reservation, an AWS On-Demand Capacity Reservation, a bought
  AWS Capacity Block). Already paid, so the plan prices it at $0 marginal and shows its on-demand-equivalent value;
  a pool consumes it by name (GKE SPECIFIC_RESERVATION, EKS launch-template capacity reservation target).
- flex-start: GCP Dynamic Workload Scheduler capacity for a GKE pool (accelfit/clouds/gcp_flex_start.py).
- capacity-block: AWS EC2 Capacity Blocks for ML for an EKS node group, priced for the whole block
  (accelfit/pricing/capacity_blocks.py); the node group targets the bought block's id.
Pure: no Pulumi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelfit.catalog.models import Catalog, InstanceType
from accelfit.buying import buying_model
from accelfit.clouds import cloud_named
from accelfit.clouds.aws_capacity_blocks import capacity_block_rules
from accelfit.clouds.gcp_flex_start import flex_start_rejection, flex_start_rules
from accelfit.planner.sizes import RunCap
from accelfit.pricing.capacity_blocks import BlockTooLong, block_for, max_instances_per_block, purchase_rules
from accelfit.pricing.overheads import overhead_for
from accelfit.spec import WorkloadSpec
from accelfit.spec.models import ReservationSpec

if TYPE_CHECKING:
    from accelfit.planner.options import Offer

BUYING_RULE = "buying-model"  # the rejection rule for an option its buying model cannot be bought for


def buying_rejection(spec: WorkloadSpec, cloud: str, platform: str, instance: InstanceType | None,
                     pricing: str) -> tuple[str, str] | None:
    """(rule, reason) when `pricing` cannot buy this option at all (before any region or price is looked at)."""
    model = buying_model(pricing)
    if not model.sold_on(cloud):  # flex-start: GCP's, capacity-block: AWS's (the table's sold_by)
        sellers = " or ".join(name.upper() for name in model.sold_by)
        return BUYING_RULE, f"{pricing} is {sellers}'s way to buy capacity, not {cloud.upper()}'s"
    if instance is None:  # a TPU slice
        if model.price_source == "held":
            return BUYING_RULE, ("placement.reservations names GPU machine types; TPU reservations are not planned "
                                 "(consume one by hand with TpuNodePool reservation)")
        return None if pricing == "flex-start" else (BUYING_RULE, f"{pricing} does not sell TPUs")
    cluster_platform = cloud_named(cloud).cluster_platform
    if platform != cluster_platform:
        return BUYING_RULE, (f"{pricing} capacity is built as a {cluster_platform} node pool; set "
                             "placement.orchestration: kubernetes (or any) to plan on it")
    if pricing == "flex-start":
        why = flex_start_rejection(instance.family, spec.inference is not None, None)
        return (BUYING_RULE, why) if why else None
    if pricing == "capacity-block":
        sold = capacity_block_rules()["instance_types"]
        if instance.name not in sold:
            return BUYING_RULE, f"EC2 does not sell {instance.name} as a Capacity Block (sold: {', '.join(sold)})"
        if spec.inference is not None:
            return BUYING_RULE, "a Capacity Block ends (at most 182 days): a service needs capacity that stays"
    return None


def max_units(pricing: str, platform_max: int, block: ReservationSpec | None = None) -> int:
    """The most nodes an offer may size to. A Capacity Block holds a fixed number of instances: a bought block (the
    spec lists it) at most its count, as a held reservation (candidates._reservation_offers), so the node group never
    asks for instances the block does not hold; one to buy at most what AWS sells in one block."""
    if pricing != "capacity-block":
        return platform_max
    if block is not None:
        return min(platform_max, block.count)
    return min(platform_max, max_instances_per_block())


def held_block(spec: WorkloadSpec, instance_type: str, region: str) -> ReservationSpec | None:
    """The bought Capacity Block of this type in `region` the spec lists (its id is what the node group targets)."""
    return next((r for r in spec.placement.reservations
                 if r.capacity_block and r.instance_type == instance_type and r.region == region), None)


def reservation_zones(reservation: ReservationSpec, cloud: str, region: str) -> tuple[str, ...]:
    """The offer's zones: the reservation's zone first (its pool goes only there). EKS needs subnets in two
    Availability Zones for its control plane (docs.aws.amazon.com/eks/latest/userguide/network-reqs.html), so
    an AWS offer adds the region's first other zone for the cluster's network."""
    cloud_of = cloud_named(cloud)
    if not cloud_of.cluster_needs_two_zones:
        return (reservation.zone,)
    other = next(zone for zone in cloud_of.zones_of_region(region) if zone != reservation.zone)
    return (reservation.zone, other)


def sold_as_hint(spec: WorkloadSpec, catalog: Catalog, instance: InstanceType, region: str,
                 sold_as: tuple[str, ...]) -> str:
    """For a type the cloud does not sell the way the spec asks: how each way it is sold could be planned here, so
    a plan never names a way of buying it that it then cannot plan."""
    options = {pricing.value for pricing in spec.budget.pricing_options}
    out = []
    for way in sold_as:
        if buying_model(way).price_source == "held":
            held = any(r.instance_type == instance.name for r in spec.placement.reservations)
            out.append("reservation: " + ("list reservation in budget.pricing" if held and way not in options
                                          else "list the reservation you hold in placement.reservations and "
                                               "reservation in budget.pricing"))
        elif catalog.price(instance.cloud, instance.name, region, way) is None:
            out.append(f"{way}: the catalog has no {way} price for it in {region}, so no plan can choose it")
        elif way not in options:
            out.append(f"{way}: add {way} to budget.pricing")
    return "to plan it: " + "; ".join(out) if out else ""


def run_cap(pricing: str, platform: str) -> RunCap | None:
    """The longest run `pricing` sells, in compute hours on `platform` (its accelerators' start time, which they
    also run, taken off), for the sizing search; None when the buying model has no such limit. Flex-start: "These
    nodes run for up to seven days" (https://cloud.google.com/kubernetes-engine/docs/concepts/dws;
    data/flex_start.yaml max_run_days). A Capacity Block: the longest AWS sells (data/capacity_blocks.yaml)."""
    if pricing == "flex-start":
        days = flex_start_rules()["max_run_days"]
        why = (f"flex-start capacity runs at most {days} days before GCP stops it (about-flex-start-vms); plan "
               "on-demand, a reservation or split the run")
    elif pricing == "capacity-block":
        days = purchase_rules()["max_days"]
        why = f"the longest Capacity Block is {days} days; plan on-demand or a reservation, or split the run"
    else:
        return None
    return RunCap(hours=days * 24.0 - overhead_for(platform).start_hours, rule=BUYING_RULE, why=why)


def run_rejection(pricing: str, family: str, run_hours: float) -> str | None:
    """Why a training run of `run_hours` (accelerator hours, start included) cannot run on this buying model."""
    if pricing == "flex-start":
        return flex_start_rejection(family, False, run_hours)
    if pricing == "capacity-block":
        try:
            block_for(run_hours)
        except BlockTooLong as too_long:
            return f"{too_long}; plan on-demand or a reservation, or split the run"
    return None


def buying_price_reason(offer: Offer) -> str:
    """The plan's price line for a held reservation: what it costs here (nothing more) and what it is worth."""
    value = offer.price
    worth = (f"its on-demand equivalent is ${value.hourly_usd:,.4g}/{value.unit} in {offer.region} (as of "
             f"{value.as_of}, {value.source})" if value is not None
             else "the catalog has no on-demand price to state its worth")
    return (f"Price: reservation {offer.reservation} is capacity the team already holds and pays for whether it "
            f"runs or not (a sunk cost), so this plan adds $0 for its machines; {worth}.")


def buying_warnings(offer: Offer) -> list[str]:
    """What a plan on flex-start or a Capacity Block must say before anyone builds it."""
    if offer.pricing == "flex-start":
        return ["flex-start: GKE creates the nodes when DWS finds capacity (the job waits until then), each node "
                "runs at most 7 days, and the capacity draws on preemptible quota (about-flex-start-vms)."]
    if offer.pricing == "capacity-block":
        if offer.reservation is None:
            return ["capacity-block: buy the Capacity Block this plan prices (EC2 console or "
                    "`aws ec2 purchase-capacity-block`), then list it in placement.reservations as {name: <its cr-... "
                    "id>, zone, instance_type, count, capacity_block: true} and plan again: the node group launches "
                    "into the block by its id, and the stack refuses to build without it."]
        return [f"capacity-block: the node group launches into Capacity Block {offer.reservation}; the block starts "
                "and ends at 11:30 UTC and AWS terminates its instances 30 minutes before it ends "
                "(capacity-blocks-using.html)."]
    return []
