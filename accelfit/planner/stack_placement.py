"""Where the stack's provider config places each cloud's resources: its region key (`Cloud.region_key`: `gcp:region`,
`aws:region`) and `gcp:zone`.

The providers build in the region their config names, and the model server reads its weights with that region's
client (AWS_REGION), so a plan placed anywhere else would build where the stack does not say and charge where the
team did not choose (issue 33: a stack set to us-west-2 built in us-east-1). The planner therefore places every
workload of a cloud in the stack's region for that cloud, and on GCP in the stack's zone when it names one; offers
elsewhere are rejected with the config key to change. A cloud the stack names no region for is placed freely (within
placement.regions), as before. The values are checked where the stack file is read (accelfit.stackrules.regions).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from accelfit.clouds import cloud_named
from accelfit.planner.options import Offer, RawRejection

STACK_REGION_RULE = "stack-region"
STACK_ZONE_RULE = "stack-zone"


@dataclass(frozen=True)
class StackPlacement:
    """The stack's region per cloud (`gcp:region`, `aws:region`) and zone per cloud (`gcp:zone`); empty: unset."""

    regions: tuple[tuple[str, str], ...] = ()
    zones: tuple[tuple[str, str], ...] = ()

    def region(self, cloud: str) -> str | None:
        return dict(self.regions).get(cloud)

    def zone(self, cloud: str) -> str | None:
        return dict(self.zones).get(cloud)


def placed_offers(offers: list[Offer], placement: StackPlacement) -> tuple[list[Offer], list[RawRejection]]:
    """Offers in the stack's region (and zone, narrowed to it), and the others rejected naming the config key."""
    if not placement.regions and not placement.zones:
        return list(offers), []
    allowed, rejected = [], []
    for offer in offers:
        region, zone = placement.region(offer.cloud), placement.zone(offer.cloud)
        cloud = cloud_named(offer.cloud)
        where = (offer.platform, offer.accelerator.name, offer.machine, ",".join(offer.zones) or offer.region)
        if region is not None and offer.region != region:
            rejected.append(RawRejection(*where, STACK_REGION_RULE, f"offered in {offer.region}; the stack builds "
                                         f"{cloud.title} resources in {region} ({cloud.region_key})"))
        elif zone is not None and zone not in offer.zones:
            rejected.append(RawRejection(*where, STACK_ZONE_RULE, f"offered in {', '.join(offer.zones) or 'no zone'}"
                                         f"; the stack builds {cloud.title} resources in {zone} "
                                         f"({offer.cloud}:zone)"))
        else:
            allowed.append(offer if zone is None else dataclasses.replace(offer, zones=(zone,)))
    return allowed, rejected
