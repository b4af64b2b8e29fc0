"""Who reaches the EKS API: the stack-config rules (cluster_access.py) and what EksCluster renders for each mode."""

from __future__ import annotations

import pytest
from aws_plans import ACCESS, h100_training_plan, ownership_for

import components.aws as aws_components
from accelfit.errors import InputError
from accelfit.preview.recorder import record
from components.aws.cluster_access import ClusterAccess, access_problems, read_cluster_access


def fields(problems):
    return [problem.field for problem in problems]


def test_public_mode_without_cidrs_is_refused():
    assert fields(access_problems(ClusterAccess())) == ["accelfit:eksPublicAccessCidrs"]


@pytest.mark.parametrize("cidr", ["0.0.0.0/0", "10.0.0.1/8", "2001:db8::/32", "office"])
def test_bad_cidrs_are_refused(cidr):
    assert fields(access_problems(ClusterAccess(public_access_cidrs=(cidr,)))) == ["accelfit:eksPublicAccessCidrs[0]"]


def test_admin_principals_must_be_iam_arns():
    access = ClusterAccess(public_access_cidrs=("203.0.113.0/24",), admin_principal_arns=("github-deploy",))
    assert fields(access_problems(access)) == ["accelfit:eksAdminPrincipals[0]"]


def test_private_mode_takes_no_public_cidrs():
    access = ClusterAccess(endpoint_access="private", public_access_cidrs=("203.0.113.0/24",))
    assert fields(access_problems(access)) == ["accelfit:eksPublicAccessCidrs"]


def test_read_from_stack_config():
    def program():
        assert read_cluster_access() == ClusterAccess(
            endpoint_access="private", private_access_cidrs=("10.0.0.0/16",),
            admin_principal_arns=("arn:aws:iam::111122223333:role/ci",))

    record(program, config={"accelfit:eksEndpointAccess": "private",
                            "accelfit:eksPrivateAccessCidrs": '["10.0.0.0/16"]',
                            "accelfit:eksAdminPrincipals": '["arn:aws:iam::111122223333:role/ci"]'})


def test_public_mode_renders_restricted_endpoint_and_admin_entries(catalog):
    plan = h100_training_plan()
    recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
    (cluster,) = recording.of_type("aws:eks/cluster:Cluster")
    assert cluster.inputs["vpcConfig"]["publicAccessCidrs"] == ["203.0.113.0/24"]
    (entry,) = recording.of_type("aws:eks/accessEntry:AccessEntry")
    assert entry.inputs["principalArn"] == "arn:aws:iam::111122223333:role/accelfit-deploy"
    (association,) = recording.of_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert association.inputs["policyArn"].endswith("/AmazonEKSClusterAdminPolicy")
    assert association.inputs["accessScope"] == {"type": "cluster"}


def test_private_mode_opens_443_on_the_cluster_security_group_to_the_runners(catalog):
    plan = h100_training_plan()
    access = ClusterAccess(endpoint_access="private", private_access_cidrs=("10.50.0.0/16",))
    recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, access))
    (cluster,) = recording.of_type("aws:eks/cluster:Cluster")
    assert cluster.inputs["vpcConfig"]["endpointPublicAccess"] is False
    assert "publicAccessCidrs" not in cluster.inputs["vpcConfig"]
    rule = recording.named("llm-pretrain-cluster-api-from-0").inputs
    assert rule["securityGroupId"] == "llm-pretrain-cluster-eks-cluster-sg-id"
    assert (rule["ipProtocol"], rule["fromPort"], rule["toPort"], rule["cidrIpv4"]) == ("tcp", 443, 443,
                                                                                          "10.50.0.0/16")


def test_unconfigured_access_creates_nothing(catalog):
    plan = h100_training_plan()
    with pytest.raises(InputError):
        record(lambda: aws_components.build(plan, ownership_for(plan), catalog))


def test_listed_admins_turn_off_the_creator_bootstrap_entry_so_the_deploy_role_gets_one_entry(catalog):
    # EKS's bootstrap entry for the creator (the deploy role) plus ours for the same role: 409
    # ResourceInUseException on CreateAccessEntry (terraform-aws-eks issues 3293, 2968).
    plan = h100_training_plan()
    recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
    (cluster,) = recording.of_type("aws:eks/cluster:Cluster")
    assert cluster.inputs["accessConfig"] == {"authenticationMode": "API",
                                              "bootstrapClusterCreatorAdminPermissions": False}
    # An existing cluster keeps its flag: changing it replaces the cluster.
    assert "accessConfig.bootstrapClusterCreatorAdminPermissions" in cluster.ignore_changes
    assert [entry.inputs["principalArn"] for entry in recording.of_type("aws:eks/accessEntry:AccessEntry")] == [
        "arn:aws:iam::111122223333:role/accelfit-deploy"]


def test_without_listed_admins_eks_keeps_the_creator_entry_and_none_is_added(catalog):
    plan = h100_training_plan()
    access = ClusterAccess(endpoint_access="public", public_access_cidrs=("203.0.113.0/24",))
    recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, access))
    (cluster,) = recording.of_type("aws:eks/cluster:Cluster")
    assert cluster.inputs["accessConfig"]["bootstrapClusterCreatorAdminPermissions"] is True
    assert recording.of_type("aws:eks/accessEntry:AccessEntry") == []
