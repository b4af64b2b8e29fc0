"""Every offer the catalog (and the inventory) can make for a spec: GPU node types per region, TPU slice shapes
per zone, owned servers per GPU model; each either priced under the spec's pricing model or rejected."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accelfit.buying import buying_model
from accelfit.catalog.models import Accelerator, Catalog, Cloud, InstanceType, region_of_zone
from accelfit.clouds import cloud_named
from accelfit.planner.costing.buying import (
    buying_rejection, held_block, max_units, reservation_zones, sold_as_hint,
)
from accelfit.planner.eligibility import hard_rejection
from accelfit.planner.gpu_vms import vm_platforms, gpu_platforms, vm_rejection
from accelfit.planner.limits import max_cluster_nodes
from accelfit.planner.options import Offer, RawRejection
from accelfit.spec import Deployment, Orchestration, WorkloadSpec

if TYPE_CHECKING:  # the inventory's models load with an inventory (accelfit.spec)
    from accelfit.spec import Inventory

NO_PRICE = "no-price"  # the rejection rule for an offered option the catalog has no price for
NOT_SOLD = "not-sold"  # the rejection rule for an option the cloud does not sell under the spec's pricing model

def default_zones(cloud: str, region: str) -> tuple[str, ...]:
    """Zones for a GPU pool when the availability data lists only the region: the region's first zones (each
    cloud's `zones_of_region`, accelfit/clouds)."""
    return cloud_named(cloud).zones_of_region(region)


@dataclass
class OfferSet:
    offers: list[Offer] = field(default_factory=list)
    rejected: list[RawRejection] = field(default_factory=list)

    def reject(self, platform: str, accelerator: str, machine: str, place: str, rule: str, reason: str) -> None:
        self.rejected.append(RawRejection(platform, accelerator, machine, place, rule, reason))


def offers_for(spec: WorkloadSpec, catalog: Catalog, inventory: Inventory | None,
               measured_power_w: Mapping[str, float] | None = None) -> OfferSet:
    """Every offer under each pricing model the spec allows (`budget.pricing`, one or a preference list): the
    ranking then takes the cheapest that meets the deadline or latency. `measured_power_w`: the team's measured
    board power per accelerator (`accelfit calibrate`, DCGM power draw), the energy of owned servers over the
    catalog's board power."""
    found = OfferSet()
    deployment = spec.placement.deployment
    if deployment in (Deployment.cloud, Deployment.any):
        for pricing in spec.budget.pricing_options:
            priced = spec if pricing == spec.budget.pricing else spec.model_copy(
                update={"budget": spec.budget.model_copy(update={"pricing": pricing})})
            _cloud_gpu_offers(priced, catalog, found, pricing.value)
            _tpu_offers(priced, catalog, found, pricing.value)
    if deployment in (Deployment.dedicated, Deployment.any) and inventory is not None:
        _baremetal_offers(spec, catalog, inventory, found, measured_power_w or {})
    return found


def _region_allowed(spec: WorkloadSpec, region: str) -> bool:
    return not spec.placement.regions or region in spec.placement.regions


def _largest_in_family(catalog: Catalog) -> dict[tuple[str, str], int]:
    largest: dict[tuple[str, str], int] = defaultdict(int)
    for instance in catalog.instance_types:
        key = (instance.cloud.value, instance.family)
        largest[key] = max(largest[key], instance.accelerator_count)
    return largest


def _cloud_gpu_offers(spec: WorkloadSpec, catalog: Catalog, found: OfferSet, pricing: str) -> None:
    """The cloud GPU offers under `pricing` (the spec's own, one of its budget.pricing list)."""
    clouds = {cloud.value for cloud in spec.placement.clouds}
    largest = _largest_in_family(catalog)
    label = catalog.label  # once, not per offer: a full imported catalog makes thousands of offers
    for instance in catalog.instance_types:
        cloud = instance.cloud.value
        if cloud not in clouds:
            continue
        for platform in gpu_platforms(spec, cloud):
            _instance_offers(spec, catalog, found, instance, platform, largest, pricing, label)


def _offer_rejection(spec: WorkloadSpec, instance: InstanceType, platform: str, accelerator: Accelerator, pricing: str,
                     regions: list[str]) -> tuple[str, str] | None:
    """(rule, reason) when this machine type cannot be offered on `platform` at all, before any region's price."""
    vm = platform in vm_platforms()
    rejection = hard_rejection(spec, accelerator, platform) or (vm_rejection(spec) if vm else None)
    if rejection:
        return rejection
    if not regions:
        return "region", (f"offered in {', '.join(instance.regions)}; placement.regions allows only "
                          f"{', '.join(spec.placement.regions)}")
    if buying_model(pricing).offers_by_rules:
        return buying_rejection(spec, instance.cloud.value, platform, instance, pricing)
    return None


def _instance_offers(spec: WorkloadSpec, catalog: Catalog, found: OfferSet, instance: InstanceType, platform: str,
                     largest: dict[tuple[str, str], int], pricing: str, label: str) -> None:
    accelerator = catalog.accelerator(instance.accelerator)
    where = (platform, accelerator.name, instance.name)
    regions = [region for region in instance.regions if _region_allowed(spec, region)]
    rejection = _offer_rejection(spec, instance, platform, accelerator, pricing, regions)
    if rejection:
        found.reject(*where, "", *rejection)
        return
    if buying_model(pricing).price_source == "held":
        _reservation_offers(spec, catalog, found, instance, platform, largest, label)
        return
    for region in regions:
        _region_offer(spec, catalog, found, instance, platform, largest, pricing, label, region)


def _region_offer(spec: WorkloadSpec, catalog: Catalog, found: OfferSet, instance: InstanceType, platform: str,
                  largest: dict[tuple[str, str], int], pricing: str, label: str, region: str) -> None:
    cloud = instance.cloud.value
    accelerator = catalog.accelerator(instance.accelerator)
    where = (platform, accelerator.name, instance.name)
    vm = platform in vm_platforms()
    price = catalog.price(instance.cloud, instance.name, region, pricing)
    if price is None and (rule := catalog.not_sold_rule(instance.cloud, instance.name, region, pricing)):
        found.reject(*where, region, NOT_SOLD,
                     f"{cloud.upper()} does not sell {instance.name} {pricing} (sold as "
                     f"{', '.join(rule.sold_as)}; {rule.source}); "
                     + sold_as_hint(spec, catalog, instance, region, rule.sold_as))
        return
    if price is None:
        found.reject(*where, region, NO_PRICE, f"the catalog has no {pricing} price for {instance.name} in {region}")
        return
    zones = _gpu_zones(catalog, instance, region)
    block = held_block(spec, instance.name, region) if buying_model(pricing).needs_reservation else None
    if block is not None:
        zones = reservation_zones(block, cloud, region)
    if vm and not cloud_named(cloud).vm_network_spans_zones:
        zones = zones[:1]  # a GPU VM is one instance in one zone (AWS: the network still spans the region's zones)
    found.offers.append(Offer(
        platform=platform, cloud=cloud, region=region, zones=zones,
        accelerator=accelerator, machine=instance.name, devices_per_unit=instance.accelerator_count,
        max_units=1 if vm else max_units(pricing, max_cluster_nodes(platform) or 1, block),
        multi_unit=False if vm else instance.accelerator_count == largest[(cloud, instance.family)],
        instance=instance, price=price, unit_hourly_usd=price.hourly_usd, pricing=pricing,
        catalog=label, reservation=block.name if block is not None else None))


def _reservation_offers(spec: WorkloadSpec, catalog: Catalog, found: OfferSet, instance: InstanceType,
                        platform: str, largest: dict[tuple[str, str], int], label: str) -> None:
    """One offer per reservation the team holds of this type (placement.reservations): at most its count of
    machines, in its zone, priced as already paid (unit price 0); `price` keeps the on-demand row as the
    reservation's on-demand-equivalent value (None where the catalog has none)."""
    cloud = instance.cloud.value
    accelerator = catalog.accelerator(instance.accelerator)
    where = (platform, accelerator.name, instance.name)
    held = [r for r in spec.placement.reservations if r.cloud == cloud and r.instance_type == instance.name]
    if not held:
        found.reject(*where, "", "no-reservation", f"placement.reservations holds no {instance.name}")
        return
    for reservation in held:
        region = reservation.region
        if not _region_allowed(spec, region):
            found.reject(*where, reservation.zone, "region",
                         f"reservation {reservation.name} is in {region}; placement.regions allows only "
                         f"{', '.join(spec.placement.regions)}")
            continue
        found.offers.append(Offer(
            platform=platform, cloud=cloud, region=region, zones=reservation_zones(reservation, cloud, region),
            accelerator=accelerator, machine=instance.name, devices_per_unit=instance.accelerator_count,
            max_units=min(reservation.count, max_cluster_nodes(platform) or 1),
            multi_unit=instance.accelerator_count == largest[(cloud, instance.family)] or reservation.count == 1,
            instance=instance, price=catalog.price(instance.cloud, instance.name, region, "on-demand"),
            unit_hourly_usd=0.0, pricing="reservation", catalog=label, reservation=reservation.name,
            capacity_block=reservation.capacity_block))


# A GCP serving pool spreads over up to this many of the zones that offer its machine type (a zone outage keeps
# the others serving); training pools take the first (build.py): multi-node jobs want one zone.
MAX_GPU_POOL_ZONES = 3


def _gpu_zones(catalog: Catalog, instance: InstanceType, region: str) -> tuple[str, ...]:
    """A GCP pool goes only in zones the availability data lists for the machine type (up to
    MAX_GPU_POOL_ZONES, sorted); AWS rows list AZ IDs (the same for every account) or nothing, and subnets take AZ
    names, so AWS keeps the region's first zones."""
    listed = catalog.offered_zones(instance.cloud, instance.name, region) or ()
    if cloud_named(instance.cloud).listed_zones_are_names and listed:
        return tuple(sorted(listed))[:MAX_GPU_POOL_ZONES]
    return default_zones(instance.cloud.value, region)


def _tpu_offers(spec: WorkloadSpec, catalog: Catalog, found: OfferSet, pricing: str) -> None:
    if not any(cloud_named(cloud).supports("tpu") for cloud in spec.placement.clouds):
        return
    # TPUs: vms -> TPU VMs, kubernetes -> GKE TPU node pools, any -> both (the cheaper wins).
    for platform in {Orchestration.vms: ("tpu-vm",), Orchestration.kubernetes: ("gke-tpu",)}.get(
            spec.placement.orchestration, ("gke-tpu", "tpu-vm")):
        _tpu_platform_offers(spec, catalog, found, platform, pricing)


def _tpu_platform_offers(spec: WorkloadSpec, catalog: Catalog, found: OfferSet, platform: str, pricing: str) -> None:
    if buying_model(pricing).offers_by_rules:
        why = buying_rejection(spec, "gcp", platform, None, pricing)
        if why is not None:
            for generation in dict.fromkeys(tpu_slice.accelerator for tpu_slice in catalog.tpu_slices):
                found.reject(platform, generation, "", "", *why)
            return
    label = catalog.label
    rejected_generations: set[str] = set()
    # Multislice (several slices over the data-center network) is for jobs beyond the largest single slice.
    largest_chips: dict[str, int] = defaultdict(int)
    for tpu_slice in catalog.tpu_slices:
        largest_chips[tpu_slice.accelerator] = max(largest_chips[tpu_slice.accelerator], tpu_slice.chips)
    for tpu_slice in catalog.tpu_slices:
        accelerator = catalog.accelerator(tpu_slice.accelerator)
        if accelerator.name in rejected_generations:
            continue
        rejection = hard_rejection(spec, accelerator, platform)
        if rejection:
            found.reject(platform, accelerator.name, "", "", *rejection)
            rejected_generations.add(accelerator.name)
            continue
        # Zones come from the cloud's availability list (tpu_availability.yaml), never from price rows.
        zones = catalog.available_zones(accelerator.name, Cloud.gcp)
        if not zones:
            found.reject(platform, accelerator.name, tpu_slice.name, "", "no-availability",
                         f"the catalog lists no zone where {accelerator.name} can be created")
            continue
        for zone in zones:
            region = region_of_zone(zone)
            if not _region_allowed(spec, region):
                continue
            price = catalog.price(Cloud.gcp, tpu_slice.accelerator, region, pricing)
            if price is None:
                found.reject(platform, accelerator.name, tpu_slice.name, zone, NO_PRICE,
                             f"the catalog has no {pricing} price for {accelerator.name} in {region}")
                continue
            found.offers.append(Offer(
                platform=platform, cloud="gcp", region=region, zones=(zone,), accelerator=accelerator,
                machine=tpu_slice.name, devices_per_unit=tpu_slice.chips, max_units=tpu_slice.max_slices,
                multi_unit=tpu_slice.max_slices > 1 and tpu_slice.chips == largest_chips[tpu_slice.accelerator],
                tpu_slice=tpu_slice, price=price,
                unit_hourly_usd=price.hourly_usd * tpu_slice.chips, pricing=pricing,
                catalog=label))


def _baremetal_offers(spec: WorkloadSpec, catalog: Catalog, inventory: Inventory, found: OfferSet,
                      measured_power_w: Mapping[str, float]) -> None:
    from accelfit.pricing.onprem import owned_server_cost  # loaded with an inventory only (issue 39)

    groups: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for server in inventory.servers:
        groups[(server.gpu_model, server.gpu_count)].append(server)
    for (model, count), servers in sorted(groups.items()):
        accelerator = catalog.accelerator(model)
        rejection = hard_rejection(spec, accelerator, "baremetal-gpu")
        if rejection:
            found.reject("baremetal-gpu", accelerator.name, f"{model}x{count}", inventory.site, *rejection)
            continue
        servers = sorted(servers, key=lambda server: server.name)
        ownership = inventory.ownership
        # As of today: servers past their amortization's end are paid for (the preview prices them the same way).
        owned = owned_server_cost(accelerator.power_w, count, ownership.model_dump(exclude={"purchased"}),
                                  ownership.purchased, measured_power_w.get(accelerator.name), dt.date.today())
        found.offers.append(Offer(
            platform="baremetal-gpu", cloud="onprem", region=inventory.site, zones=(inventory.site,),
            accelerator=accelerator, machine=f"{model}x{count}", devices_per_unit=count, max_units=len(servers),
            multi_unit=True, servers=tuple(servers),
            unit_hourly_usd=owned.hourly_usd, owned=owned, pricing="owned",
            catalog=catalog.label))

