"""AwsNetwork: the VPC a GPU cluster lives in.

Private subnets (nodes, pods, file systems) and public subnets (only NAT gateways and load balancers) in every
zone, a NAT gateway per zone so one zone failing does not cut the others off (a single GPU VM gets one, in its
zone), a node security group that lets nodes talk to each other on every port (EFA requires it) and admits nothing
from outside, and an S3 gateway endpoint so dataset and checkpoint traffic stays off the NAT gateways (no per-GB
NAT charge).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.errors import Problem
from accelfit.cloudrules.aws.addressing import MIN_ZONES, s3_gateway_service, subnet_layout
from components.aws.checks import args_problem, raise_if_any
from components.common import child_name

_COMPONENT = "AwsNetwork"


@dataclass(frozen=True)
class AwsNetworkArgs:
    region: str = field(metadata={"doc": "Region, e.g. us-east-1 (also names the S3 endpoint service)."})
    zones: tuple[str, ...] = field(metadata={"doc": "Availability zones of the region, at least two (EKS)."})
    cidr: str = field(default="10.0.0.0/16", metadata={"doc": "VPC CIDR, a private range."})
    tags: Mapping[str, str] = field(default_factory=dict, metadata={"doc": "Tags for every resource."})
    nat_zones: tuple[str, ...] | None = field(default=None, metadata={
        "doc": "Zones that get a NAT gateway; None: every zone. The other zones' private subnets route through the "
               "first of them (one GPU VM in one zone needs one NAT gateway)."})


def validate_network_args(args: AwsNetworkArgs) -> list[Problem]:
    problems: list[Problem] = []
    if len(args.zones) < MIN_ZONES:
        problems.append(args_problem(_COMPONENT, "zones", f"EKS needs subnets in at least {MIN_ZONES} availability "
                                     "zones", "list two or more zones of the region", list(args.zones)))
    if len(set(args.zones)) != len(args.zones):
        problems.append(args_problem(_COMPONENT, "zones", "a zone is listed twice", "list each zone once",
                                     list(args.zones)))
    if args.nat_zones is not None and (not args.nat_zones or set(args.nat_zones) - set(args.zones)):
        problems.append(args_problem(_COMPONENT, "nat_zones", "NAT gateways go in zones the network spans",
                                     "list one or more of the network's zones", list(args.nat_zones)))
    if any(not zone.startswith(args.region) for zone in args.zones):
        problems.append(args_problem(_COMPONENT, "zones", f"every zone must be in region {args.region}",
                                     f"use zones such as {args.region}a", list(args.zones)))
    try:
        network = ipaddress.ip_network(args.cidr, strict=True)
        if not network.is_private:
            problems.append(args_problem(_COMPONENT, "cidr", "the VPC CIDR must be a private (RFC 1918) range",
                                         "use e.g. 10.0.0.0/16", args.cidr))
        elif args.zones:
            subnet_layout(args.cidr, args.zones)
    except ValueError as error:
        problems.append(args_problem(_COMPONENT, "cidr", str(error), "use a /16 such as 10.0.0.0/16", args.cidr))
    return problems


class AwsNetwork(pulumi.ComponentResource):
    vpc_id: pulumi.Output[str]
    """The VPC."""
    private_subnet_ids: dict[str, pulumi.Output[str]]
    """Private subnet per zone (nodes, file systems, the EKS control-plane interfaces)."""
    public_subnet_ids: dict[str, pulumi.Output[str]]
    """Public subnet per zone (NAT gateways and internet-facing load balancers only)."""
    node_security_group_id: pulumi.Output[str]
    """Security group for nodes: all traffic between members (EFA), nothing from outside."""

    def __init__(self, name: str, args: AwsNetworkArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_network_args(args))
        super().__init__("accelfit:aws:AwsNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)

        def named(role: str) -> dict[str, str]:
            return {**tags, "Name": child_name(name, role)}

        # DNS support and hostnames are required by EKS nodes and by the private API endpoint
        # (https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html#network-requirements-vpc).
        vpc = aws.ec2.Vpc(child_name(name, "vpc"), cidr_block=args.cidr, enable_dns_support=True,
                          enable_dns_hostnames=True, region=args.region, tags=named("vpc"), opts=child)
        gateway = aws.ec2.InternetGateway(child_name(name, "igw"), vpc_id=vpc.id, region=args.region,
                                          tags=named("igw"), opts=child)
        public_routes = aws.ec2.RouteTable(
            child_name(name, "public-rt"), vpc_id=vpc.id, region=args.region, tags=named("public-rt"),
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=gateway.id)], opts=child)

        self.private_subnet_ids = {}
        self.public_subnet_ids = {}
        private_route_tables = []
        nat_zones = args.nat_zones if args.nat_zones is not None else args.zones
        # The zones with a NAT gateway come first, so a zone without one can route through it.
        layouts = sorted(subnet_layout(args.cidr, args.zones), key=lambda layout: layout.zone not in nat_zones)
        nat = None
        for layout in layouts:
            suffix = layout.zone[-1] if layout.zone[-1].isalpha() else layout.zone
            # Subnet role tags tell the AWS Load Balancer Controller where to put load balancers
            # (https://docs.aws.amazon.com/eks/latest/userguide/network-load-balancing.html).
            public = aws.ec2.Subnet(
                child_name(name, f"public-{suffix}"), vpc_id=vpc.id, cidr_block=layout.public_cidr,
                availability_zone=layout.zone, map_public_ip_on_launch=False, region=args.region,
                tags={**named(f"public-{suffix}"), "kubernetes.io/role/elb": "1"}, opts=child)
            private = aws.ec2.Subnet(
                child_name(name, f"private-{suffix}"), vpc_id=vpc.id, cidr_block=layout.private_cidr,
                availability_zone=layout.zone, map_public_ip_on_launch=False, region=args.region,
                tags={**named(f"private-{suffix}"), "kubernetes.io/role/internal-elb": "1"}, opts=child)
            aws.ec2.RouteTableAssociation(child_name(name, f"public-{suffix}-rta"), subnet_id=public.id,
                                          route_table_id=public_routes.id, region=args.region, opts=child)
            if layout.zone in nat_zones:
                # A NAT gateway per zone keeps one zone's failure from cutting the others off; a zone that runs
                # nothing (a GPU VM's network spans two zones, the VM sits in one) shares the VM zone's gateway
                # (https://docs.aws.amazon.com/vpc/latest/userguide/vpc-nat-gateway.html: "create a NAT gateway in
                # each Availability Zone" is for resources in several zones).
                address = aws.ec2.Eip(child_name(name, f"nat-{suffix}-eip"), domain="vpc", region=args.region,
                                      tags=named(f"nat-{suffix}-eip"), opts=child)
                nat = aws.ec2.NatGateway(child_name(name, f"nat-{suffix}"), subnet_id=public.id,
                                         allocation_id=address.id, connectivity_type="public", region=args.region,
                                         tags=named(f"nat-{suffix}"),
                                         opts=pulumi.ResourceOptions(parent=self, depends_on=[gateway]))
            assert nat is not None  # the zones with a NAT gateway come first (sorted above)
            private_routes = aws.ec2.RouteTable(
                child_name(name, f"private-{suffix}-rt"), vpc_id=vpc.id, region=args.region,
                tags=named(f"private-{suffix}-rt"),
                routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id)], opts=child)
            aws.ec2.RouteTableAssociation(child_name(name, f"private-{suffix}-rta"), subnet_id=private.id,
                                          route_table_id=private_routes.id, region=args.region, opts=child)
            private_route_tables.append(private_routes)
            self.private_subnet_ids[layout.zone] = private.id
            self.public_subnet_ids[layout.zone] = public.id

        # EFA needs all traffic allowed both ways between members of the group
        # (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-security). No ingress from
        # anywhere else: the control plane reaches nodes through the EKS cluster security group. Rules are separate
        # resources (never inline) so other components can add theirs (Lustre's return path) without the two
        # styles fighting (https://www.pulumi.com/registry/packages/aws/api-docs/ec2/securitygroup/).
        nodes = aws.ec2.SecurityGroup(
            child_name(name, "nodes-sg"), vpc_id=vpc.id, region=args.region, tags=named("nodes-sg"),
            description="accelfit nodes: all traffic between nodes (EFA); no ingress from outside", opts=child)
        aws.vpc.SecurityGroupIngressRule(
            child_name(name, "nodes-from-nodes"), security_group_id=nodes.id, ip_protocol="-1",
            referenced_security_group_id=nodes.id, description="node to node, all traffic (EFA, NCCL)",
            region=args.region, tags=named("nodes-from-nodes"), opts=child)
        aws.vpc.SecurityGroupEgressRule(
            child_name(name, "nodes-to-nodes"), security_group_id=nodes.id, ip_protocol="-1",
            referenced_security_group_id=nodes.id, description="node to node, all traffic (EFA, NCCL)",
            region=args.region, tags=named("nodes-to-nodes"), opts=child)
        aws.vpc.SecurityGroupEgressRule(
            child_name(name, "nodes-outbound"), security_group_id=nodes.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0",
            description="outbound through NAT: images, AWS APIs", region=args.region, tags=named("nodes-outbound"),
            opts=child)

        # A gateway endpoint is free and keeps S3 traffic (datasets, checkpoints, FSx imports) off NAT
        # (https://docs.aws.amazon.com/vpc/latest/privatelink/vpc-endpoints-s3.html).
        s3_endpoint = aws.ec2.VpcEndpoint(
            child_name(name, "s3-endpoint"), vpc_id=vpc.id, vpc_endpoint_type="Gateway",
            service_name=s3_gateway_service(args.region),
            route_table_ids=[table.id for table in private_route_tables], region=args.region,
            tags=named("s3-endpoint"), opts=child)

        self.vpc_id = vpc.id
        self.vpc_cidr = args.cidr
        self.node_security_group_id = nodes.id
        self.s3_endpoint_id = s3_endpoint.id
        self.register_outputs({"vpc_id": self.vpc_id, "private_subnet_ids": self.private_subnet_ids,
                               "public_subnet_ids": self.public_subnet_ids,
                               "node_security_group_id": self.node_security_group_id,
                               "s3_endpoint_id": self.s3_endpoint_id})
