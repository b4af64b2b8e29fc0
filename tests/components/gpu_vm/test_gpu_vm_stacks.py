"""The GPU VM example stacks (stacks/Pulumi.example-*-lora-vm.yaml) planned and built under mocks: the recorded
resources and their inputs, and golden files of the whole resource list (regenerate with ACCELFIT_UPDATE_GOLDEN=1)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, plan
from accelfit.preview.recorder import record
from accelfit.spec import WorkloadSpec
from components.build import build
from components.common import Ownership
from components.gpu_vm_script import render_startup_script

ROOT = Path(__file__).parents[3]
GOLDEN = Path(__file__).parent / "golden"
STACKS = {"example-gcp-lora-vm": {"gcp:project": "acme-ml-dev"}, "example-aws-lora-vm": {}}


def _plan(stack: str):
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    spec = WorkloadSpec.model_validate(config["accelfit:workload"])
    return plan(spec, load_catalog(), Environment(config["accelfit:environment"])), config


@pytest.fixture(scope="module", params=sorted(STACKS))
def built(request):
    the_plan, config = _plan(request.param)
    owner = Ownership(team=config["accelfit:team"], cost_center=config["accelfit:costCenter"],
                      environment=the_plan.environment, workload=the_plan.workload)
    recording = record(lambda: build(the_plan, owner, load_catalog()), config=STACKS[request.param] or None)
    return request.param, the_plan, recording


def _inputs(recording, token):
    [item] = recording.of_type(token)
    return item


def test_golden_resource_list(built):
    name, _, recording = built
    rows = sorted(({"type": item.type, "name": item.name, "parent": item.parent_name, "inputs": item.inputs,
                    "protect": item.protect} for item in recording.resources),
                  key=lambda row: (row["name"], row["type"]))
    actual = json.dumps(rows, indent=2, sort_keys=True) + "\n"
    path = GOLDEN / f"{name}.json"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(actual)
    assert actual == path.read_text(), f"{name} differs from {path.name}; regenerate with ACCELFIT_UPDATE_GOLDEN=1"


def test_no_cluster_is_built(built):
    _, _, recording = built
    types = {item.type for item in recording.resources}
    assert not types & {"gcp:container/cluster:Cluster", "gcp:container/nodePool:NodePool", "aws:eks/cluster:Cluster",
                        "aws:eks/nodeGroup:NodeGroup", "kubernetes:helm.sh/v3:Release"}


def test_children_are_named_after_their_component(built):
    _, _, recording = built
    components = {item.name for item in recording.resources if not item.custom}
    for item in recording.resources:
        if item.custom:
            assert item.parent_name in components and item.name.startswith(item.parent_name + "-"), item.name


def test_gce_vm_inputs(built):
    name, the_plan, recording = built
    if not name.startswith("example-gcp"):
        pytest.skip("GCE only")
    vm = _inputs(recording, "gcp:compute/instance:Instance").inputs
    gpu = the_plan.gpu_vm
    assert the_plan.platform.value == "gce-gpu-vm" and vm["machineType"] == gpu.machine_type
    assert vm["zone"] == gpu.zone
    assert "accessConfigs" not in vm["networkInterfaces"][0]  # no external IP
    assert vm["scheduling"]["onHostMaintenance"] == "TERMINATE"
    assert vm["scheduling"]["provisioningModel"] == "SPOT" and vm["scheduling"]["instanceTerminationAction"] == "STOP"
    assert vm["bootDisk"]["initializeParams"]["image"].startswith("projects/deeplearning-platform-release/")
    assert vm["metadata"]["startup-script"] == render_startup_script("gcp", 30, "stop", gpu.command)
    assert vm["labels"]["autostop-idle-minutes"] == "30" and vm["labels"]["team"] == "research-llm"
    assert vm["serviceAccount"]["email"].startswith("lora-ft-nodes@")
    # The VM's account reads and writes the bucket (and only it).
    binding = _inputs(recording, "gcp:storage/bucketIAMMember:BucketIAMMember").inputs
    assert binding["member"] == f"serviceAccount:{vm['serviceAccount']['email']}"


def test_ec2_vm_inputs(built):
    name, the_plan, recording = built
    if not name.startswith("example-aws"):
        pytest.skip("EC2 only")
    vm = _inputs(recording, "aws:ec2/instance:Instance").inputs
    template = _inputs(recording, "aws:ec2/launchTemplate:LaunchTemplate").inputs
    gpu = the_plan.gpu_vm
    assert the_plan.platform.value == "ec2-gpu-vm" and vm["instanceType"] == gpu.machine_type
    assert template["imageId"] == ("resolve:ssm:/aws/service/deeplearning/ami/x86_64/"
                                   "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id")
    assert vm["metadataOptions"]["httpTokens"] == "required" == template["metadataOptions"]["httpTokens"]
    assert vm["rootBlockDevice"]["encrypted"] is True and vm["associatePublicIpAddress"] is False
    assert vm["instanceInitiatedShutdownBehavior"] == "stop"
    assert vm["instanceMarketOptions"]["spotOptions"] == {"instanceInterruptionBehavior": "stop",
                                                          "spotInstanceType": "persistent"}
    assert vm["userData"] == render_startup_script("aws", 30, "stop", gpu.command)
    attachment = _inputs(recording, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").inputs
    assert attachment["policyArn"].endswith("AmazonSSMManagedInstanceCore")
    gpu_groups = [item for item in recording.of_type("aws:ec2/securityGroup:SecurityGroup")
                  if item.name == "lora-ft-gpu-sg"]
    assert gpu_groups and not gpu_groups[0].inputs.get("ingress")
