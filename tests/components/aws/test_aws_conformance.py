"""Conformance: what accelfit renders for the GPU instance families against known-good upstream blueprints, field by
field for what decides whether a node group deploys and performs. The upstream facts are recorded here (repository,
path, commit), not copied code.

Where upstream blueprints disagree, the test says which one accelfit follows and why:
- Device index of the non-primary EFA interfaces: AWS's current page (efa-acc-inst-types) puts EFA-only interfaces
  at device index 0 of each additional card behind an ENA primary; terraform-aws-eks still uses device index 1 and
  an EFA primary; awsome-distributed-training uses "efa" at device index 0 on every card. All three agree on one
  interface per network card, every card carrying an EFA device, the primary at card 0 device 0.
"""

from __future__ import annotations

import base64

import pytest
import yaml
from aws_plans import ACCESS, h100_training_plan, ownership_for, with_pool

import components.aws as aws_components
from accelfit.preview.recorder import record
from components.aws import ManagedNodeGroup, ManagedNodeGroupArgs, NodeTaint
from components.kubernetes.eks_addons import efa_device_plugin_values

TERRAFORM_AWS_EKS = ("terraform-aws-modules/terraform-aws-eks", "bef29c4d9523523e57fe898643fde2895106b339")
AWSOME = ("aws-samples/awsome-distributed-training", "7217859f67bc693c52ff175ccc6082c41dbd7a1b")
AI_ON_EKS = ("awslabs/ai-on-eks", "41a979ee7614a59e5337768b1bddec76ad6653e0")

# Upstream facts, per source file.
UPSTREAM = {
    # modules/eks-managed-node-group/main.tf: efa_network_interfaces = one per maximum_network_cards,
    # network_card_index = i, delete_on_termination = true; create_placement_group when EFA, strategy "cluster";
    # all_self_efa ingress and egress rules (ip_protocol -1, self). variables.tf metadata_options defaults:
    # http_endpoint enabled, http_tokens required, http_put_response_hop_limit 1.
    "tf_eks_mng": {"source": (*TERRAFORM_AWS_EKS, "modules/eks-managed-node-group/main.tf"),
                   "interfaces_per_card": 1, "delete_on_termination": "true", "placement_strategy": "cluster",
                   "http_tokens": "required", "hop_limit": 1, "efa_sg_protocol": "-1"},
    # tests/eks-managed-node-group/main.tf (efa group): ami_type AL2023_x86_64_NVIDIA, p4d.24xlarge, min_size 0,
    # RAID0 instance store through a node.eks.aws NodeConfig, taint nvidia.com/gpu NO_SCHEDULE, enable_efa_only.
    "tf_eks_efa_test": {"source": (*TERRAFORM_AWS_EKS, "tests/eks-managed-node-group/main.tf"),
                        "ami_type": "AL2023_x86_64_NVIDIA", "min_size": 0, "local_storage": "RAID0",
                        "taint": ("nvidia.com/gpu", "NO_SCHEDULE"), "efa_only": True},
    # 1.architectures/3.aws-batch/0.aws-batch-distributed-training-p5.yaml: p5.48xlarge, NetworkCardIndex 0..31,
    # InstanceMarketOptions.MarketType capacity-block and CapacityReservationTarget in the launch template.
    "awsome_p5": {"source": (*AWSOME, "1.architectures/3.aws-batch/0.aws-batch-distributed-training-p5.yaml"),
                  "cards": 32, "market_type": "capacity-block"},
    # 1.architectures/3.aws-batch/aws-batch-distributed-training-p6.yaml: p6-b200.48xlarge, NetworkCardIndex 0..7.
    "awsome_p6": {"source": (*AWSOME, "1.architectures/3.aws-batch/aws-batch-distributed-training-p6.yaml"),
                  "cards": 8},
    # 1.architectures/4.amazon-eks/eks-p5-capacity-block.yaml: managed node group, efaEnabled, capacity-block market
    # type with the reservation target, minSize 0, RAID0 instance store.
    "awsome_eks_cb": {"source": (*AWSOME, "1.architectures/4.amazon-eks/eks-p5-capacity-block.yaml"),
                      "market_type": "capacity-block", "min_size": 0, "local_storage": "RAID0"},
    # infra/base/terraform/helm-values/aws-efa-k8s-device-plugin-values.yaml: the EFA device plugin tolerates
    # nvidia.com/gpu NoSchedule. infra/base/terraform/fsx-for-lustre.tf: static PV + PVC on fsx.csi.aws.com.
    "ai_on_eks": {"source": (*AI_ON_EKS, "infra/base/terraform"),
                  "efa_plugin_toleration": {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
}

# Network cards per type: the upstream counts where a blueprint names the type, AWS's pages otherwise
# (accelfit/cloudrules/aws/data/efa_layouts.yaml holds the sources).
EFA_TYPES = {"p4d.24xlarge": 4, "p5.48xlarge": UPSTREAM["awsome_p5"]["cards"], "p5e.48xlarge": 32,
             "p5en.48xlarge": 16, "p6-b200.48xlarge": UPSTREAM["awsome_p6"]["cards"], "g6e.48xlarge": 4,
             "g6.12xlarge": 1, "g6e.12xlarge": 1}


def node_group(instance_type: str, efa: int, **changes) -> tuple:
    def program():
        ManagedNodeGroup("conf", ManagedNodeGroupArgs(**{
            "cluster_name": "c", "node_role_arn": "arn:aws:iam::111122223333:role/nodes", "subnet_ids": ["s"],
            "security_group_ids": ["nodes-sg", "cluster-sg"], "instance_type": instance_type, "min_size": 0,
            "max_size": 4, "desired_size": 0, "efa_interfaces": efa, "placement_group": efa > 0,
            "local_nvme_scratch": True, "local_nvme_gb": 1000, "autoscaled": True,
            "taints": (NodeTaint("nvidia.com/gpu", "present", "NoSchedule"),), **changes}))

    recording = record(program)
    return recording.named("conf-lt").inputs, recording.named("conf-ng").inputs, recording


@pytest.mark.parametrize(("instance_type", "cards"), sorted(EFA_TYPES.items()))
class TestEfaLayoutAgainstUpstream:
    def test_one_efa_per_network_card_primary_at_card_0_device_0(self, instance_type, cards):
        template, _, _ = node_group(instance_type, cards)
        interfaces = template["networkInterfaces"]
        efa_cards = sorted(i["networkCardIndex"] for i in interfaces if i["interfaceType"] in ("efa", "efa-only"))
        assert efa_cards == list(range(cards))  # every card carries exactly one EFA device (all three sources)
        primary = [i for i in interfaces if (i["networkCardIndex"], i["deviceIndex"]) == (0, 0)]
        assert len(primary) == 1
        assert all(i["deleteOnTermination"] == UPSTREAM["tf_eks_mng"]["delete_on_termination"] for i in interfaces)
        assert all(i["securityGroups"] == ["nodes-sg", "cluster-sg"] for i in interfaces)
        assert "vpcSecurityGroupIds" not in template  # security groups go on the interfaces with EFA

    def test_efa_only_beyond_the_primary_as_terraform_aws_eks_enables(self, instance_type, cards):
        template, _, _ = node_group(instance_type, cards)
        interfaces = template["networkInterfaces"]
        if cards > 1:
            assert UPSTREAM["tf_eks_efa_test"]["efa_only"]
            assert sum(i["interfaceType"] == "efa-only" for i in interfaces) == cards
            assert interfaces[0]["interfaceType"] == "interface"  # AWS: an EFA-only interface cannot be primary
        else:
            assert [i["interfaceType"] for i in interfaces] == ["efa"]

    def test_cluster_placement_group(self, instance_type, cards):
        template, _, recording = node_group(instance_type, cards)
        (group,) = recording.of_type("aws:ec2/placementGroup:PlacementGroup")
        assert group.inputs["strategy"] == UPSTREAM["tf_eks_mng"]["placement_strategy"]
        assert template["placement"] == {"groupName": "conf-pg"}


@pytest.mark.parametrize("instance_type", ["p4d.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
                                           "p6-b200.48xlarge", "g6.xlarge", "g6e.xlarge", "g6.12xlarge",
                                           "g6e.48xlarge"])
class TestNodeGroupFieldsAgainstUpstream:
    def test_ami_imds_and_scale_from_zero(self, instance_type):
        template, group, _ = node_group(instance_type, EFA_TYPES.get(instance_type, 0))
        assert group["amiType"] == UPSTREAM["tf_eks_efa_test"]["ami_type"]
        assert group["scalingConfig"]["minSize"] == UPSTREAM["tf_eks_efa_test"]["min_size"]
        metadata = template["metadataOptions"]
        assert metadata["httpTokens"] == UPSTREAM["tf_eks_mng"]["http_tokens"]
        assert metadata["httpPutResponseHopLimit"] == UPSTREAM["tf_eks_mng"]["hop_limit"]

    def test_gpu_taint_and_raid0_instance_store(self, instance_type):
        template, group, _ = node_group(instance_type, EFA_TYPES.get(instance_type, 0))
        key, effect = UPSTREAM["tf_eks_efa_test"]["taint"]
        assert [(t["key"], t["effect"]) for t in group["taints"]] == [(key, effect)]
        user_data = base64.b64decode(template["userData"]).decode()
        node_config = yaml.safe_load(user_data.split("Content-Type: application/node.eks.aws", 1)[1]
                                     .split("--//--")[0])
        assert node_config["spec"]["instance"]["localStorage"]["strategy"] == UPSTREAM["awsome_eks_cb"][
            "local_storage"] == UPSTREAM["tf_eks_efa_test"]["local_storage"]


@pytest.mark.parametrize("instance_type", ["p4d.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
                                           "p6-b200.48xlarge"])
def test_capacity_block_launch_template_as_awsome_distributed_training(instance_type):
    template, group, _ = node_group(instance_type, EFA_TYPES[instance_type], capacity_reservation_id="cr-0123456789abcdef0",
                                    capacity_block=True)
    assert template["instanceMarketOptions"] == {"marketType": UPSTREAM["awsome_p5"]["market_type"]}
    assert UPSTREAM["awsome_eks_cb"]["market_type"] == UPSTREAM["awsome_p5"]["market_type"]
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}
    # EKS: the launch template names the type and the node group none.
    assert template["instanceType"] == instance_type and "instanceTypes" not in group
    assert group["capacityType"] == "CAPACITY_BLOCK"


def test_efa_security_group_rule_as_terraform_aws_eks(catalog):
    plan = h100_training_plan()
    recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
    group_id = "llm-pretrain-network-nodes-sg-id"
    rules = [(r.type.rsplit(":", 1)[1], r.inputs["ipProtocol"], r.inputs.get("referencedSecurityGroupId"))
             for r in recording.resources if r.type.startswith("aws:vpc/securityGroup")
             and r.inputs["securityGroupId"] == group_id]
    protocol = UPSTREAM["tf_eks_mng"]["efa_sg_protocol"]
    assert ("SecurityGroupIngressRule", protocol, group_id) in rules
    assert ("SecurityGroupEgressRule", protocol, group_id) in rules


def test_efa_device_plugin_tolerates_the_gpu_taint_as_ai_on_eks():
    assert UPSTREAM["ai_on_eks"]["efa_plugin_toleration"] in efa_device_plugin_values()["tolerations"]


@pytest.mark.parametrize("instance_type", ["p5en.48xlarge", "p6-b200.48xlarge", "p4d.24xlarge"])
def test_each_efa_family_builds_as_a_whole_stack(catalog, instance_type):
    """The plan-level path (checks, stack, node group) for each family, not only the component by hand."""
    row = catalog.instance_type("aws", instance_type)
    plan = with_pool(h100_training_plan(), 1, machine_type=instance_type, accelerator=row.accelerator,
                     efa_interfaces=row.efa_interfaces, local_nvme_gb=row.local_nvme_gb)
    recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
    interfaces = recording.named("llm-pretrain-pool-gpu-lt").inputs["networkInterfaces"]
    assert sum(i["interfaceType"] == "efa-only" for i in interfaces) == EFA_TYPES[instance_type]
