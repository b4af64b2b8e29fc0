"""The GKE and EKS example stacks gain the Kubernetes layer (components.build): recorded under mocks, with a golden
file of the layer's resources per example."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from accelfit.errors import InputError
from accelfit.preview.recorder import record
from components.build import build

sys.path[:0] = [str(Path(__file__).parents[1] / "gcp"), str(Path(__file__).parents[1] / "aws")]
import aws_plans  # noqa: E402
import gcp_plans  # noqa: E402

# Not under golden/: the policy tests read every tests/components/*/golden/*.json as a whole stack with ownership
# labels on its cloud resources, and these hold only the layer.
GOLDEN = Path(__file__).parent / "golden_layers"
EXAMPLES = {
    "gke-h100-training": (gcp_plans.gke_h100_training, gcp_plans.ownership, {"gcp:project": gcp_plans.PROJECT}),
    "gke-l4-inference": (gcp_plans.l4_inference, gcp_plans.ownership, {"gcp:project": gcp_plans.PROJECT}),
    "gke-tpu-multislice": (gcp_plans.gke_tpu_multislice, gcp_plans.ownership, {"gcp:project": gcp_plans.PROJECT}),
    "eks-h100-training": (aws_plans.h100_training_plan, aws_plans.ownership_for, aws_plans.ACCESS_CONFIG),
    "eks-l4-inference": (aws_plans.l4_inference_plan, aws_plans.ownership_for, aws_plans.ACCESS_CONFIG),
}


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def example(request):
    make, owner, config = EXAMPLES[request.param]
    plan = make()
    return request.param, plan, record(lambda: build(plan, owner(plan)), config=config)


def layer_rows(recording, workload: str) -> list[dict]:
    prefix = f"{workload}-k8s"
    return sorted(({"type": item.type, "name": item.name, "parent": item.parent_name, "inputs": item.inputs,
                    "protect": item.protect}
                   for item in recording.resources if item.name.startswith(prefix)),
                  key=lambda row: (row["name"], row["type"]))


def test_layer_matches_golden(example):
    name, plan, recording = example
    actual = json.dumps(layer_rows(recording, plan.workload), indent=2, sort_keys=True) + "\n"
    path = GOLDEN / f"layer-{name}.json"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(actual)
    assert path.exists(), f"{path} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(), f"{name} differs from {path.name}; regenerate with ACCELFIT_UPDATE_GOLDEN=1"


def test_no_duplicates_and_every_child_under_its_component(example):
    _, plan, recording = example
    assert recording.duplicate_urns == []
    components = {item.name for item in recording.resources if not item.custom}
    layer = [item for item in recording.resources if item.name.startswith(f"{plan.workload}-k8s")]
    assert layer
    for item in layer:
        if item.name == f"{plan.workload}-k8s":
            assert item.parent is None and item.type == "accelfit:kubernetes:KubernetesLayer"
        else:
            assert item.parent_name in components and item.name.startswith(item.parent_name + "-"), item.name


def test_every_kubernetes_object_goes_through_the_cluster_provider(example):
    _, plan, recording = example
    provider = recording.named(f"{plan.workload}-k8s-provider")
    assert provider.inputs["kubeconfig"].startswith("apiVersion: v1")
    assert "certificate-authority-data: bW9jay1jYQ==" in provider.inputs["kubeconfig"]
    for item in recording.resources:
        if item.custom and item.type.startswith("kubernetes:"):
            assert f"pulumi:providers:kubernetes::{plan.workload}-k8s-provider::" in item.provider, item.name


def test_helm_charts_pinned(example):
    _, _, recording = example
    releases = recording.of_type("kubernetes:helm.sh/v3:Release")
    assert releases
    for release in releases:
        assert release.inputs["version"] and release.inputs["chart"], release.name


def test_gke_selects_pools_by_gke_label_and_scrapes_with_managed_prometheus():
    plan = gcp_plans.gke_h100_training()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    flavor = recording.named("llm-train-k8s-kueue-flavor-gpu").inputs["spec"]
    assert flavor["nodeLabels"]["cloud.google.com/gke-nodepool"] == "llm-train-gpu"
    assert recording.of_type("accelfit:kubernetes:GpuOperator") == []  # GKE manages drivers and device plugin
    monitoring = recording.named("llm-train-k8s-telemetry-pod-monitoring").inputs
    assert monitoring["kind"] == "PodMonitoring" and monitoring["spec"]["endpoints"][0]["port"] == "metrics"
    queue = recording.named("llm-train-k8s-kueue-cluster-queue").inputs["spec"]["resourceGroups"][0]
    # a3-highgpu-8g: 208 vCPUs, 8 GPUs; the pool scales to 4 nodes
    assert queue["flavors"][0]["resources"][0] == {"name": "cpu", "nominalQuota": "832"}
    assert queue["flavors"][0]["resources"][3] == {"name": "nvidia.com/gpu", "nominalQuota": "32"}


def test_gke_exporter_namespace_admits_its_critical_priority_class():
    """GKE admits system-*-critical pods outside kube-system only under a matching ResourceQuota; the exporter's
    release waits for it, and runs privileged with the driver GKE installed."""
    plan = gcp_plans.gke_h100_training()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    quota = recording.named("llm-train-k8s-telemetry-critical-pods").inputs
    assert quota["metadata"]["namespace"] == "gpu-monitoring"
    assert quota["spec"]["scopeSelector"]["matchExpressions"] == [{
        "scopeName": "PriorityClass", "operator": "In", "values": ["system-node-critical", "system-cluster-critical"]}]
    exporter = recording.named("llm-train-k8s-telemetry-dcgm-exporter")
    assert "llm-train-k8s-telemetry-critical-pods" in {urn.rsplit("::", 1)[-1] for urn in exporter.dependencies}
    assert exporter.inputs["values"]["securityContext"]["privileged"] is True


def test_eks_selects_node_groups_and_runs_the_operator_without_driver():
    plan = aws_plans.h100_training_plan()
    recording = record(lambda: build(plan, aws_plans.ownership_for(plan)), config=aws_plans.ACCESS_CONFIG)
    flavor = recording.named("llm-pretrain-k8s-kueue-flavor-gpu").inputs["spec"]
    assert flavor["nodeLabels"]["eks.amazonaws.com/nodegroup"]
    values = recording.named("llm-pretrain-k8s-gpu-operator-release").inputs["values"]
    assert values["driver"] == {"enabled": False} and values["devicePlugin"] == {"enabled": True}
    assert "aws" in recording.named("llm-pretrain-k8s-provider").inputs["kubeconfig"]


def test_tpu_multislice_queue_has_one_flavor_holding_both_slices_and_no_gpu_software():
    """A multislice JobSet is one pod set, which Kueue gives one flavor: as xpk, one flavor on accelerator and
    topology whose quota is both slices' chips (queues.multislice_flavors)."""
    plan = gcp_plans.gke_tpu_multislice()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    group = recording.named("tpu-train-k8s-kueue-cluster-queue").inputs["spec"]["resourceGroups"][0]
    assert [flavor["name"] for flavor in group["flavors"]] == ["tpu-train-tpu-0"]
    quota = {item["name"]: item["nominalQuota"] for item in group["flavors"][0]["resources"]}
    assert quota["google.com/tpu"] == "32"
    labels = recording.named("tpu-train-k8s-kueue-flavor-tpu-0").inputs["spec"]["nodeLabels"]
    assert "cloud.google.com/gke-nodepool" not in labels
    assert labels["cloud.google.com/gke-tpu-topology"] == "4x4"
    assert group["coveredResources"] == ["cpu", "memory", "ephemeral-storage", "google.com/tpu"]
    assert recording.of_type("accelfit:kubernetes:GpuTelemetry") == []


def test_tpu_vm_plan_gets_no_layer():
    plan = gcp_plans.tpu_jax_pretrain()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    assert [item for item in recording.resources if item.type.startswith("accelfit:kubernetes:")] == []


def test_layer_problem_refused_before_the_cloud_stack_is_created():
    from accelfit.errors import InputError

    plan = gcp_plans.gke_h100_training()
    pools = tuple(pool.model_copy(update={"driver_version": "570.172.08"}) if pool.role == "gpu" else pool
                  for pool in plan.node_pools)
    caught = []

    def program():
        try:
            build(plan.model_copy(update={"node_pools": pools}), gcp_plans.ownership(plan))
        except InputError as error:
            caught.append(error)

    recording = record(program, config={"gcp:project": gcp_plans.PROJECT})
    assert caught and recording.resources == []


def test_eks_layer_waits_for_the_node_groups_and_adds_autoscaler_efa_plugin_and_lustre_volume():
    plan = aws_plans.h100_training_plan()
    recording = record(lambda: build(plan, aws_plans.ownership_for(plan)), config=aws_plans.ACCESS_CONFIG)
    provider = recording.named("llm-pretrain-k8s-provider")
    waited = {urn.rsplit("::", 1)[-1] for urn in provider.dependencies}
    # As on GKE: the node groups (Helm waits for pods, pods need nodes) and the FSx CSI add-on.
    assert {"llm-pretrain-pool-gpu-ng", "llm-pretrain-pool-system-ng", "llm-pretrain-fsx-csi"} <= waited
    autoscaler = recording.named("llm-pretrain-k8s-eks-addons-cluster-autoscaler").inputs
    assert (autoscaler["chart"], autoscaler["version"]) == ("cluster-autoscaler", "9.59.0")
    assert autoscaler["values"]["image"]["tag"] == "v1.35.2"  # the cluster's Kubernetes minor
    assert autoscaler["values"]["autoDiscovery"] == {"clusterName": "llm-pretrain-cluster-eks"}
    assert autoscaler["values"]["rbac"]["serviceAccount"]["name"] == "cluster-autoscaler"
    efa = recording.named("llm-pretrain-k8s-eks-addons-efa-device-plugin").inputs
    assert efa["chart"] == "aws-efa-k8s-device-plugin"
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in efa["values"]["tolerations"]
    pv = recording.named("llm-pretrain-k8s-eks-addons-lustre-pv").inputs["spec"]
    assert pv["csi"]["driver"] == "fsx.csi.aws.com" and pv["capacity"] == {"storage": "19200Gi"}
    assert pv["csi"]["volumeHandle"] == "llm-pretrain-lustre-fs-id"
    claim = recording.named("llm-pretrain-k8s-eks-addons-lustre-pvc").inputs
    assert claim["metadata"]["namespace"] == "llm-pretrain" and claim["spec"]["storageClassName"] == ""


def test_eks_without_efa_installs_no_efa_plugin_but_still_the_autoscaler():
    plan = aws_plans.l4_inference_plan()
    recording = record(lambda: build(plan, aws_plans.ownership_for(plan)), config=aws_plans.ACCESS_CONFIG)
    names = {resource.name for resource in recording.resources}
    assert "chat-serve-k8s-eks-addons-cluster-autoscaler" in names
    assert "chat-serve-k8s-eks-addons-efa-device-plugin" not in names


def test_eks_without_access_config_is_refused_before_anything_is_created():
    plan = aws_plans.l4_inference_plan()
    with pytest.raises(InputError) as raised:
        record(lambda: build(plan, aws_plans.ownership_for(plan)))
    assert "accelfit:eksPublicAccessCidrs" in str(raised.value)


def test_tpu_flavors_select_the_labels_gke_puts_on_tpu_nodes():
    # xpk's TPU ResourceFlavors select cloud.google.com/gke-tpu-accelerator and cloud.google.com/gke-tpu-topology
    # (AI-Hypercomputer/xpk src/xpk/core/system_characteristics.py @367c838253bea41e7d7716145ad6513f44c1a21e).
    plan = gcp_plans.gke_tpu_multislice()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    # A multislice set is one flavor holding both slice pools: it selects their nodes by those labels and the
    # slice set, not by one pool's name (xpk src/xpk/templates/kueue_config.yaml.j2).
    labels = recording.named("tpu-train-k8s-kueue-flavor-tpu-0").inputs["spec"]["nodeLabels"]
    assert labels["cloud.google.com/gke-tpu-accelerator"] == "tpu-v5-lite-podslice"
    assert labels["cloud.google.com/gke-tpu-topology"] == "4x4"
    assert labels["accelfit.io/slice-set"] == "tpu"


def test_tpu_clusters_get_the_pinned_jobset_controller_before_kueue(monkeypatch):
    # JobSet is the multislice prerequisite (GKE multislice guide); xpk installs JobSet v0.10.1
    # (AI-Hypercomputer/xpk src/xpk/core/cluster.py @367c838253bea41e7d7716145ad6513f44c1a21e).
    import components.kubernetes.kueue as kueue_module

    kueue_dependencies: list = []
    real_release = kueue_module.release

    def spy(resource_name, *args, depends_on=(), **kwargs):
        kueue_dependencies.extend(depends_on)
        return real_release(resource_name, *args, depends_on=depends_on, **kwargs)

    monkeypatch.setattr(kueue_module, "release", spy)
    plan = gcp_plans.gke_tpu_multislice()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    jobset = recording.named("tpu-train-k8s-jobset-release")
    assert jobset.inputs["chart"] == "oci://registry.k8s.io/jobset/charts/jobset"
    assert jobset.inputs["version"] == "0.10.1" and jobset.inputs["namespace"] == "jobset-system"
    assert "tpu-train-k8s-jobset-release" in [getattr(item, "_name", None) for item in kueue_dependencies]


def test_gpu_only_clusters_get_no_jobset():
    plan = gcp_plans.gke_h100_training()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    assert recording.of_type("accelfit:kubernetes:JobSet") == []
