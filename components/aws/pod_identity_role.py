"""PodIdentityRole: an IAM role for one Kubernetes service account through EKS Pod Identity, with one inline
policy. The Pod Identity agent add-on (WorkloadIdentity creates it) must exist first: pass it in `after`.
https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.aws.iam_documents import assume_role_policy
from components.common import child_name


@dataclass(frozen=True)
class PodIdentityRoleArgs:
    cluster_name: pulumi.Input[str]
    namespace: str
    service_account: str
    policy: pulumi.Input[str] = field(metadata={"doc": "The role's inline policy document (JSON)."})
    after: Sequence[pulumi.Resource] = field(default=(), metadata={"doc": "The Pod Identity agent add-on."})
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None


class PodIdentityRole(pulumi.ComponentResource):
    role_arn: pulumi.Output[str]

    def __init__(self, name: str, args: PodIdentityRoleArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:aws:PodIdentityRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        role = aws.iam.Role(child_name(name, "role"), description=f"pods of {args.namespace}/{args.service_account}",
                            assume_role_policy=assume_role_policy("pods.eks.amazonaws.com", tag_session=True),
                            tags=tags, opts=child)
        aws.iam.RolePolicy(child_name(name, "policy"), role=role.name, policy=args.policy, opts=child)
        aws.eks.PodIdentityAssociation(child_name(name, "association"), cluster_name=args.cluster_name,
                                       namespace=args.namespace, service_account=args.service_account,
                                       role_arn=role.arn, region=args.region, tags=tags,
                                       opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.after)))
        self.role_arn = role.arn
        self.register_outputs({"role_arn": self.role_arn})
