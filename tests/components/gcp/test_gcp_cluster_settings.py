"""GKE cluster and GPU pool settings beyond the shapes: webhook firewall for the private control plane,
maintenance window and exclusion, upgrade settings, control-plane access from stack config, Workload Identity,
GPUDirect objects inside the cluster, DWS flex-start and queued provisioning. Asserted on recorded inputs."""

from __future__ import annotations

import re

import pytest

import gcp_family_plans
import gcp_plans
from accelfit.errors import InputError
from components.gcp.gpu_node_pool import GpuNodePoolArgs, validate_gpu_pool_args

PINNED_URL = re.compile(r"^https://raw\.githubusercontent\.com/GoogleCloudPlatform/container-engine-accelerators/"
                        r"[0-9a-f]{40}/")


@pytest.fixture(scope="module")
def h100():
    recording, error = gcp_family_plans.record_full(gcp_plans.gke_h100_training())
    assert error is None
    return recording


@pytest.fixture(scope="module")
def l4():
    recording, error = gcp_family_plans.record_full(gcp_plans.l4_inference())
    assert error is None
    return recording


def test_control_plane_reaches_the_kueue_webhook_and_visibility_api_from_its_range_only(h100):
    rule = h100.named("llm-train-gke-allow-webhooks").inputs
    assert rule["sourceRanges"] == ["172.16.0.0/28"]  # the plan's master_cidr
    # 9443: admission webhooks; 8082: Kueue 0.19.2's visibility APIService (kubernetes-sigs/kueue issue 5150).
    assert rule["allows"] == [{"protocol": "tcp", "ports": ["8082", "9443"]}]
    assert rule["targetServiceAccounts"] == ["llm-train-nodes@mock.iam.gserviceaccount.com"]
    assert rule["network"] == "llm-train-net-vpc-id"


def test_training_cluster_holds_node_upgrades_and_has_a_window(h100, l4):
    policy = h100.named("llm-train-gke-cluster").inputs["maintenancePolicy"]
    assert policy["dailyMaintenanceWindow"] == {"startTime": "03:00"}
    (exclusion,) = policy["maintenanceExclusions"]
    assert exclusion["exclusionOptions"] == {"scope": "NO_MINOR_OR_NODE_UPGRADES",
                                             "endTimeBehavior": "UNTIL_END_OF_SUPPORT"}
    serving = l4.named("chat-serve-gke-cluster").inputs["maintenancePolicy"]
    assert serving["dailyMaintenanceWindow"] and "maintenanceExclusions" not in serving


def test_upgrade_settings_fit_the_capacity(l4):
    on_demand = l4.named("chat-serve-gpu-pool").inputs["upgradeSettings"]
    assert on_demand == {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0}
    reserved_plan = gcp_family_plans.training_plan("a3-ultra", reservation="my-a3u-reservation")
    recording, error = gcp_family_plans.record_full(reserved_plan)
    assert error is None
    pool = recording.named("fam-train-gpu-pool").inputs
    # A full reservation has no spare machine to surge onto.
    assert pool["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}
    assert pool["nodeConfig"]["reservationAffinity"]["consumeReservationType"] == "SPECIFIC_RESERVATION"


def test_host_maintenance_and_max_pods_on_a3_and_a4_only():
    for family, pods in (("a3-mega", 32), ("a4", 32), ("a3-high", None), ("g2", None)):
        recording, error = gcp_family_plans.record_full(gcp_family_plans.training_plan(family))
        assert error is None
        pool = recording.named("fam-train-gpu-pool").inputs
        assert pool.get("maxPodsPerNode") == pods, family
        policy = pool["nodeConfig"].get("hostMaintenancePolicy")
        assert (policy == {"maintenanceInterval": "AS_NEEDED"}) == family.startswith(("a3", "a4")), family


def test_control_plane_access_comes_from_stack_config():
    config = {"accelfit:controlPlane": '{"authorizedCidrs": ["203.0.113.0/24"], "dnsEndpoint": true}'}
    recording, error = gcp_family_plans.record_full(gcp_plans.l4_inference(), config)
    assert error is None
    cluster = recording.named("chat-serve-gke-cluster").inputs
    assert cluster["masterAuthorizedNetworksConfig"] == {
        "cidrBlocks": [{"cidrBlock": "203.0.113.0/24", "displayName": "authorized-0"}],
        "gcpPublicCidrsAccessEnabled": False}
    assert cluster["controlPlaneEndpointsConfig"] == {"dnsEndpointConfig": {"allowExternalTraffic": True}}


def test_bad_control_plane_config_is_refused_before_anything_exists():
    config = {"accelfit:controlPlane": '{"authorizedCidrs": ["not-a-cidr"]}'}
    recording, error = gcp_family_plans.record_full(gcp_plans.l4_inference(), config)
    assert error is not None and recording.resources == []
    assert error.problems[0].field == "accelfit:controlPlane.authorizedCidrs"


def test_workload_identity_lets_the_workload_ksa_use_the_bucket(h100):
    account = h100.named("llm-train-workload-sa").inputs
    assert account["accountId"] == "llm-train-workload"
    grant = h100.named("llm-train-workload-bucket-user").inputs
    assert grant == {"bucket": "llm-train-data-bucket", "role": "roles/storage.objectUser",
                     "member": "serviceAccount:llm-train-workload@mock.iam.gserviceaccount.com"}
    binding = h100.named("llm-train-workload-wi-llm-train").inputs
    assert binding["role"] == "roles/iam.workloadIdentityUser"
    assert binding["member"] == f"serviceAccount:{gcp_plans.PROJECT}.svc.id.goog[llm-train/llm-train]"
    ksa = h100.named("llm-train-ksa-llm-train").inputs["metadata"]
    assert ksa["name"] == "llm-train" and ksa["namespace"] == "llm-train"
    assert ksa["annotations"] == {"iam.gke.io/gcp-service-account": "llm-train-workload@mock.iam.gserviceaccount.com"}


def test_tcpx_nics_get_network_objects_and_pinned_installers(h100):
    params = {item.inputs["metadata"]["name"]: item.inputs["spec"]
              for item in h100.of_type("kubernetes:networking.gke.io/v1:GKENetworkParamSet")}
    assert sorted(params) == ["vpc1", "vpc2", "vpc3", "vpc4"]
    assert params["vpc1"] == {"vpc": "llm-train-net-gpu0-vpc", "vpcSubnet": "llm-train-net-gpu0-subnet",
                              "deviceMode": "NetDevice"}
    networks = h100.of_type("kubernetes:networking.gke.io/v1:Network")
    assert {item.inputs["spec"]["parametersRef"]["name"] for item in networks} == set(params)
    files = [item.inputs["file"] for item in h100.of_type("kubernetes:yaml/v2:ConfigFile")]
    assert len(files) == 3 and all(PINNED_URL.match(url) for url in files)
    assert any("nccl-tcpx-installer" in url for url in files) and any("nri-device-injector" in url for url in files)


def test_l4_has_no_gpudirect_objects(l4):
    assert not l4.of_type("kubernetes:networking.gke.io/v1:GKENetworkParamSet")
    assert not l4.of_type("kubernetes:yaml/v2:ConfigFile")


def _pool_args(**changes) -> GpuNodePoolArgs:
    base = dict(cluster="c", location="us-central1", zones=("us-central1-b",), machine_type="a3-ultragpu-8g",
                gpu_type="nvidia-h200-141gb", gpus_per_node=8, driver_version="DEFAULT", service_account="sa@x",
                environment="staging", min_nodes=0, max_nodes=4, initial_nodes=0, machine_family="a3-ultra",
                disk_type="hyperdisk-balanced")
    return GpuNodePoolArgs(**{**base, **changes})


def test_flex_start_with_queued_provisioning_renders_as_xpk_does():
    from accelfit.preview.recorder import record
    from components.gcp import GpuNodePool

    recording = record(lambda: GpuNodePool("flex", _pool_args(flex_start=True, queued_provisioning=True)))
    pool = recording.named("flex-pool").inputs
    assert pool["nodeConfig"]["flexStart"] is True
    assert pool["queuedProvisioning"] == {"enabled": True}
    assert pool["autoscaling"]["locationPolicy"] == "ANY"
    assert pool["nodeConfig"]["reservationAffinity"]["consumeReservationType"] == "NO_RESERVATION"
    assert pool["management"]["autoRepair"] is False


@pytest.mark.parametrize("changes, field", [
    (dict(queued_provisioning=True), "queued_provisioning"),
    (dict(flex_start=True, spot=True), "flex_start"),
    (dict(flex_start=True, reservation="r"), "flex_start"),
    (dict(flex_start=True, initial_nodes=2), "initial_nodes"),
    (dict(machine_type="a3-highgpu-8g", machine_family="a3-high", disk_type="pd-balanced", reservation="r",
          avoid_reservations=True), "avoid_reservations"),
    # Placement of queued pools as Cluster Toolkit's gke-node-pool allows it (data/flex_start.yaml compact_placement):
    # never COMPACT with queued provisioning on GPUs; with flex-start alone only on A3 Ultra, A4 and H4D machines.
    (dict(zones=("us-central1-b",), flex_start=True, queued_provisioning=True, compact_placement=True),
     "compact_placement"),
    (dict(machine_type="a3-highgpu-8g", machine_family="a3-high", disk_type="pd-balanced", flex_start=True,
          compact_placement=True), "compact_placement"),
])
def test_flex_start_breaches_are_refused(changes, field):
    with pytest.raises(InputError) as caught:
        validate_gpu_pool_args("by-hand", _pool_args(**changes))
    assert field in {item.field for item in caught.value.problems}


def test_flex_start_compact_placement_is_kept_where_the_sourced_rule_allows_it():
    validate_gpu_pool_args("by-hand", _pool_args(flex_start=True, compact_placement=True))  # A3 Ultra, not queued


def test_dns_endpoint_kubeconfig_has_no_cluster_ca_and_uses_the_plugin():
    import yaml

    from components.kubernetes.access import gke_dns_kubeconfig

    document = yaml.safe_load(gke_dns_kubeconfig("c", "gke-abc.us-central1.gke.goog"))
    assert document["clusters"][0]["cluster"] == {"server": "https://gke-abc.us-central1.gke.goog"}
    assert document["users"][0]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"


def test_layer_connects_through_the_dns_endpoint_when_it_is_on():
    config = {"accelfit:controlPlane": '{"dnsEndpoint": true}'}
    recording, error = gcp_family_plans.record_full(gcp_plans.l4_inference(), config)
    assert error is None
    kubeconfig = recording.named("chat-serve-k8s-provider").inputs["kubeconfig"]
    assert "certificate-authority-data" not in kubeconfig and "203.0.113.10" not in kubeconfig
