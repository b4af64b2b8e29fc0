"""Accelerator-correctness rules: passing and failing case each, called directly."""

from __future__ import annotations

from policy_resources import aws, edit, gke_gpu_pool, resource_args, tpu_pool, tpu_vm, violations

from policies.accelfit_policies import accelerators


def test_taints_pass_for_gpu_and_tpu_pools():
    for resource in (gke_gpu_pool(), tpu_pool(), aws("llm-pretrain-pool-gpu-ng")):
        assert violations(accelerators.tainted_policy(), resource_args(resource)) == []


def test_taints_fail_when_missing():
    pool = edit(gke_gpu_pool(), lambda p: p["nodeConfig"].update(taints=[]))
    [message] = violations(accelerators.tainted_policy(), resource_args(pool))
    assert "nvidia.com/gpu" in message and "taints: none" in message
    tpu = edit(tpu_pool(), lambda p: p["nodeConfig"].pop("taints"))
    assert "google.com/tpu" in violations(accelerators.tainted_policy(), resource_args(tpu))[0]


def test_driver_default_passes_and_pinned_exact_version_passes():
    prod = {"allowedDriverVersions": ["DEFAULT"]}
    assert violations(accelerators.gpu_driver_policy(), resource_args(gke_gpu_pool(), prod)) == []
    pinned = edit(gke_gpu_pool(), lambda p: (
        p["nodeConfig"]["guestAccelerators"][0]["gpuDriverInstallationConfig"].update(
            gpuDriverVersion="INSTALLATION_DISABLED"),
        p["nodeConfig"]["labels"].update({"accelfit.io/gpu-driver": "550.90.07"})))
    assert violations(accelerators.gpu_driver_policy(), resource_args(pinned, prod)) == []


def test_driver_latest_fails_in_prod_and_disabled_without_pin_fails():
    latest = edit(gke_gpu_pool(), lambda p: p["nodeConfig"]["guestAccelerators"][0][
        "gpuDriverInstallationConfig"].update(gpuDriverVersion="LATEST"))
    [message] = violations(accelerators.gpu_driver_policy(),
                           resource_args(latest, {"allowedDriverVersions": ["DEFAULT"]}))
    assert "LATEST" in message and "allowed: DEFAULT" in message
    disabled = edit(gke_gpu_pool(), lambda p: p["nodeConfig"]["guestAccelerators"][0][
        "gpuDriverInstallationConfig"].update(gpuDriverVersion="INSTALLATION_DISABLED"))
    assert "no driver is installed" in violations(accelerators.gpu_driver_policy(), resource_args(disabled))[0]


def helm(version=None):
    props = {"chart": "gpu-operator", "namespace": "gpu-operator", "compat": "true",
             "repositoryOpts": {"repo": "https://helm.ngc.nvidia.com/nvidia"}}
    if version is not None:
        props["version"] = version
    return {"type": "kubernetes:helm.sh/v3:Release", "name": "gpu-operator", "props": props}


def test_helm_version_pinned_passes_and_fails():
    assert violations(accelerators.helm_pinned_policy(), resource_args(helm("v25.3.0"))) == []
    assert "unset (latest)" in violations(accelerators.helm_pinned_policy(), resource_args(helm()))[0]
    assert "^25.3" in violations(accelerators.helm_pinned_policy(), resource_args(helm("^25.3")))[0]


def test_tpu_topology_passes_for_catalog_shapes():
    assert violations(accelerators.tpu_topology_policy(), resource_args(tpu_vm())) == []
    assert violations(accelerators.tpu_topology_policy(), resource_args(tpu_pool())) == []


def test_tpu_topology_fails_for_wrong_shapes_and_host_counts():
    vm = edit(tpu_vm(), lambda p: p["acceleratorConfig"].update(topology="3x3x3"))
    [message] = violations(accelerators.tpu_topology_policy(), resource_args(vm))
    assert "3x3x3" in message and "4x4x4 (v5p-128)" in message
    mislabelled = edit(tpu_pool(), lambda p: p["placementPolicy"].update(tpuTopology="2x4x4"))
    assert "labelled slice v5p-128" in violations(accelerators.tpu_topology_policy(), resource_args(mislabelled))[0]
    short = edit(tpu_pool(), lambda p: p.update(initialNodeCount=8))
    assert "needs 16 hosts" in violations(accelerators.tpu_topology_policy(), resource_args(short))[0]


def test_efa_passes_with_a_placement_group_and_fails_without():
    template = aws("llm-pretrain-pool-gpu-lt")
    assert violations(accelerators.efa_placement_policy(), resource_args(template)) == []
    loose = edit(template, lambda p: p.pop("placement"))
    [message] = violations(accelerators.efa_placement_policy(), resource_args(loose))
    assert "32 EFA interface(s)" in message and "placement group" in message


def test_eks_gpu_ami_passes_and_fails():
    group = aws("llm-pretrain-pool-gpu-ng")
    assert violations(accelerators.eks_gpu_ami_policy(), resource_args(group)) == []
    standard = edit(group, lambda p: p.update(amiType="AL2023_x86_64_STANDARD"))
    assert "AL2023_x86_64_NVIDIA" in violations(accelerators.eks_gpu_ami_policy(), resource_args(standard))[0]


def server(**fields):
    props = {"server": {"name": "gpu-01", "gpuModel": "h100-80gb", "gpuCount": 8, "cpuCores": 112,
                        "memoryGib": 2048, "nvmeTb": 30, "networkGbps": 3200, **fields}}
    return {"type": "command:remote:Command", "name": "gpu-01-prepare", "props": props}


def test_server_balance_passes_for_a_dgx_class_server():
    assert violations(accelerators.server_balance_policy(), resource_args(server())) == []


def test_server_balance_fails_for_a_starved_server():
    [message] = violations(accelerators.server_balance_policy(), resource_args(server(cpuCores=16, nvmeTb=1)))
    assert "2 CPU cores per GPU, below 4" in message and "NVMe" in message and "gpu-01" in message


def node_patch(**labels):
    shape = {"accelfit.io/gpu-model": "h100-80gb", "accelfit.io/gpu-count": "8", "accelfit.io/cpu-cores": "112",
             "accelfit.io/memory-gib": "2048", "accelfit.io/nvme-tb": "30", "accelfit.io/network-gbps": "3200",
             "accelfit.io/site": "lab-rack-a", **labels}
    return {"type": "kubernetes:core/v1:NodePatch", "name": "lab-gpu-01-node",
            "props": {"metadata": {"name": "gpu-01", "labels": shape}}}


def test_server_balance_reads_the_node_labels_bare_metal_components_write():
    assert violations(accelerators.server_balance_policy(), resource_args(node_patch())) == []
    [message] = violations(accelerators.server_balance_policy(),
                           resource_args(node_patch(**{"accelfit.io/memory-gib": "256"})))
    assert "host memory" in message and "gpu-01" in message
