"""Pure helpers of the AWS components: addressing, EFA layout, EKS spellings, IAM documents, FSx sizes."""

from __future__ import annotations

import base64
import ipaddress
import json
import pytest
from aws_golden import check_text

from accelfit.cloudrules.aws.addressing import s3_gateway_service, subnet_layout
from accelfit.cloudrules.aws.efa import EfaInterface, efa_interfaces
from accelfit.cloudrules.aws.instance_rules import capacity_block_findings, efa_findings, efa_layouts
from accelfit.cloudrules.aws.fsx_sizes import nearest_valid_capacity_gib, valid_capacity_gib
from components.aws.iam_documents import (
    NODE_POLICIES, assume_role_policy, bucket_read_write_policy, deny_insecure_transport_policy, managed_policy_arn,
)
from components.aws.node_settings import (
    ami_type, capacity_type, scratch_user_data, scratch_user_data_base64, taint_effect,
)


class TestSubnetLayout:
    def test_private_and_public_per_zone_without_overlap(self):
        layout = subnet_layout("10.0.0.0/16", ["us-east-1a", "us-east-1b", "us-east-1c"])
        blocks = [ipaddress.ip_network(cidr) for row in layout for cidr in (row.private_cidr, row.public_cidr)]
        assert all(a == b or not a.overlaps(b) for a in blocks for b in blocks)
        assert all(block.subnet_of(ipaddress.ip_network("10.0.0.0/16")) for block in blocks)

    def test_private_subnets_get_most_of_the_space(self):
        first = subnet_layout("10.0.0.0/16", ["a", "b"])[0]
        assert (first.private_cidr, first.public_cidr) == ("10.0.0.0/18", "10.0.192.0/22")

    def test_more_than_three_zones_use_eighths(self):
        assert subnet_layout("10.0.0.0/16", list("abcd"))[3].private_cidr == "10.0.96.0/19"

    def test_too_small_a_cidr_is_refused(self):
        with pytest.raises(ValueError, match="too small"):
            subnet_layout("10.0.0.0/24", ["a", "b"])

    def test_china_regions_prefix_the_s3_service(self):
        assert s3_gateway_service("us-east-1") == "com.amazonaws.us-east-1.s3"
        assert s3_gateway_service("cn-north-1") == "cn.com.amazonaws.cn-north-1.s3"


class TestEfaInterfaces:
    def test_none(self):
        assert efa_interfaces(0) == ()

    def test_single_card_type_takes_one_efa_primary(self):
        assert efa_interfaces(1, efa_layouts()["g6.12xlarge"].layout) == (EfaInterface(0, 0, "efa"),)

    def test_efa_primary_layout_refuses_more_than_one(self):
        with pytest.raises(ValueError):
            efa_interfaces(2, "efa-primary")

    @pytest.mark.parametrize("instance_type, count", [("p5.48xlarge", 32), ("p5e.48xlarge", 32),
                                                      ("p5en.48xlarge", 16), ("p6-b200.48xlarge", 8),
                                                      ("p4d.24xlarge", 4), ("g6e.48xlarge", 4)])
    def test_multi_card_types_take_ena_primary_and_efa_only_on_every_card(self, catalog, instance_type, count):
        rule = efa_layouts()[instance_type]
        assert (rule.network_cards, rule.efa_interfaces) == (count, count)
        row = catalog.instance_type("aws", instance_type)
        assert row.efa_interfaces == count  # the catalog agrees with the sourced layout
        interfaces = efa_interfaces(rule.efa_interfaces, rule.layout)
        # AWS: ENA primary at card 0 device 0, EFA-only at card 0 device 1, EFA-only at device 0 of other cards.
        assert interfaces[0] == EfaInterface(0, 0, "interface")
        assert interfaces[1] == EfaInterface(0, 1, "efa-only")
        assert [(i.network_card_index, i.device_index, i.interface_type) for i in interfaces[2:]] == [
            (card, 0, "efa-only") for card in range(1, count)]
        assert sum(i.interface_type == "efa-only" for i in interfaces) == count

    def test_every_efa_type_of_the_catalog_has_a_sourced_layout(self, catalog):
        missing = [row.name for row in catalog.instance_types_for("aws")
                   if row.efa_interfaces and row.name not in efa_layouts()]
        assert missing == []

    def test_negative_is_refused(self):
        with pytest.raises(ValueError):
            efa_interfaces(-1)


class TestNodeSettings:
    @pytest.mark.parametrize("instance_type, accelerated, expected", [
        ("p5.48xlarge", True, "AL2023_x86_64_NVIDIA"), ("g6.xlarge", True, "AL2023_x86_64_NVIDIA"),
        ("g5g.xlarge", True, "AL2023_ARM_64_NVIDIA"), ("p6e-gb200.36xlarge", True, "AL2023_ARM_64_NVIDIA"),
        ("m6i.xlarge", False, "AL2023_x86_64_STANDARD"), ("m7g.large", False, "AL2023_ARM_64_STANDARD"),
        ("g4dn.xlarge", True, "AL2023_x86_64_NVIDIA")])
    def test_ami_type(self, instance_type, accelerated, expected):
        assert ami_type(instance_type, accelerated) == expected

    def test_capacity_types(self):
        assert capacity_type(False, False) == "ON_DEMAND"
        assert capacity_type(True, False) == "SPOT"
        assert capacity_type(False, True) == "CAPACITY_BLOCK"
        with pytest.raises(ValueError):
            capacity_type(True, True)

    def test_taint_effects_use_eks_spelling(self):
        assert [taint_effect(e) for e in ("NoSchedule", "NoExecute", "PreferNoSchedule")] == [
            "NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"]

    def test_scratch_user_data_golden(self):
        check_text("scratch-user-data.mime", scratch_user_data())
        assert base64.b64decode(scratch_user_data_base64()).decode() == scratch_user_data()
        assert "strategy: RAID0" in scratch_user_data()


class TestIamDocuments:
    def test_trust_policy(self):
        document = json.loads(assume_role_policy("eks.amazonaws.com"))
        assert document["Statement"] == [{"Effect": "Allow", "Principal": {"Service": "eks.amazonaws.com"},
                                          "Action": "sts:AssumeRole"}]
        assert json.loads(assume_role_policy("pods.eks.amazonaws.com", tag_session=True))["Statement"][0][
            "Action"] == ["sts:AssumeRole", "sts:TagSession"]

    def test_node_policies_are_only_the_three_eks_needs(self):
        assert NODE_POLICIES == ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly",
                                 "AmazonEKS_CNI_Policy")

    def test_partitions(self):
        assert managed_policy_arn("X", "us-east-1") == "arn:aws:iam::aws:policy/X"
        assert managed_policy_arn("X", "cn-north-1") == "arn:aws-cn:iam::aws:policy/X"
        assert managed_policy_arn("X", "us-gov-west-1") == "arn:aws-us-gov:iam::aws:policy/X"

    def test_bucket_policy_is_scoped_to_one_bucket(self):
        statements = json.loads(bucket_read_write_policy("arn:aws:s3:::b"))["Statement"]
        assert {statement["Resource"] for statement in statements} == {"arn:aws:s3:::b", "arn:aws:s3:::b/*"}
        assert not any(action == "*" or action.endswith(":*") for s in statements for action in s["Action"])

    def test_tls_only(self):
        statement = json.loads(deny_insecure_transport_policy("arn:aws:s3:::b"))["Statement"][0]
        assert statement["Effect"] == "Deny"
        assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


@pytest.mark.parametrize("capacity, valid", [(1200, True), (2400, True), (19200, True), (0, False),
                                             (1800, False), (3600, False)])
def test_fsx_capacity(capacity, valid):
    assert valid_capacity_gib(capacity) is valid


def test_fsx_capacity_suggestion():
    assert [nearest_valid_capacity_gib(c) for c in (100, 1200, 1300, 4800, 4801)] == [1200, 1200, 2400, 4800, 7200]


class TestInstanceRules:
    def test_efa_on_a_type_without_a_sourced_layout_is_refused(self):
        [(field, message, fix, _value)] = efa_findings("c5n.18xlarge", 1)
        assert field == "efa_interfaces" and "no sourced EFA layout" in message and "efa_layouts.yaml" in fix

    def test_partial_efa_count_on_a_multi_card_type_is_refused(self):
        [(_field, message, fix, _)] = efa_findings("p5.48xlarge", 16)
        assert "32 network card" in message and fix == "set 32"

    def test_capacity_block_on_a_type_not_sold_as_blocks(self):
        findings = capacity_block_findings("g6.xlarge", True, False, "cr-0123456789abcdef0")
        assert [f[0] for f in findings] == ["capacity_block"]

    def test_capacity_block_with_spot_and_without_reservation(self):
        fields = sorted(f[0] for f in capacity_block_findings("p5.48xlarge", True, True, None))
        assert fields == ["capacity_block", "spot"]

    def test_no_findings_for_a_valid_block(self):
        assert capacity_block_findings("p5.48xlarge", True, False, "cr-0123456789abcdef0") == []
