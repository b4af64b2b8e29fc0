"""Is the pool's instance type offered in the pool's availability zones? From the catalog's availability data
(`accelfit/catalog/data/gpu_availability.yaml`, or the imported catalog: AWS rows list zone IDs such as use1-az4,
each row with its source and date) and the account's zone name -> ID mapping, checked before anything is created.
Zone names (us-east-1a) map to different physical zones in every AWS account, so only IDs can be recorded.

The mapping comes from stack config `accelfit:awsZoneIds` ({us-east-1a: use1-az4, ...}, the output of
`aws ec2 describe-availability-zones --query 'AvailabilityZones[].[ZoneName,ZoneId]'`) when set, else from EC2
itself (the get_availability_zone invoke, which a real `pulumi preview` runs with the stack's credentials, before
any resource is registered). The offline preview has neither, so there the check does not run.

Pure: `accelfit check` runs `zone_offering_problems` with the configured mapping (accelfit.stackrules), and
components/aws/zone_offerings.py with the configured or the EC2 one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, Problem, problem
from accelfit.planner.model import Plan

KEY = "awsZoneIds"
ZONE_ID = re.compile(r"^[a-z]{2,6}[0-9]-az[0-9]+\Z")


def offered_zone_ids(catalog: Catalog, region: str, instance_type: str) -> tuple[str, ...] | None:
    """The zone IDs offering the type, or None when the availability data lists no zones for it (unchecked)."""
    zones = catalog.offered_zones("aws", instance_type, region)
    return zones or None


def zone_offering_problems(plan: Plan, zone_ids: Mapping[str, str], catalog: Catalog) -> list[Problem]:
    """Every pool zone whose ID is known and that does not offer the pool's instance type."""
    problems = []
    for index, pool in enumerate(plan.node_pools):
        offered = offered_zone_ids(catalog, plan.region, pool.machine_type)
        if offered is None:
            continue
        for zone in pool.zones:
            zone_id = zone_ids.get(zone)
            if zone_id and zone_id not in offered:
                where = [name for name, known in zone_ids.items() if known in offered]
                fix = f"use {', '.join(where)}" if where else (
                    f"use the zone(s) with ID {', '.join(offered)} in this account")
                problems.append(problem(
                    "plan", f"node_pools[{index}].zones", f"{pool.machine_type} is not offered in {zone} "
                    f"({zone_id} in this account)", fix, zone))
    return problems


def configured_zone_ids(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) and ZONE_ID.match(v)
                                              for k, v in value.items()):
        raise InputError([problem("stack", "accelfit:awsZoneIds", "must map zone names to zone IDs",
                                  "e.g. {us-east-1a: use1-az4}, from aws ec2 describe-availability-zones", value)])
    return dict(value)
