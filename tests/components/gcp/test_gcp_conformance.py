"""Conformance: for each GCP GPU machine family the planner can choose, what accelfit renders (network layout,
NICs per node, GPUDirect set-up, boot disk, local SSD, zones/placement, driver installation) against the facts of
blueprints known to deploy. The facts are recorded here with repository, path and commit; their code is not.

Sources (read 2026-11-23):
  CT  = GoogleCloudPlatform/cluster-toolkit @1047080375afbb44da4b596be314634e7486af4a
        examples/gke-a3-highgpu/gke-a3-highgpu.yaml, examples/gke-a3-megagpu/gke-a3-megagpu.yaml,
        examples/gke-a3-ultragpu/gke-a3-ultragpu.yaml, examples/gke-a4/gke-a4.yaml,
        modules/network/gpu-rdma-vpc/main.tf, modules/network/multivpc/variables.tf,
        modules/compute/gke-node-pool/{main.tf,gpu_direct.tf,disk_definitions.tf},
        modules/scheduler/gke-cluster/{main.tf,variables.tf,templates/*.tftpl}
  XPK = AI-Hypercomputer/xpk @367c838253bea41e7d7716145ad6513f44c1a21e
        src/xpk/core/network.py, src/xpk/core/nodepool.py, src/xpk/core/blueprint/blueprint_generator.py,
        src/xpk/core/system_characteristics.py
  CEA = GoogleCloudPlatform/container-engine-accelerators (installer manifests; commits in the URLs)
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import gcp_family_plans


@dataclass(frozen=True)
class Upstream:
    gvnic_vpcs: int            # extra gVNIC VPCs, one subnet each
    gvnic_mtu: int | None
    gvnic_firewall: bool       # internal tcp/udp/icmp rule on each gVNIC VPC
    rdma_subnets: int          # subnets of the single RoCE VPC (0 = no RoCE VPC)
    k8s_networks: tuple[str, ...]
    device_modes: frozenset[str]
    installers: tuple[str, ...]  # manifest file names applied in the cluster
    boot_disks: tuple[str, ...]  # what upstream sets or the family accepts
    local_ssd_ephemeral: int
    max_pods_per_node: int | None
    single_zone: bool
    driver: str
    source: str


UPSTREAM = {
    "a3-high": Upstream(
        gvnic_vpcs=4, gvnic_mtu=8244, gvnic_firewall=True, rdma_subnets=0,
        k8s_networks=("vpc1", "vpc2", "vpc3", "vpc4"), device_modes=frozenset({"NetDevice"}),
        installers=("nccl-tcpx-installer.yaml", "nccl-config.yaml", "nri-device-injector.yaml"),
        boot_disks=("pd-balanced", "pd-ssd", "hyperdisk-balanced"), local_ssd_ephemeral=16, max_pods_per_node=None,
        single_zone=True, driver="DEFAULT",
        source="CT gke-a3-highgpu.yaml (multivpc network_count 4, mtu 8244), gpu_direct.tf (a3-highgpu-8g "
               "manifests @CEA 204a57c), disk_definitions.tf (16 local SSDs), gke-node-pool main.tf (driver "
               "DEFAULT); XPK network.py (firewall tcp/udp/icmp, GKENetworkParamSet vpc1..4 NetDevice)"),
    "a3-mega": Upstream(
        gvnic_vpcs=8, gvnic_mtu=8244, gvnic_firewall=True, rdma_subnets=0,
        k8s_networks=tuple(f"vpc{n}" for n in range(1, 9)), device_modes=frozenset({"NetDevice"}),
        installers=("nccl-tcpxo-installer.yaml", "nri-device-injector.yaml"),
        boot_disks=("pd-balanced", "pd-ssd", "hyperdisk-balanced"), local_ssd_ephemeral=16, max_pods_per_node=32,
        single_zone=True, driver="DEFAULT",
        source="CT gke-a3-megagpu.yaml (multivpc network_count 8, mtu 8244, k8s names vpc1..), gpu_direct.tf "
               "(a3-megagpu-8g manifests @CEA a32cd51), disk_definitions.tf (16); XPK nodepool.py (8 additional "
               "node networks, --max-pods-per-node=32)"),
    "a3-ultra": Upstream(
        gvnic_vpcs=1, gvnic_mtu=8896, gvnic_firewall=True, rdma_subnets=8,
        k8s_networks=("gvnic-1", *(f"rdma-{n}" for n in range(8))), device_modes=frozenset({"NetDevice", "RDMA"}),
        installers=("nccl-rdma-installer.yaml",), boot_disks=("hyperdisk-balanced",), local_ssd_ephemeral=32,
        max_pods_per_node=32, single_zone=True, driver="DEFAULT",
        source="CT gke-a3-ultragpu.yaml (net-1 gVNIC VPC + gpu-rdma-vpc count 8, <zone>-vpc-roce), gpu-rdma-vpc "
               "main.tf (firewall_rules = [], mtu 8896), gke-cluster variables.tf (gvnic-1.., rdma-0..), "
               "disk_definitions.tf (32); CEA gpudirect-rdma/nccl-rdma-installer.yaml; XPK (max pods 32)"),
    "a4": Upstream(
        gvnic_vpcs=1, gvnic_mtu=8896, gvnic_firewall=True, rdma_subnets=8,
        k8s_networks=("gvnic-1", *(f"rdma-{n}" for n in range(8))), device_modes=frozenset({"NetDevice", "RDMA"}),
        installers=("nccl-rdma-installer.yaml",), boot_disks=("hyperdisk-balanced",), local_ssd_ephemeral=32,
        max_pods_per_node=32, single_zone=True, driver="DEFAULT",
        source="CT gke-a4.yaml (same layout as A3 Ultra), disk_definitions.tf (32); XPK blueprint_generator.py "
               "(A4 pool: disk_type hyperdisk-balanced, local_ssd_count_ephemeral_storage 32, max_pods_per_node 32)"),
    # No GPUDirect NICs: a single gVNIC primary NIC, no installers. Local SSD counts from the machine's bundled
    # disks (https://cloud.google.com/compute/docs/accelerator-optimized-machines: g2-standard-96 8 x 375 GB,
    # a2-ultragpu-8g 8 x 375 GB, a2-highgpu none).
    "g2": Upstream(0, None, False, 0, (), frozenset(), (), ("pd-balanced", "pd-ssd"), 8, None, True, "DEFAULT",
                   "GCE accelerator-optimized machines (G2); CT gke-node-pool main.tf (driver DEFAULT)"),
    "a2-high": Upstream(0, None, False, 0, (), frozenset(), (), ("pd-standard", "pd-balanced", "pd-ssd"), 0, None,
                        True, "DEFAULT", "GCE accelerator-optimized machines (A2); CT gke-node-pool main.tf"),
    "a2-ultra": Upstream(0, None, False, 0, (), frozenset(), (), ("pd-standard", "pd-balanced", "pd-ssd"), 8, None,
                         True, "DEFAULT", "GCE accelerator-optimized machines (A2 Ultra); CT gke-node-pool main.tf"),
}


@pytest.fixture(scope="module", params=sorted(UPSTREAM))
def rendered(request):
    family = request.param
    recording, error = gcp_family_plans.record_full(gcp_family_plans.training_plan(family))
    assert error is None, error and error.render()
    return family, UPSTREAM[family], recording


def test_every_gcp_gpu_family_in_the_catalog_has_upstream_facts():
    from accelfit.catalog import load_catalog
    from accelfit.catalog.models import Cloud

    families = {row.family for row in load_catalog().instance_types_for(Cloud.gcp)}
    assert families - {"a2-mega"} <= set(UPSTREAM), families  # a2-mega: same rules as a2-high, no GPUDirect


def test_network_layout(rendered):
    _, upstream, recording = rendered
    networks = {item.name: item.inputs for item in recording.of_type("gcp:compute/network:Network")}
    gvnic = [name for name in networks if "-gpu" in name]
    roce = [name for name in networks if "-rdma-" in name]
    assert len(gvnic) == upstream.gvnic_vpcs, upstream.source
    assert all(networks[name]["mtu"] == upstream.gvnic_mtu for name in gvnic)
    assert len(roce) == (1 if upstream.rdma_subnets else 0)
    firewalls = recording.of_type("gcp:compute/firewall:Firewall")
    for name in gvnic:
        rules = [item for item in firewalls if item.inputs["network"] == f"{name}-id"]
        assert bool(rules) == upstream.gvnic_firewall
        if rules:
            assert {allow["protocol"] for allow in rules[0].inputs["allows"]} == {"tcp", "udp", "icmp"}
    for name in roce:
        assert networks[name]["networkProfile"].endswith("-vpc-roce")
        assert not [item for item in firewalls if item.inputs["network"] == f"{name}-id"]
        subnets = [item for item in recording.of_type("gcp:compute/subnetwork:Subnetwork")
                   if item.inputs["network"] == f"{name}-id"]
        assert len(subnets) == upstream.rdma_subnets


def test_nics_per_node(rendered):
    _, upstream, recording = rendered
    pool = recording.named("fam-train-gpu-pool").inputs
    nics = pool["networkConfig"].get("additionalNodeNetworkConfigs", [])
    assert len(nics) == upstream.gvnic_vpcs + upstream.rdma_subnets
    assert pool["nodeConfig"]["gvnic"] == {"enabled": True}


def test_gpudirect_objects_in_the_cluster(rendered):
    _, upstream, recording = rendered
    params = recording.of_type("kubernetes:networking.gke.io/v1:GKENetworkParamSet")
    assert tuple(sorted(item.inputs["metadata"]["name"] for item in params)) == tuple(sorted(upstream.k8s_networks))
    assert {item.inputs["spec"]["deviceMode"] for item in params} == upstream.device_modes
    files = [item.inputs["file"].rsplit("/", 1)[-1] for item in recording.of_type("kubernetes:yaml/v2:ConfigFile")]
    # Remote components register asynchronously under mocks: compare the set, not the recording order.
    assert sorted(files) == sorted(upstream.installers)


def test_boot_disk_local_ssd_and_driver(rendered):
    _, upstream, recording = rendered
    node_config = recording.named("fam-train-gpu-pool").inputs["nodeConfig"]
    assert node_config["diskType"] in upstream.boot_disks
    local = node_config.get("ephemeralStorageLocalSsdConfig", {}).get("localSsdCount", 0)
    assert local == upstream.local_ssd_ephemeral
    (accelerator,) = node_config["guestAccelerators"]
    assert accelerator["gpuDriverInstallationConfig"]["gpuDriverVersion"] == upstream.driver


def test_zones_pods_and_placement(rendered):
    _, upstream, recording = rendered
    pool = recording.named("fam-train-gpu-pool").inputs
    assert (len(pool["nodeLocations"]) == 1) == upstream.single_zone
    assert pool.get("maxPodsPerNode") == upstream.max_pods_per_node
    # Divergence, on purpose: Cluster Toolkit's examples set no placement policy because their capacity comes from
    # a dense reservation; accelfit asks for COMPACT placement for multi-node training (GKE compact placement
    # guide), which needs the single zone both agree on.
    assert pool["placementPolicy"] == {"type": "COMPACT"}
