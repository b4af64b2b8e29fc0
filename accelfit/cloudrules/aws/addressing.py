"""Pure address planning for the VPC: which CIDR each subnet gets. No Pulumi here, so it is unit-tested alone.

Private subnets hold the nodes and, with the VPC CNI, every pod's IP address
(https://docs.aws.amazon.com/eks/latest/best-practices/ip-opt.html), so they get most of the space; public
subnets only hold NAT gateways and load balancers, so they get small blocks carved from the last slice.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

# EKS needs subnets in at least two availability zones for its control-plane network interfaces
# (https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html).
MIN_ZONES = 2
# Private slices: a quarter of the VPC each for up to 3 zones, an eighth each for up to 7.
_MAX_ZONES = 7
# A /28 is the smallest subnet AWS allows (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html).
_SMALLEST_PREFIX = 28


@dataclass(frozen=True)
class ZoneSubnets:
    zone: str
    private_cidr: str
    public_cidr: str


def subnet_layout(vpc_cidr: str, zones: tuple[str, ...] | list[str]) -> tuple[ZoneSubnets, ...]:
    """One private and one public subnet per zone, without overlaps, inside `vpc_cidr`.

    Zones 1-3 get private /(p+2) blocks (a /16 gives /18s of 16k addresses), more zones get /(p+3); the public
    subnets are /(p+bits+4) blocks inside the last private-sized slice, which no private subnet uses.
    Raises ValueError when the CIDR is too small or there are too many zones.
    """
    network: ipaddress.IPv4Network | ipaddress.IPv6Network = ipaddress.ip_network(vpc_cidr, strict=True)
    if not 1 <= len(zones) <= _MAX_ZONES:
        raise ValueError(f"between 1 and {_MAX_ZONES} zones are supported, got {len(zones)}")
    bits = 2 if len(zones) <= 3 else 3
    public_prefix = network.prefixlen + bits + 4
    if public_prefix > _SMALLEST_PREFIX:
        raise ValueError(f"{vpc_cidr} is too small for {len(zones)} zones; use a /{_SMALLEST_PREFIX - bits - 4} "
                         "or larger block")
    slices: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = list(
        network.subnets(new_prefix=network.prefixlen + bits))
    public = list(slices[-1].subnets(new_prefix=public_prefix))
    return tuple(ZoneSubnets(zone=zone, private_cidr=str(slices[index]), public_cidr=str(public[index]))
                 for index, zone in enumerate(zones))


def s3_gateway_service(region: str) -> str:
    """The S3 gateway-endpoint service name; China regions put 'cn.' in front
    (https://docs.amazonaws.cn/en_us/aws/latest/userguide/endpoints-Beijing.html)."""
    prefix = "cn." if region.startswith("cn-") else ""
    return f"{prefix}com.amazonaws.{region}.s3"
