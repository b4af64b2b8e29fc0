"""Is the pool's instance type offered in the pool's availability zones? From the catalog's availability data
(`accelfit/catalog/data/gpu_availability.yaml`, or the imported catalog: AWS rows list zone IDs such as use1-az4,
each row with its source and date) and the account's zone name -> ID mapping, checked before anything is created.
Zone names (us-east-1a) map to different physical zones in every AWS account, so only IDs can be recorded.

The mapping comes from stack config `accelfit:awsZoneIds` ({us-east-1a: use1-az4, ...}, the output of
`aws ec2 describe-availability-zones --query 'AvailabilityZones[].[ZoneName,ZoneId]'`) when set, else from EC2
itself (the get_availability_zone invoke, which a real `pulumi preview` runs with the stack's credentials, before
any resource is registered). The offline preview has neither, so there the check does not run.
"""

from __future__ import annotations

from accelfit.cloudrules.aws.zone_offerings import configured_zone_ids, offered_zone_ids, zone_offering_problems

__all__ = ["account_zone_ids", "configured_zone_ids", "offered_zone_ids", "zone_offering_problems"]


def account_zone_ids(zones: tuple[str, ...], region: str) -> dict[str, str]:
    """Zone name -> ID for this account: stack config first, else EC2 (empty under the offline preview)."""
    import pulumi
    import pulumi_aws as aws

    configured = configured_zone_ids(pulumi.Config().get_object("awsZoneIds"))
    if configured:
        return configured
    found = {}
    for zone in zones:
        result = aws.get_availability_zone(name=zone, region=region)
        if getattr(result, "zone_id", None):
            found[zone] = result.zone_id
    return found
