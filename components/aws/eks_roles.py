"""EksRoles: the two IAM roles an EKS cluster needs, each with only the AWS-managed policies EKS documents.

Attachments are separate `RolePolicyAttachment` resources (not `managed_policy_arns`, which would make the
role's attachments exclusive and fight any attachment added elsewhere: reference/pulumi.md 3.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.aws.iam_documents import (
    CLUSTER_POLICIES,
    NODE_POLICIES,
    assume_role_policy,
    managed_policy_arn,
)
from components.common import child_name


@dataclass(frozen=True)
class EksRolesArgs:
    tags: Mapping[str, str] = field(default_factory=dict, metadata={"doc": "Tags for both roles."})
    region: str | None = field(default=None, metadata={"doc": "Region; picks the ARN partition (aws, aws-cn...)."})


def _after(value: pulumi.Output[str], resources: list[aws.iam.RolePolicyAttachment]) -> pulumi.Output[str]:
    """`value`, depending also on `resources` (their ids are read only to carry the dependency)."""
    return pulumi.Output.all(value, *(resource.id for resource in resources)).apply(lambda values: values[0])


class EksRoles(pulumi.ComponentResource):
    cluster_role_arn: pulumi.Output[str]
    """Role the EKS control plane assumes (AmazonEKSClusterPolicy only)."""
    cluster_role_name: pulumi.Output[str]
    node_role_arn: pulumi.Output[str]
    """Role of the worker nodes (worker, image-pull and VPC CNI policies only)."""
    node_role_name: pulumi.Output[str]

    def __init__(self, name: str, args: EksRolesArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:aws:EksRoles", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)

        cluster = aws.iam.Role(child_name(name, "cluster"), assume_role_policy=assume_role_policy(
            "eks.amazonaws.com"), description="EKS control plane", tags=tags, opts=child)
        nodes = aws.iam.Role(child_name(name, "nodes"), assume_role_policy=assume_role_policy(
            "ec2.amazonaws.com"), description="EKS worker nodes", tags=tags, opts=child)
        attached: dict[str, list[aws.iam.RolePolicyAttachment]] = {}
        for role, role_name, policies in ((cluster, "cluster", CLUSTER_POLICIES), (nodes, "nodes", NODE_POLICIES)):
            attached[role_name] = [
                aws.iam.RolePolicyAttachment(child_name(name, f"{role_name}-{policy}"), role=role.name,
                                             policy_arn=managed_policy_arn(policy, args.region), opts=child)
                for policy in policies]

        # The ARNs handed out carry the attachments as dependencies, so the cluster and every node group that runs
        # as a role waits for its policies (and is deleted before them). A `depends_on` on this component would
        # not reach the EKS resources inside other components. Terraform's aws_eks_cluster/aws_eks_node_group
        # docs: "Ensure that IAM Role permissions are created before and deleted after EKS ... handling"
        # (accelfit/ordering rule iam-policies-before-eks).
        self.cluster_role_arn = _after(cluster.arn, attached["cluster"])
        self.cluster_role_name = cluster.name
        self.node_role_arn = _after(nodes.arn, attached["nodes"])
        self.node_role_name = nodes.name
        self.register_outputs({"cluster_role_arn": self.cluster_role_arn, "cluster_role_name": self.cluster_role_name,
                               "node_role_arn": self.node_role_arn, "node_role_name": self.node_role_name})
