"""The example stacks' plans build into a complete, correct set of GCP resources (recorded under mocks)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import gcp_plans

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).parents[3]
LABELS = {"team": "research-llm", "cost-center": "cc-4410", "managed-by": "accelfit"}
# GCP types that take labels; networks, firewalls, routers, NAT and IAM bindings have none.
LABELLED = {"gcp:container/cluster:Cluster": "resourceLabels", "gcp:tpu/v2Vm:V2Vm": "labels",
            "gcp:storage/bucket:Bucket": "labels", "gcp:filestore/instance:Instance": "labels",
            "gcp:compute/disk:Disk": "labels"}


@pytest.fixture(scope="module", params=sorted(gcp_plans.EXAMPLES))
def example(request):
    plan = gcp_plans.EXAMPLES[request.param]()
    recording, error = gcp_plans.record_plan(plan)
    assert error is None, error
    return request.param, plan, recording


def test_golden_resource_list(example):
    name, _, recording = example
    actual = json.dumps(gcp_plans.resource_list(recording), indent=2, sort_keys=True) + "\n"
    path = GOLDEN / f"gcp-{name}.json"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(actual)
    assert path.exists(), f"{path} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(), f"{name} differs from {path.name}; regenerate with ACCELFIT_UPDATE_GOLDEN=1"


def test_no_duplicate_names(example):
    assert example[2].duplicate_urns == []


def test_every_resource_has_a_component_parent(example):
    _, plan, recording = example
    components = {item.name for item in recording.resources if not item.custom}
    for item in recording.resources:
        if item.custom:
            assert item.parent_name in components, f"{item.name} has parent {item.parent_name}"
            assert item.name.startswith(item.parent_name + "-"), item.name
        else:
            assert item.parent is None and item.type.startswith("accelfit:gcp:"), item.urn
            assert item.name.startswith(plan.workload + "-")


def test_ownership_labels_on_every_labellable_resource(example):
    _, plan, recording = example
    for item in recording.resources:
        if item.type in LABELLED:
            labels = item.inputs[LABELLED[item.type]]
            assert labels | LABELS == labels, item.name
            assert labels["environment"] == plan.environment and labels["workload"] == plan.workload
        if item.type == "gcp:container/nodePool:NodePool":
            assert item.inputs["nodeConfig"]["resourceLabels"]["team"] == "research-llm", item.name


def test_network_is_private_and_closed_to_the_world(example):
    _, plan, recording = example
    network = recording.named(f"{plan.workload}-net-vpc").inputs
    assert network["autoCreateSubnetworks"] is False
    subnet = recording.named(f"{plan.workload}-net-subnet").inputs
    assert subnet["privateIpGoogleAccess"] is True and subnet["region"] == plan.region
    assert [r["rangeName"] for r in subnet["secondaryIpRanges"]] == ["pods", "services"]
    for firewall in recording.of_type("gcp:compute/firewall:Firewall"):
        assert "0.0.0.0/0" not in firewall.inputs["sourceRanges"], firewall.name
    ssh = recording.named(f"{plan.workload}-net-allow-iap-ssh").inputs
    assert ssh["sourceRanges"] == ["35.235.240.0/20"] and ssh["allows"] == [{"protocol": "tcp", "ports": ["22"]}]
    nat = recording.named(f"{plan.workload}-net-nat").inputs
    assert nat["sourceSubnetworkIpRangesToNat"] == "ALL_SUBNETWORKS_ALL_IP_RANGES"


def test_bucket_is_private_versioned_and_ages_checkpoints(example):
    _, plan, recording = example
    bucket = recording.named(f"{plan.workload}-data-bucket")
    assert bucket.inputs["uniformBucketLevelAccess"] is True
    assert bucket.inputs["publicAccessPrevention"] == "enforced"
    assert bucket.inputs["versioning"] == {"enabled": True}
    days = plan.storage.checkpoint_retention_days
    # live + replaced version (1 day) + soft delete (7 days) + lifecycle lag (2 x 1 day) = the retention rule
    assert {"action": {"type": "Delete"}, "condition": {"age": days - 10, "matchesPrefixes": ["checkpoints/"]}} \
        in bucket.inputs["lifecycleRules"]
    assert {"action": {"type": "Delete"}, "condition": {"daysSinceNoncurrentTime": 1, "withState": "ARCHIVED",
                                                        "matchesPrefixes": ["checkpoints/"]}} \
        in bucket.inputs["lifecycleRules"]
    assert bucket.inputs["softDeletePolicy"] == {"retentionDurationSeconds": 7 * 24 * 3600}
    assert bucket.protect is (plan.environment == "prod")


def test_tpu_jax_pretrain_slice():
    plan = gcp_plans.tpu_jax_pretrain()
    recording, _ = gcp_plans.record_plan(plan)
    [vm] = recording.of_type("gcp:tpu/v2Vm:V2Vm")
    assert vm.inputs["acceleratorConfig"] == {"type": "V5P", "topology": "4x4x4"}
    assert vm.inputs["runtimeVersion"] == "v2-alpha-tpuv5"
    assert vm.inputs["networkConfig"]["enableExternalIps"] is False
    assert vm.inputs["schedulingConfig"] == {"spot": False, "reserved": False}
    assert vm.inputs["zone"] == "us-east5-a"
    assert recording.of_type("gcp:container/cluster:Cluster") == []


def test_h100_training_pool():
    plan = gcp_plans.gke_h100_training()
    recording, _ = gcp_plans.record_plan(plan)
    pool = recording.named("llm-train-gpu-pool").inputs
    node = pool["nodeConfig"]
    assert node["machineType"] == "a3-highgpu-8g"
    assert node["guestAccelerators"] == [{"type": "nvidia-h100-80gb", "count": 8,
                                          "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}]
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in node["taints"]
    assert node["labels"]["accelfit.io/role"] == "gpu"
    assert node["spot"] is False
    assert pool["placementPolicy"] == {"type": "COMPACT"}
    assert pool["autoscaling"]["totalMinNodeCount"] == 0 and pool["autoscaling"]["totalMaxNodeCount"] == 4
    assert pool["networkConfig"]["enablePrivateNodes"] is True
    assert len(pool["networkConfig"]["additionalNodeNetworkConfigs"]) == 4
    assert node["ephemeralStorageLocalSsdConfig"] == {"localSsdCount": 16}
    extra = [net for net in recording.of_type("gcp:compute/network:Network") if "-gpu" in net.name]
    assert len(extra) == 4 and all(net.inputs["mtu"] == 8244 for net in extra)
    cluster = recording.named("llm-train-gke-cluster").inputs
    assert cluster["enableMultiNetworking"] is True and cluster["datapathProvider"] == "ADVANCED_DATAPATH"
    assert cluster["deletionProtection"] is False  # staging: explicit, so `pulumi destroy` works
    filestore = recording.named("llm-train-shared-filestore").inputs
    assert filestore["tier"] == "ZONAL" and filestore["fileShares"]["capacityGb"] == 10240
    assert filestore["location"] == "us-central1-a"


def test_l4_inference_pool_and_prod_cluster():
    plan = gcp_plans.l4_inference()
    recording, _ = gcp_plans.record_plan(plan)
    pool = recording.named("chat-serve-gpu-pool").inputs
    assert pool["nodeConfig"]["guestAccelerators"][0]["type"] == "nvidia-l4"
    assert pool["nodeConfig"]["guestAccelerators"][0]["count"] == 2
    assert pool["nodeLocations"] == ["us-central1-a", "us-central1-b", "us-central1-c"]
    assert pool["autoscaling"] == {"totalMinNodeCount": 3, "totalMaxNodeCount": 12, "locationPolicy": "BALANCED"}
    assert pool["initialNodeCount"] == 1  # per zone: 3 zones x 1 = the planned 3
    assert "placementPolicy" not in pool
    cluster = recording.named("chat-serve-gke-cluster").inputs
    assert cluster["deletionProtection"] is True
    assert cluster["releaseChannel"] == {"channel": "STABLE"}
    assert cluster["privateClusterConfig"]["enablePrivateNodes"] is True
    assert cluster["workloadIdentityConfig"] == {"workloadPool": f"{gcp_plans.PROJECT}.svc.id.goog"}
    assert "enableMultiNetworking" not in cluster
    system = recording.named("chat-serve-gke-system").inputs
    assert "guestAccelerators" not in system["nodeConfig"]
    assert system["nodeConfig"]["labels"] == {"accelfit.io/role": "system"}


@pytest.mark.parametrize("name", sorted(gcp_plans.EXAMPLES))
def test_fixture_plan_matches_its_example_stack(name):
    """The hand-built plan is what the planner should produce for the stack's spec: same workload, environment,
    region, ownership and orchestration."""
    import yaml

    stack = ROOT / "stacks" / f"Pulumi.example-gcp-{name}.yaml"
    config = yaml.safe_load(stack.read_text())["config"]
    plan = gcp_plans.EXAMPLES[name]()
    spec = config["accelfit:workload"]
    owner = gcp_plans.ownership(plan)
    assert spec["name"] == plan.workload and spec["kind"] == plan.kind and spec["framework"] == plan.framework
    assert config["accelfit:environment"] == plan.environment
    assert config["gcp:region"] == plan.region
    assert spec["placement"]["orchestration"] == plan.orchestration
    assert (config["accelfit:team"], config["accelfit:costCenter"]) == (owner.team, owner.cost_center)


def test_spot_shared_gpu_pool_with_pinned_driver():
    plan = gcp_plans.l4_inference()
    pools = list(plan.node_pools)
    pools[1] = pools[1].model_copy(update={"buying": "spot", "gpu_sharing_strategy": "TIME_SHARING",
                                           "gpu_max_shared_clients": 4, "driver_version": "550.90.07"})
    recording, error = gcp_plans.record_plan(plan.model_copy(update={"node_pools": tuple(pools)}))
    assert error is None
    pool = recording.named("chat-serve-gpu-pool").inputs
    accelerator = pool["nodeConfig"]["guestAccelerators"][0]
    assert accelerator["gpuSharingConfig"] == {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4}
    assert accelerator["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "INSTALLATION_DISABLED"}
    assert pool["nodeConfig"]["labels"]["accelfit.io/gpu-driver"] == "550.90.07"
    assert pool["nodeConfig"]["spot"] is True
    assert pool["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert pool["autoscaling"]["locationPolicy"] == "ANY"
