"""The on-prem example stack (4 x 8-GPU H100 servers) run through the Pulumi program under mocks: host
preparation, cluster membership, GPU Operator, Kueue and telemetry, asserted on the recorded resources."""

from __future__ import annotations

import json

import pytest

import metal_stack

HOSTS = ("gpu-01", "gpu-02", "gpu-03", "gpu-04")
COMMAND = "command:remote:Command"


@pytest.fixture(scope="module")
def recording():
    recording, error = metal_stack.record_stack()
    assert error is None, error
    return recording


def test_one_command_per_host_prepares_then_joins_in_order(recording):
    commands = {item.name: item for item in recording.of_type(COMMAND)}
    assert sorted(commands) == sorted(f"lab-finetune-metal-hosts-{host}-prepare" for host in HOSTS)
    command = commands["lab-finetune-metal-hosts-gpu-03-prepare"].inputs
    prepare = command["create"]
    order = ("preflight", "repositories", "kubernetes", "driver", "toolkit", "join")
    steps = [prepare.index(f"accelfit-{step}") for step in order]
    assert steps == sorted(steps) and prepare.count("sudo -n bash -c") == len(order) and " && " in prepare
    # Only the join reads standard input (the token): every preparation step has it closed.
    assert prepare.count("</dev/null") == len(order) - 1
    assert prepare.rstrip().endswith('accelfit-join "$node_name" "$part_2" "$part_3"')
    assert "EXPECTED_GPUS=8" in prepare and "DRIVER_VERSION=580.178.04" in prepare
    assert "TOOLKIT_VERSION=1.20.0" in prepare
    # No `update`: pulumi-command runs `create` again when it changes; a copy would double every script's bytes.
    assert "update" not in command
    # The node's name comes first on standard input, with the token (secret): one text for the host class.
    assert prepare.startswith("IFS= read -r node_name && ") and command["stdin"] == "[secret]"
    assert "gpu-03" not in prepare and all(commands[f"lab-finetune-metal-hosts-{host}-prepare"].inputs["create"]
                                           == prepare for host in HOSTS)
    # The join waits for the bootstrap token accelfit keeps valid in the cluster (hosts added later find it too).
    waited = {urn.rsplit("::", 1)[-1] for urn in commands["lab-finetune-metal-hosts-gpu-03-prepare"].dependencies}
    assert "lab-finetune-metal-join-token" in waited


def test_preflight_installs_pciutils_before_it_runs_lspci(recording):
    prepare = recording.named("lab-finetune-metal-hosts-gpu-02-prepare").inputs["create"]
    preflight = prepare[:prepare.index("accelfit-preflight")]
    assert "PREFLIGHT_PACKAGES=pciutils" in preflight
    install = preflight.index('install_latest "${preflight_packages[@]}"')
    assert install < preflight.index("lspci -n -d 10de:")


def test_join_token_is_a_bootstrap_token_secret_with_its_value_hidden(recording):
    secret = recording.named("lab-finetune-metal-join-token").inputs
    assert secret["type"] == "bootstrap.kubernetes.io/token"
    assert secret["metadata"]["namespace"] == "kube-system"
    assert secret["metadata"]["name"] == "bootstrap-token-q7w3zt"  # the public token id
    assert secret["stringData"] == "[secret]"


def test_connections_are_secret_and_secrets_never_appear_in_plain_text(recording):
    for item in recording.of_type(COMMAND):
        assert item.inputs["connection"] == "[secret]", item.name
    dumped = json.dumps([item.inputs for item in recording.resources])
    for secret in ("MOCK-KEY-7f3a", metal_stack.JOIN_TOKEN, "MOCK-KUBECONFIG-91c2"):
        assert secret not in dumped


def test_nodes_labelled_through_the_api(recording):
    patches = {item.inputs["metadata"]["name"]: item.inputs for item in recording.of_type("kubernetes:core/v1:NodePatch")}
    assert sorted(patches) == list(HOSTS)
    labels = patches["gpu-04"]["metadata"]["labels"]
    assert labels["accelfit.io/gpu-model"] == "h100-80gb" and labels["accelfit.io/gpu-count"] == "8"
    assert labels["accelfit.io/rack"] == "r2" and labels["accelfit.io/site"] == "lab-rack-a"
    assert labels["topology.kubernetes.io/zone"] == "r2" and labels["accelfit.io/pool"] == "gpu"
    assert labels["accelfit.io/owner"] == "research"  # the inventory's extra label
    assert (labels["accelfit.io/cpu-cores"], labels["accelfit.io/memory-gib"], labels["accelfit.io/nvme-tb"],
            labels["accelfit.io/network-gbps"]) == ("112", "2048", "30", "3200")  # what a balance policy reads
    # No taints in the patch: `spec.taints` is an atomic list the node-lifecycle controller writes right after the
    # join (node.kubernetes.io/not-ready), so owning it answers 409 and the labels above are never set.
    for name, patch in patches.items():
        assert "spec" not in patch, name


def test_the_join_registers_the_gpu_taint(recording):
    # kubeadm JoinConfiguration nodeRegistration.taints: the node object is created with them.
    for host in HOSTS:
        command = recording.named(f"lab-finetune-metal-hosts-{host}-prepare").inputs["create"]
        join = command[command.rindex("sudo -n bash -c"):]  # the last step: the join
        assert "TAINT_KEY=nvidia.com/gpu" in join and "TAINT_VALUE=present" in join
        assert "TAINT_EFFECT=NoSchedule" in join
        registration = join[join.index("nodeRegistration:"):]
        assert 'taints:\n    - key: "${TAINT_KEY}"' in registration


def test_gpu_operator_leaves_the_driver_host_preparation_installed_alone(recording):
    release = recording.named("lab-finetune-k8s-gpu-operator-release").inputs
    assert release["chart"] == "gpu-operator" and release["version"] == "v26.3.3"
    # Every host has the pinned R580 driver before it joins (the driver step precedes the join): NVIDIA's
    # chart option for pre-installed drivers is driver.enabled false.
    assert release["values"]["driver"] == {"enabled": False}
    prepare = recording.named("lab-finetune-metal-hosts-gpu-01-prepare").inputs["create"]
    assert "DRIVER_VERSION=580.178.04" in prepare
    assert release["values"]["toolkit"] == {"enabled": False}
    assert release["values"]["devicePlugin"] == {"enabled": True}
    namespace = recording.named("lab-finetune-k8s-gpu-operator-namespace").inputs["metadata"]
    assert namespace["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"


def test_kueue_routes_to_the_owned_servers_with_their_quota(recording):
    assert recording.named("lab-finetune-k8s-kueue-release").inputs["version"] == "0.19.2"
    flavor = recording.named("lab-finetune-k8s-kueue-flavor-gpu").inputs
    assert flavor["spec"]["nodeLabels"]["accelfit.io/pool"] == "gpu"
    queue = recording.named("lab-finetune-k8s-kueue-cluster-queue").inputs["spec"]
    [group] = queue["resourceGroups"]
    assert group["flavors"] == [{"name": "lab-finetune-gpu", "resources": [
        {"name": "cpu", "nominalQuota": "448"}, {"name": "memory", "nominalQuota": "8192Gi"},
        # 4 servers x 30 TB of NVMe, in GiB
        {"name": "ephemeral-storage", "nominalQuota": "111758Gi"}, {"name": "nvidia.com/gpu", "nominalQuota": "32"}]}]
    local = recording.named("lab-finetune-k8s-kueue-queue-lab-finetune").inputs
    assert local["metadata"]["namespace"] == "lab-finetune" and local["spec"] == {"clusterQueue": "lab-finetune"}


def test_dcgm_scraped_by_prometheus(recording):
    monitor = recording.named("lab-finetune-k8s-telemetry-service-monitor").inputs
    assert monitor["metadata"]["namespace"] == "gpu-operator"
    assert monitor["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter"}}
    assert recording.named("lab-finetune-k8s-telemetry-prometheus").inputs["chart"] == "kube-prometheus-stack"


def test_parents_and_names(recording):
    assert recording.duplicate_urns == []
    components = {item.name for item in recording.resources if not item.custom}
    for item in recording.resources:
        if item.parent is None:
            assert item.name in ("lab-finetune-metal", "lab-finetune-k8s"), item.name
        else:
            assert item.parent_name in components and item.name.startswith(item.parent_name + "-"), item.name


def test_kubernetes_objects_use_the_explicit_providers(recording):
    for item in recording.resources:
        if item.custom and item.type.startswith("kubernetes:"):
            assert "pulumi:providers:kubernetes::lab-finetune-" in item.provider, item.name
