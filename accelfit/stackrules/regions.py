"""The stack's region and zone (each cloud's `Cloud.region_key`: `gcp:region`, `aws:region`; and its `Cloud.zone_key`:
`gcp:zone`): a region of its cloud, the zone inside it, every workload's placement in agreement, and read into the
planner's StackPlacement so the plan places there.

A region is known when the clouds' published region lists name it (accelfit/spec/data/regions.yaml, with its
sources: the same list `placement.regions` and `data.region` are checked against), so `us-central-1` is refused
(exit 2) instead of planning somewhere else. A zone matches its cloud's `zone_pattern` (GCP: `<region>-<letter>`),
whose `region` group is the region it is in. Whether the accelerator is offered there is the planner's question (the
catalog's availability data): a known region with no offer is an infeasible plan (exit 1) that names the key to
change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from accelfit.clouds import all_clouds, cloud_named
from accelfit.errors import Problem, did_you_mean, problem, short_repr
from accelfit.planner.stack_placement import StackPlacement
from accelfit.spec.models import WorkloadSpec
from accelfit.spec.regions import cloud_of_region, cloud_regions

def region_keys() -> dict[str, str]:
    """cloud -> the stack config key of its region (`Cloud.region_key`), for every registered cloud that has one."""
    return {cloud.name: cloud.region_key for cloud in all_clouds() if cloud.region_key}


def zone_keys() -> dict[str, str]:
    """cloud -> the stack config key of its zone (`Cloud.zone_key`), for every registered cloud that has one."""
    return {cloud.name: cloud.zone_key for cloud in all_clouds() if cloud.zone_key}


def stack_region_keys() -> tuple[str, ...]:
    """The keys the stack-region check reads, asked when it is listed: a cloud registered later adds its own."""
    return (*region_keys().values(), *zone_keys().values())


def _zone_match(cloud: str, zone: str) -> re.Match[str] | None:
    """The zone as its cloud's `zone_pattern` reads it (its `region` group), or None when it is not one."""
    return re.match(cloud_named(cloud).zone_pattern, zone)


def _title(cloud: str) -> str:
    found = cloud_named(cloud)
    return found.provider_title or found.title


def stack_placement(config: Mapping[str, Any]) -> StackPlacement:
    """The regions and zones the stack's config names (values already checked by `region_problems`); a zone
    without its cloud's region key (gcp:zone without gcp:region) implies its region."""
    regions = {cloud: config[key] for cloud, key in region_keys().items() if isinstance(config.get(key), str)}
    zones = {cloud: config[key] for cloud, key in zone_keys().items() if isinstance(config.get(key), str)}
    for cloud, zone in zones.items():
        match = _zone_match(cloud, zone)
        if match and cloud not in regions:
            regions[cloud] = match["region"]
    return StackPlacement(regions=tuple(sorted(regions.items())), zones=tuple(sorted(zones.items())))


def region_problems(config: Mapping[str, Any], found: Iterable[tuple[WorkloadSpec, str]],
                    source: str) -> list[Problem]:
    """The stack's region and zone values, then every workload's placement against them (when they are sound)."""
    problems = _value_problems(config, source)
    if problems:
        return problems
    placement = stack_placement(config)
    # The key that set each cloud's region: gcp:region, or gcp:zone alone (which implies its region).
    keys = {cloud: key if config.get(key) is not None else zone_keys().get(cloud, key)
            for cloud, key in region_keys().items()}
    for spec, prefix in found:
        problems += _agreement_problems(spec, prefix, placement, keys, source)
    return problems


def _value_problems(config: Mapping[str, Any], source: str) -> list[Problem]:
    problems = []
    for cloud, key in region_keys().items():
        value = config.get(key)
        if value is not None:
            problems += _region_value_problems(cloud, key, value, source)
    for cloud, key in zone_keys().items():
        zone = config.get(key)
        if zone is not None:
            problems += _zone_value_problems(cloud, key, zone, config, source)
    return problems


def _zone_value_problems(cloud: str, key: str, zone: Any, config: Mapping[str, Any], source: str) -> list[Problem]:
    """A zone of the cloud's regions (its `zone_pattern`), inside the stack's region where that is set too."""
    record = cloud_named(cloud)
    match = _zone_match(cloud, zone) if isinstance(zone, str) else None
    region_key = record.region_key
    region = config.get(region_key)
    if match is None or match["region"] not in cloud_regions().get(cloud, ()):
        example = record.zones_of_region(region if isinstance(region, str) else record.example_region)[0]
        return [problem(source, f"config.{key}", f"not {record.a_region_owner} zone ({record.zone_form})",
                        f"set {key} to a zone of {region_key}, e.g. {example}, or remove it",
                        zone if isinstance(zone, str) and len(zone) <= 64 else short_repr(zone))]
    if isinstance(region, str) and match["region"] != region:
        return [problem(source, f"config.{key}", f"is in {match['region']}, but {region_key} is {region}: the zone "
                        "must be in the stack's region", f"set {key} to a zone of {region} (e.g. "
                        f"{record.zones_of_region(region)[0]}), or {region_key}: {match['region']}", zone)]
    return []


def _region_value_problems(cloud: str, key: str, value: Any, source: str) -> list[Problem]:
    name, a_cloud = _title(cloud), cloud_named(cloud).a_region_owner
    known = sorted(cloud_regions().get(cloud, ()))
    if not isinstance(value, str):
        return [problem(source, f"config.{key}", f"must be the name of {a_cloud} region in plain text",
                        f"e.g. {key}: {known[0] if known else cloud_named(cloud).example_region}", short_repr(value))]
    if value in known:
        return []
    other = cloud_of_region(value)
    close = did_you_mean(value, known) if len(value) <= 64 else None
    why = f" ({value} is {cloud_named(other).a_region_owner} region)" if other else ""
    fix = f"did you mean {key}: {close}?" if close else f"use {a_cloud} region, e.g. {key}: " \
        f"{cloud_named(cloud).example_region or (known[0] if known else '')}"
    return [problem(source, f"config.{key}", f"not {a_cloud} region{why}; the stack builds every {name} "
                    "resource in this region", fix, value if len(value) <= 64 else short_repr(value))]


def _agreement_problems(spec: WorkloadSpec, prefix: str, placement: StackPlacement, keys: Mapping[str, str],
                        source: str) -> list[Problem]:
    """placement.regions and placement.reservations must allow the stack's region (and zone) of every cloud the
    workload may run on: otherwise the plan would be confined to a place the spec forbids, or the reverse."""
    problems = []
    allowed = spec.placement.regions
    for cloud in (cloud.value for cloud in spec.placement.clouds):
        region = placement.region(cloud)
        if region is None or not allowed or region in allowed:
            continue
        key = keys[cloud]
        problems.append(problem(source, f"{prefix}.placement.regions".lstrip("."),
                                f"does not include {region}, where the stack builds {_title(cloud)} resources "
                                f"({key})", f"add {region} to placement.regions, or set {key} to a region "
                                f"placement.regions allows ({', '.join(allowed)})", list(allowed)))
    for index, reservation in enumerate(spec.placement.reservations):
        problems += _reservation_problems(reservation, f"{prefix}.placement.reservations[{index}].zone".lstrip("."),
                                          placement, keys, source)
    return problems


def _reservation_problems(reservation: Any, field: str, placement: StackPlacement, keys: Mapping[str, str],
                          source: str) -> list[Problem]:
    cloud = reservation.cloud
    region, zone = placement.region(cloud), placement.zone(cloud)
    if region is not None and reservation.region != region:
        return [problem(source, field, f"reservation {reservation.name} is in {reservation.region}, but the stack "
                        f"builds {_title(cloud)} resources in {region} ({keys[cloud]})",
                        f"set {keys[cloud]} to {reservation.region} (or a zone of it), or list a reservation held "
                        f"in {region}",
                        reservation.zone)]
    if zone is not None and reservation.zone != zone:
        zone_key = cloud_named(cloud).zone_key
        return [problem(source, field, f"reservation {reservation.name} is in {reservation.zone}, but the stack "
                        f"builds in zone {zone} ({zone_key})", f"set {zone_key}: {reservation.zone}, "
                        f"or remove {zone_key}", reservation.zone)]
    return []
