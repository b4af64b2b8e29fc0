"""The GPU VM example stacks (stacks/Pulumi.example-*-lora-vm.yaml) planned and built under mocks: the recorded
resources and their inputs, and golden files of the whole resource list (regenerate with ACCELFIT_UPDATE_GOLDEN=1)."""

from __future__ import annotations

import base64
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
from components.gpu_vm_script import GpuVmJob, render_startup_script

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


def _bucket_name(recording, token: str) -> str:
    [bucket] = recording.of_type(token)
    return bucket.inputs.get("name") or bucket.name


def test_gce_vm_is_a_managed_group_of_one_that_resumes_after_preemption(built):
    name, the_plan, recording = built
    if not name.startswith("example-gcp"):
        pytest.skip("GCE only")
    assert not recording.of_type("gcp:compute/instance:Instance")  # the group makes the VM
    group = _inputs(recording, "gcp:compute/instanceGroupManager:InstanceGroupManager")
    template = _inputs(recording, "gcp:compute/instanceTemplate:InstanceTemplate").inputs
    gpu = the_plan.gpu_vm
    assert the_plan.platform.value == "gce-gpu-vm" and template["machineType"] == gpu.machine_type
    assert group.inputs["zone"] == gpu.zone and group.inputs["targetSize"] == 1
    assert group.inputs["versions"] == [{"instanceTemplate": "https://www.googleapis.com/compute/v1/projects/mock/"
                                                             "lora-ft-gpu-template", "name": "job"}]
    assert set(group.ignore_changes) == {"targetSize", "targetStoppedSize"}  # autostop resizes it, not Pulumi
    # A preempted Spot VM stops (automaticRestart must be false); the group repairs it and keeps the boot disk.
    assert template["scheduling"] == {"automaticRestart": False, "instanceTerminationAction": "STOP",
                                      "onHostMaintenance": "TERMINATE", "preemptible": True,
                                      "provisioningModel": "SPOT"}
    assert group.inputs["instanceLifecyclePolicy"]["defaultActionOnFailure"] == "REPAIR"
    [boot] = template["disks"]
    assert boot["boot"] is True and group.inputs["statefulDisks"] == [
        {"deleteRule": "ON_PERMANENT_INSTANCE_DELETION", "deviceName": boot["deviceName"]}]
    policy = group.inputs["updatePolicy"]
    assert (policy["replacementMethod"], policy["maxSurgeFixed"], policy["minimalAction"]) == ("RECREATE", 0, "RESTART")
    assert "accessConfigs" not in template["networkInterfaces"][0]  # no external IP
    assert boot["sourceImage"].startswith("projects/deeplearning-platform-release/")
    bucket = _bucket_name(recording, "gcp:storage/bucket:Bucket")
    job = GpuVmJob(gpu.command, gpu.code, gpu.container_image)
    assert template["metadata"]["startup-script"] == render_startup_script(
        "gcp", 30, "stop", job, bucket_url=f"gs://{bucket}", group=group.inputs["name"])
    assert template["labels"]["autostop-idle-minutes"] == "30" and template["labels"]["team"] == "research-llm"
    assert template["serviceAccount"]["email"].startswith("lora-ft-nodes@")


def test_gce_vm_account_reads_every_bucket_the_spec_names(built):
    name, the_plan, recording = built
    if not name.startswith("example-gcp"):
        pytest.skip("GCE only")
    email = _inputs(recording, "gcp:compute/instanceTemplate:InstanceTemplate").inputs["serviceAccount"]["email"]
    member = f"serviceAccount:{email}"
    grants = {(item.inputs["bucket"], item.inputs["role"]) for item in
              recording.of_type("gcp:storage/bucketIAMMember:BucketIAMMember") if item.inputs["member"] == member}
    bucket = _bucket_name(recording, "gcp:storage/bucket:Bucket")
    assert the_plan.gpu_vm.code == "gs://acme-ml-jobs/lora-ft/code-v1.tar.gz"
    assert ("acme-ml-jobs", "roles/storage.objectViewer") in grants  # training.code's bucket
    assert any(granted == bucket for granted, _ in grants)  # the stack's bucket (data and checkpoints)


def test_gce_autostop_may_act_on_its_own_group_only(built):
    name, _, recording = built
    if not name.startswith("example-gcp"):
        pytest.skip("GCE only")
    group = _inputs(recording, "gcp:compute/instanceGroupManager:InstanceGroupManager").inputs
    [binding] = [item.inputs for item in recording.of_type("gcp:projects/iAMMember:IAMMember")
                 if item.name == "lora-ft-gpu-autostop"]
    assert binding["role"] == "roles/compute.instanceAdmin.v1"
    assert binding["condition"]["expression"] == (
        f'resource.name == "projects/acme-ml-dev/zones/{group["zone"]}/instanceGroupManagers/{group["name"]}"')


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
    # A persistent request that stops on interruption: EC2 restarts the instance when capacity returns.
    assert vm["instanceMarketOptions"]["spotOptions"] == {"instanceInterruptionBehavior": "stop",
                                                          "spotInstanceType": "persistent"}
    bucket = _bucket_name(recording, "aws:s3/bucket:Bucket")
    job = GpuVmJob(gpu.command, gpu.code, gpu.container_image)
    assert vm["userData"] == render_startup_script("aws", 30, "stop", job, bucket_url=f"s3://{bucket}")
    attachments = {item.inputs["policyArn"] for item in
                   recording.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    assert attachments == {"arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
                           "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly"}  # training.image is on ECR
    gpu_groups = [item for item in recording.of_type("aws:ec2/securityGroup:SecurityGroup")
                  if item.name == "lora-ft-gpu-sg"]
    assert gpu_groups and not gpu_groups[0].inputs.get("ingress")


def test_one_vm_gets_one_nat_gateway_in_its_zone(built):
    name, the_plan, recording = built
    if not name.startswith("example-aws"):
        pytest.skip("EC2 only")
    [nat] = recording.of_type("aws:ec2/natGateway:NatGateway")
    public = recording.named(f"lora-ft-network-public-{the_plan.gpu_vm.zone[-1]}")
    assert nat.inputs["subnetId"] == f"{public.name}-id"
    assert len(recording.of_type("aws:ec2/subnet:Subnet")) == 4  # both zones' subnets stay (stateful)
    routes = [table.inputs["routes"] for table in recording.of_type("aws:ec2/routeTable:RouteTable")
              if "private" in table.name]
    assert routes and all(route == [{"cidrBlock": "0.0.0.0/0", "natGatewayId": f"{nat.name}-id"}] for route in routes)
    nat_line = next(line for line in the_plan.estimate.breakdown if line.item == "nat")
    assert nat_line.note.startswith("1 NAT gateway")


def _built_with(stack: str, training: dict):
    """The example stack with its training block changed, planned and built."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    workload = config["accelfit:workload"]
    workload["training"] = {key: value for key, value in {**workload["training"], **training}.items()
                            if value is not None}
    the_plan = plan(WorkloadSpec.model_validate(workload), load_catalog(), Environment(config["accelfit:environment"]))
    owner = Ownership(team="t", cost_center="c", environment=the_plan.environment, workload=the_plan.workload)
    return the_plan, record(lambda: build(the_plan, owner, load_catalog()), config=STACKS[stack] or None)


def test_the_code_bucket_the_spec_names_is_the_one_the_vm_may_read():
    _, recording = _built_with("example-gcp-lora-vm", {"code": "gs://other-team-code/job/v2.tgz"})
    readers = [item.inputs["bucket"] for item in recording.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
               if item.name == "lora-ft-gpu-code-reader"]
    assert readers == ["other-team-code"]
    _, public = _built_with("example-gcp-lora-vm", {"code": f"https://github.com/acme/lora-ft.git@{'a' * 40}"})
    assert not [item for item in public.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
                if item.name == "lora-ft-gpu-code-reader"]  # a public repository needs no grant


def test_an_s3_code_archive_is_readable_by_the_instance_role_and_nothing_else_is_added():
    the_plan, recording = _built_with("example-aws-lora-vm", {"image": None, "code": "s3://acme-ml-jobs/lora/v1.tar"})
    policy = json.loads(recording.named("lora-ft-gpu-bucket").inputs["policy"])
    assert {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::acme-ml-jobs/lora/v1.tar"} in \
        policy["Statement"]
    attachments = {item.inputs["policyArn"] for item in
                   recording.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    assert not any("ContainerRegistry" in arn for arn in attachments)  # no ECR image, no ECR access
    assert the_plan.gpu_vm.code == "s3://acme-ml-jobs/lora/v1.tar" and the_plan.gpu_vm.container_image is None


def test_a_changed_command_reaches_the_vms_script():
    _, recording = _built_with("example-gcp-lora-vm", {"command": "python other.py"})
    script = recording.of_type("gcp:compute/instanceTemplate:InstanceTemplate")[0].inputs["metadata"]["startup-script"]
    encoded = base64.b64encode(b"python other.py").decode()
    assert f"COMMAND_B64={encoded}" in script
