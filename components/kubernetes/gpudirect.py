"""GpuDirectNetworking: what makes the GPUDirect NICs of A3 High (TCPX), A3 Mega (TCPXO), A3 Ultra and A4 (RDMA)
GKE nodes usable by pods, the way Cluster Toolkit and xpk set it up:

- one GKENetworkParamSet and one Network object per extra NIC (deviceMode NetDevice for gVNIC NICs, RDMA for the
  RoCE ones), named as the blueprints name them (vpc1.. for TCPX/TCPXO; gvnic-1 and rdma-0.. for RDMA), so a pod
  asks for them with the `networking.gke.io/interfaces` annotation
  (cluster-toolkit modules/scheduler/gke-cluster/templates/*.tftpl and main.tf @1047080; xpk
  src/xpk/core/network.py @367c838);
- the NCCL plugin installer DaemonSet of the flavour, and for TCPX/TCPXO the NRI device injector, from pinned
  commits of GoogleCloudPlatform/container-engine-accelerators (data/gpudirect.yaml).

Pods still have to ask for the NICs: TCPX/TCPXO pods need the rxdm sidecar and the NICs' annotations (GKE's
GPUDirect-TCPX/TCPXO guides); RDMA pods need the annotations and the gIB NCCL environment. The README shows them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelfit.yamlio import read_package_yaml
from components.common import child_name

GPUDIRECT_FILE = Path(__file__).parent / "data" / "gpudirect.yaml"
NETWORKING_API = "networking.gke.io/v1"


@dataclass(frozen=True)
class Manifest:
    purpose: str
    url: str


@functools.cache
def gpudirect_manifests() -> dict[str, tuple[Manifest, ...]]:
    """Flavour -> the pinned manifests it installs. Every URL names a commit, never a branch."""
    data = read_package_yaml(GPUDIRECT_FILE)
    return {flavour: tuple(Manifest(**item) for item in entry["manifests"])
            for flavour, entry in data["flavours"].items()}


@dataclass(frozen=True)
class NicNetwork:
    """One extra NIC as Kubernetes sees it: the Network name pods use, and the VPC/subnet behind it."""

    name: str
    vpc: pulumi.Input[str]
    subnet: pulumi.Input[str]
    device_mode: str
    """NetDevice (gVNIC) or RDMA (RoCE NICs)."""


def network_param_set_spec(nic: NicNetwork) -> dict[str, pulumi.Input[str]]:
    return {"vpc": nic.vpc, "vpcSubnet": nic.subnet, "deviceMode": nic.device_mode}


def network_spec(name: str) -> dict[str, Any]:
    return {"parametersRef": {"group": "networking.gke.io", "kind": "GKENetworkParamSet", "name": name},
            "type": "Device"}


@dataclass(frozen=True)
class GpuDirectNetworkingArgs:
    provider: k8s.Provider
    flavour: str
    nics: tuple[NicNetwork, ...]
    labels: Mapping[str, str] = field(default_factory=dict)
    dependencies: Sequence[pulumi.Resource] = ()
    """The GPU node pools: the installers' DaemonSets target their nodes."""


class GpuDirectNetworking(pulumi.ComponentResource):
    def __init__(self, name: str, args: GpuDirectNetworkingArgs, opts: pulumi.ResourceOptions | None = None):
        manifests = gpudirect_manifests().get(args.flavour)
        if manifests is None or not args.nics:
            from accelfit.errors import InputError, problem

            raise InputError([problem(f"GpuDirectNetworking {name}", "flavour",
                                      "no GPUDirect set-up for this flavour, or no NICs to expose",
                                      f"use one of {', '.join(gpudirect_manifests())} with the pool's NICs",
                                      args.flavour)])
        super().__init__("accelfit:kubernetes:GpuDirectNetworking", name, None, opts)
        on_cluster = pulumi.ResourceOptions(parent=self, provider=args.provider,
                                            depends_on=list(args.dependencies))
        labels = dict(args.labels)
        for nic in args.nics:
            params = k8s.apiextensions.CustomResource(
                child_name(name, f"params-{nic.name}"), api_version=NETWORKING_API, kind="GKENetworkParamSet",
                metadata={"name": nic.name, "labels": labels}, spec=network_param_set_spec(nic), opts=on_cluster)
            k8s.apiextensions.CustomResource(
                child_name(name, f"network-{nic.name}"), api_version=NETWORKING_API, kind="Network",
                metadata={"name": nic.name, "labels": labels}, spec=network_spec(nic.name),
                opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[params])))
        for index, manifest in enumerate(manifests):
            # yaml.v2.ConfigFile fetches the pinned URL at deploy time and applies its objects.
            k8s.yaml.v2.ConfigFile(child_name(name, f"manifest-{index}"), file=manifest.url, opts=on_cluster)
        self.register_outputs({"flavour": args.flavour, "networks": [nic.name for nic in args.nics],
                               "manifests": [manifest.url for manifest in manifests]})
