"""Network: a custom-mode VPC with one regional subnet (GKE pod and service ranges, private Google access),
firewall rules that open nothing to the world, Cloud Router + Cloud NAT (nodes need no public IPs), and
optional extra VPCs for the GPUDirect NICs of multi-NIC GPU machines (A3 High/Mega/Ultra)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import compute

from accelfit.errors import InputError, problem
from components.gcp.node_settings import extra_network_mtu, extra_subnet_cidr

# Google's health-check probers and the IAP TCP-forwarding range; SSH is allowed only through IAP.
# https://cloud.google.com/load-balancing/docs/health-check-concepts#ip-ranges
# https://cloud.google.com/iap/docs/using-tcp-forwarding#create-firewall-rule
HEALTH_CHECK_RANGES = ["35.191.0.0/16", "130.211.0.0/22"]
IAP_RANGE = "35.235.240.0/20"
PODS_RANGE_NAME = "pods"
SERVICES_RANGE_NAME = "services"


@dataclass(frozen=True)
class NetworkArgs:
    region: str
    cidr: str = "10.0.0.0/16"
    pods_cidr: str = "10.64.0.0/14"
    services_cidr: str = "10.68.0.0/20"
    extra_networks: int = 0
    """Extra VPCs, one per GPUDirect NIC (0 = none)."""
    gpudirect: str = "none"
    """GPUDirect flavour of the machines using the extra networks (tcpx, tcpxo, rdma); sets their MTU."""
    extra_network_profile: str | None = None
    """Network profile of the extra VPCs (RDMA needs `<zone>-vpc-roce`); None = a normal VPC."""


def validate_network_args(name: str, args: NetworkArgs) -> None:
    problems = []
    if not args.region:
        problems.append(problem(f"Network {name}", "region", "required", "set the region, e.g. us-central1"))
    if args.extra_networks and args.gpudirect == "none":
        problems.append(problem(f"Network {name}", "gpudirect", "extra networks are for GPUDirect NICs",
                                "set gpudirect (tcpx, tcpxo or rdma) or extra_networks: 0", args.gpudirect))
    if problems:
        raise InputError(problems)


class Network(pulumi.ComponentResource):
    network: compute.Network
    subnet: compute.Subnetwork
    extra_networks: list[compute.Network]
    extra_subnets: list[compute.Subnetwork]

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None):
        validate_network_args(name, args)
        super().__init__("accelfit:gcp:Network", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        self.network = compute.Network(f"{name}-vpc", auto_create_subnetworks=False, routing_mode="REGIONAL",
                                       opts=child)
        self.subnet = compute.Subnetwork(
            f"{name}-subnet", network=self.network.id, region=args.region, ip_cidr_range=args.cidr,
            private_ip_google_access=True,  # nodes reach Google APIs (GCS, Artifact Registry) without public IPs
            secondary_ip_ranges=[
                compute.SubnetworkSecondaryIpRangeArgs(range_name=PODS_RANGE_NAME, ip_cidr_range=args.pods_cidr),
                compute.SubnetworkSecondaryIpRangeArgs(range_name=SERVICES_RANGE_NAME,
                                                       ip_cidr_range=args.services_cidr),
            ],
            opts=child)
        self._firewalls(name, args, child)

        router = compute.Router(f"{name}-router", network=self.network.id, region=args.region, opts=child)
        self.nat = compute.RouterNat(
            f"{name}-nat", router=router.name, region=args.region, nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            log_config=compute.RouterNatLogConfigArgs(enable=True, filter="ERRORS_ONLY"), opts=child)

        self.extra_networks, self.extra_subnets = [], []
        for index in range(args.extra_networks):
            self._extra_network(name, index, args, child)

        self.network_name = self.network.name
        self.subnet_name = self.subnet.name
        self.register_outputs({"network_id": self.network.id, "network_name": self.network.name,
                               "subnet_id": self.subnet.id, "subnet_name": self.subnet.name,
                               "extra_network_names": [net.name for net in self.extra_networks]})

    def _firewalls(self, name: str, args: NetworkArgs, child: pulumi.ResourceOptions) -> None:
        compute.Firewall(
            f"{name}-allow-internal", network=self.network.id, direction="INGRESS", priority=1000,
            source_ranges=[args.cidr, args.pods_cidr, args.services_cidr],
            allows=[compute.FirewallAllowArgs(protocol="tcp"), compute.FirewallAllowArgs(protocol="udp"),
                    compute.FirewallAllowArgs(protocol="icmp")],
            opts=child)
        compute.Firewall(
            f"{name}-allow-health-checks", network=self.network.id, direction="INGRESS", priority=1000,
            source_ranges=HEALTH_CHECK_RANGES, allows=[compute.FirewallAllowArgs(protocol="tcp")], opts=child)
        compute.Firewall(
            f"{name}-allow-iap-ssh", network=self.network.id, direction="INGRESS", priority=1000,
            source_ranges=[IAP_RANGE], allows=[compute.FirewallAllowArgs(protocol="tcp", ports=["22"])],
            opts=child)

    def _extra_network(self, name: str, index: int, args: NetworkArgs, child: pulumi.ResourceOptions) -> None:
        cidr = extra_subnet_cidr(index)
        network = compute.Network(f"{name}-gpu{index}-vpc", auto_create_subnetworks=False,
                                  mtu=extra_network_mtu(args.gpudirect),
                                  network_profile=args.extra_network_profile, opts=child)
        subnet = compute.Subnetwork(f"{name}-gpu{index}-subnet", network=network.id, region=args.region,
                                    ip_cidr_range=cidr, opts=child)
        # GPU-to-GPU traffic between the nodes on this NIC; nothing else reaches it.
        compute.Firewall(f"{name}-gpu{index}-allow-internal", network=network.id, direction="INGRESS",
                         source_ranges=[cidr], allows=[compute.FirewallAllowArgs(protocol="all")], opts=child)
        self.extra_networks.append(network)
        self.extra_subnets.append(subnet)
