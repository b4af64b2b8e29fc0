"""Network: a custom-mode VPC with one regional subnet (GKE pod and service ranges, private Google access),
firewall rules that open nothing to the world, Cloud Router + Cloud NAT (nodes need no public IPs), and the
extra networks of the GPUDirect NICs of multi-NIC GPU machines, laid out as the flavour's rules say
(rules.gpudirect_layouts): TCPX/TCPXO one gVNIC VPC per NIC; RDMA (A3 Ultra, A4) one more gVNIC VPC plus one
RoCE VPC with a subnet per RDMA NIC, which takes no firewall rules."""

from __future__ import annotations

import ipaddress

from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi_gcp import compute

from accelfit.errors import InputError, problem
from accelfit.cloudrules.gcp.names import KEEP_EXISTING_NAME, fitted_name
from accelfit.cloudrules.gcp.node_settings import gvnic_subnet_cidr, rdma_subnet_cidr
from accelfit.cloudrules.gcp.rules import GpuDirectLayout

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
    proxy_only_cidr: str | None = None
    """A proxy-only subnet (purpose REGIONAL_MANAGED_PROXY) for regional Envoy-based load balancers: the GKE
    Gateway's gke-l7-rilb / gke-l7-regional-external-managed classes need one in the region. None: not built."""
    gpudirect: GpuDirectLayout | None = None
    """Layout of the GPUDirect NIC networks (rules.gpudirect_layouts); None = no extra networks."""
    rdma_network_profile: str | None = None
    """`projects/<p>/global/networkProfiles/<zone>-vpc-roce`: required when the layout has RDMA subnets."""


def validate_network_args(name: str, args: NetworkArgs) -> None:
    problems = []
    if not args.region:
        problems.append(problem(f"Network {name}", "region", "required", "set the region, e.g. us-central1"))
    if args.gpudirect is not None and args.gpudirect.rdma_subnets and not args.rdma_network_profile:
        # https://cloud.google.com/vpc/docs/rdma-network-profiles
        problems.append(problem(f"Network {name}", "rdma_network_profile",
                                "a RoCE VPC needs the zone's RDMA network profile",
                                "set projects/<project>/global/networkProfiles/<zone>-vpc-roce"))
    if args.proxy_only_cidr is not None:
        proxy = ipaddress.ip_network(args.proxy_only_cidr)
        clash = [cidr for cidr in (args.cidr, args.pods_cidr, args.services_cidr)
                 if proxy.overlaps(ipaddress.ip_network(cidr))]
        if clash:
            problems.append(problem(f"Network {name}", "proxy_only_cidr", f"overlaps {', '.join(clash)}",
                                    "choose a range clear of the node, pod and service ranges",
                                    args.proxy_only_cidr))
    if problems:
        raise InputError(problems)


class Network(pulumi.ComponentResource):
    network: compute.Network
    subnet: compute.Subnetwork
    gvnic_networks: list[compute.Network]
    rdma_network: compute.Network | None
    additional_nics: list[tuple[pulumi.Output[str], pulumi.Output[str]]]
    """(network name, subnetwork name) per extra NIC, in NIC order: gVNIC VPCs first, then the RDMA subnets."""

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None):
        validate_network_args(name, args)
        super().__init__("accelfit:gcp:Network", name, None, opts)
        # Explicit names replace in place: delete before create, or the new one would clash with the old. A name
        # an earlier release's auto-naming gave stays (names.KEEP_EXISTING_NAME).
        named = pulumi.ResourceOptions(parent=self, delete_before_replace=True,
                                       ignore_changes=list(KEEP_EXISTING_NAME))

        self.network = compute.Network(f"{name}-vpc", name=fitted_name("compute_network", f"{name}-vpc"),
                                       auto_create_subnetworks=False, routing_mode="REGIONAL", opts=named)
        self.subnet = compute.Subnetwork(
            f"{name}-subnet", name=fitted_name("compute_subnetwork", f"{name}-subnet"),
            network=self.network.id, region=args.region, ip_cidr_range=args.cidr,
            private_ip_google_access=True,  # nodes reach Google APIs (GCS, Artifact Registry) without public IPs
            secondary_ip_ranges=[
                compute.SubnetworkSecondaryIpRangeArgs(range_name=PODS_RANGE_NAME, ip_cidr_range=args.pods_cidr),
                compute.SubnetworkSecondaryIpRangeArgs(range_name=SERVICES_RANGE_NAME,
                                                       ip_cidr_range=args.services_cidr),
            ],
            opts=named)
        self._firewalls(name, args, named)
        self.proxy_subnet = None
        if args.proxy_only_cidr is not None:
            # https://cloud.google.com/load-balancing/docs/proxy-only-subnets: one ACTIVE proxy-only subnet per
            # region and VPC, used by every regional Envoy-based load balancer there (a /23 is recommended).
            self.proxy_subnet = compute.Subnetwork(
                f"{name}-proxy-subnet", name=fitted_name("compute_subnetwork", f"{name}-proxy-subnet"),
                network=self.network.id, region=args.region, ip_cidr_range=args.proxy_only_cidr,
                purpose="REGIONAL_MANAGED_PROXY", role="ACTIVE", opts=named)

        router = compute.Router(f"{name}-router", name=fitted_name("compute_router", f"{name}-router"),
                                network=self.network.id, region=args.region, opts=named)
        self.nat = compute.RouterNat(
            f"{name}-nat", name=fitted_name("compute_router_nat", f"{name}-nat"), router=router.name,
            region=args.region, nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            log_config=compute.RouterNatLogConfigArgs(enable=True, filter="ERRORS_ONLY"), opts=named)

        self.gvnic_networks, self.rdma_network, self.additional_nics = [], None, []
        if args.gpudirect is not None:
            for index in range(args.gpudirect.gvnic_networks):
                self._gvnic_network(name, index, args.region, args.gpudirect, named)
            if args.gpudirect.rdma_subnets:
                self._rdma_network(name, args, named)

        self.network_name = self.network.name
        self.subnet_name = self.subnet.name
        self.register_outputs({"network_id": self.network.id, "network_name": self.network.name,
                               "subnet_id": self.subnet.id, "subnet_name": self.subnet.name,
                               "gvnic_network_names": [net.name for net in self.gvnic_networks],
                               "rdma_network_name": self.rdma_network.name if self.rdma_network else None})

    def _firewall(self, name: str, network: pulumi.Input[str], opts: pulumi.ResourceOptions, **kwargs: Any) -> None:
        compute.Firewall(name, name=fitted_name("compute_firewall", name), network=network, direction="INGRESS",
                         priority=1000, opts=opts, **kwargs)

    def _firewalls(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions) -> None:
        self._firewall(f"{name}-allow-internal", self.network.id, opts,
                       source_ranges=[args.cidr, args.pods_cidr, args.services_cidr],
                       allows=[compute.FirewallAllowArgs(protocol="tcp"), compute.FirewallAllowArgs(protocol="udp"),
                               compute.FirewallAllowArgs(protocol="icmp")])
        self._firewall(f"{name}-allow-health-checks", self.network.id, opts, source_ranges=HEALTH_CHECK_RANGES,
                       allows=[compute.FirewallAllowArgs(protocol="tcp")])
        self._firewall(f"{name}-allow-iap-ssh", self.network.id, opts, source_ranges=[IAP_RANGE],
                       allows=[compute.FirewallAllowArgs(protocol="tcp", ports=["22"])])

    def _gvnic_network(self, name: str, index: int, region: str, layout: GpuDirectLayout,
                       opts: pulumi.ResourceOptions) -> None:
        """One gVNIC VPC with one subnet, jumbo MTU, and (TCPX/TCPXO/RDMA host NIC) traffic between the nodes."""
        cidr = gvnic_subnet_cidr(index)
        base = f"{name}-gpu{index}"
        network = compute.Network(f"{base}-vpc", name=fitted_name("compute_network", f"{base}-vpc"),
                                  auto_create_subnetworks=False, mtu=layout.gvnic_mtu, opts=opts)
        subnet = compute.Subnetwork(f"{base}-subnet", name=fitted_name("compute_subnetwork", f"{base}-subnet"),
                                    network=network.id, region=region, ip_cidr_range=cidr, opts=opts)
        if layout.gvnic_firewall:
            # GPU-to-GPU traffic between the nodes on this NIC; nothing else reaches it.
            self._firewall(f"{base}-allow-internal", network.id, opts, source_ranges=[cidr],
                           allows=[compute.FirewallAllowArgs(protocol="tcp"), compute.FirewallAllowArgs(protocol="udp"),
                                   compute.FirewallAllowArgs(protocol="icmp")])
        self.gvnic_networks.append(network)
        self.additional_nics.append((network.name, subnet.name))

    def _rdma_network(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions) -> None:
        """One RoCE VPC (the zone's RDMA network profile) with one subnet per RDMA NIC and no firewall rules: a
        RoCE VPC accepts none (cluster-toolkit modules/network/gpu-rdma-vpc sets firewall_rules = [])."""
        layout = args.gpudirect
        assert layout is not None
        base = f"{name}-rdma"
        network = compute.Network(f"{base}-vpc", name=fitted_name("compute_network", f"{base}-vpc"),
                                  auto_create_subnetworks=False, routing_mode="REGIONAL", mtu=layout.rdma_mtu,
                                  network_profile=args.rdma_network_profile, opts=opts)
        for index in range(layout.rdma_subnets):
            subnet = compute.Subnetwork(f"{base}-subnet{index}",
                                        name=fitted_name("compute_subnetwork", f"{base}-subnet{index}"),
                                        network=network.id, region=args.region,
                                        ip_cidr_range=rdma_subnet_cidr(index, layout.rdma_subnets), opts=opts)
            self.additional_nics.append((network.name, subnet.name))
        self.rdma_network = network
