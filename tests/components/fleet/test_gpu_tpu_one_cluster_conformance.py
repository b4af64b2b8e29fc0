"""Conformance: GPU and TPU node pools in one GKE cluster, field by field against Google's GKE AI/ML Terraform
module, which builds CPU, GPU and TPU node pools on one Standard cluster:
GoogleCloudPlatform/applied-ai-engineering-samples @76c25894aff09eaeafe0d9f3bd9f6f6f9e122a1e
ai-infrastructure/terraform-modules/gke-aiml (README.md, cluster.tf, gpu_node_pools.tf, tpu_node_pools.tf),
as of 2026-11-23. Checked on the example fleet's recorded preview (its golden is what the code produces)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOCUMENT = json.loads((ROOT / "tests" / "preview" / "golden" / "preview-example-gcp-fleet.json").read_text())

# The blueprint's facts that decide whether the mixed cluster deploys.
BLUEPRINT = {
    "pools_attach_to": "module.cluster.id",  # gpu_node_pools.tf cluster_id, tpu_node_pools.tf cluster
    "workload_metadata": "GKE_METADATA",  # tpu_node_pools.tf workload_metadata_config.mode (Workload Identity)
    "tpu_autoscaling_location_policy": "ANY",  # tpu_node_pools.tf autoscaling.location_policy
    "tpu_single_host_placement_policy": None,  # tpu_node_pools.tf: placement_policy only on multi-host slices
    "cluster_accelerator_settings": (),  # cluster.tf: nothing GPU- or TPU-specific on the cluster itself
}


def pools():
    return [item for item in DOCUMENT["resources"] if item["type"] == "gcp:container/nodePool:NodePool"]


def kind(pool) -> str:
    config = pool["inputs"]["nodeConfig"]
    if config.get("guestAccelerators"):
        return "gpu"
    return "tpu" if config["machineType"].startswith(("ct", "tpu")) else "cpu"


def test_gpu_and_tpu_pools_attach_to_the_one_cluster():
    [cluster] = [item for item in DOCUMENT["resources"] if item["type"] == "gcp:container/cluster:Cluster"]
    kinds = {kind(pool) for pool in pools()}
    assert {"gpu", "tpu"} <= kinds
    assert {pool["inputs"]["cluster"] for pool in pools()} == {f"{cluster['name']}-id"}  # the mocks' id of that resource


def test_every_pool_uses_workload_identity_metadata_like_the_blueprint():
    for pool in pools():
        assert pool["inputs"]["nodeConfig"]["workloadMetadataConfig"]["mode"] == BLUEPRINT["workload_metadata"]


def test_tpu_pools_autoscale_like_the_blueprint():
    tpu = [pool for pool in pools() if kind(pool) == "tpu"]
    assert tpu
    for pool in tpu:
        assert pool["inputs"]["autoscaling"]["locationPolicy"] == BLUEPRINT["tpu_autoscaling_location_policy"]
        # The example's slices are single-host (v6e-4, v5e-8): no placement policy, as the blueprint.
        assert pool["inputs"].get("placementPolicy") == BLUEPRINT["tpu_single_host_placement_policy"]


def test_the_cluster_itself_carries_nothing_accelerator_specific():
    [cluster] = [item for item in DOCUMENT["resources"] if item["type"] == "gcp:container/cluster:Cluster"]
    inputs = cluster["inputs"]
    assert "workloadIdentityConfig" in inputs and inputs["removeDefaultNodePool"] is True
    text = json.dumps(inputs).lower()
    found = tuple(word for word in ("guestaccelerator", "tpu", "nvidia") if word in text)
    assert found == BLUEPRINT["cluster_accelerator_settings"]
