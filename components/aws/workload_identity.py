"""WorkloadIdentity: AWS credentials for the workload's pods, scoped to the data bucket, via EKS Pod Identity.

Nodes keep only their node policies and IMDS is out of reach of pods (hop limit 1), so pods that read datasets
and write checkpoints get a role of their own: the Pod Identity agent add-on, a role trusted by
pods.eks.amazonaws.com with read/write on one bucket, and an association binding it to one service account
(https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.errors import Problem
from components.aws.checks import args_problem, raise_if_any
from components.aws.iam_documents import assume_role_policy, bucket_read_write_policy, weights_read_policy
from components.common import child_name

_COMPONENT = "WorkloadIdentity"
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
POD_IDENTITY_ADDON = "eks-pod-identity-agent"


@dataclass(frozen=True)
class WorkloadIdentityArgs:
    cluster_name: pulumi.Input[str]
    bucket_arn: pulumi.Input[str]
    namespace: str = field(metadata={"doc": "Kubernetes namespace of the workload's pods."})
    service_account: str = field(metadata={"doc": "Service account the pods run as."})
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None
    weights: str | None = field(default=None, metadata={
        "doc": "The model server's s3:// weights (model.weights), read-only; None = no server weights here."})
    agent: aws.eks.Addon | None = field(default=None, metadata={
        "doc": "The cluster's Pod Identity agent add-on when it exists already (a shared cluster has one for all "
               "its workloads: EKS installs an add-on once per cluster); None = create it here."})


def validate_identity_args(args: WorkloadIdentityArgs) -> list[Problem]:
    problems = []
    for field_name in ("namespace", "service_account"):
        value = getattr(args, field_name)
        if not _DNS_LABEL.fullmatch(value) or len(value) > 63:
            problems.append(args_problem(_COMPONENT, field_name, "not a Kubernetes DNS label",
                                         "use lowercase letters, digits and '-', at most 63 characters", value))
    return problems


def pod_identity_agent(name: str, cluster_name: pulumi.Input[str], region: str | None, tags: Mapping[str, str],
                       opts: pulumi.ResourceOptions) -> aws.eks.Addon:
    return aws.eks.Addon(name, cluster_name=cluster_name, addon_name=POD_IDENTITY_ADDON, region=region,
                         tags=dict(tags), opts=opts)


class WorkloadIdentity(pulumi.ComponentResource):
    role_arn: pulumi.Output[str]
    agent: aws.eks.Addon
    """The Pod Identity agent add-on; every other Pod Identity association waits for it."""
    association: aws.eks.PodIdentityAssociation
    """What gives the workload's pods their credentials: EKS injects them into pods created after it exists
    (docs.aws.amazon.com/eks/latest/userguide/pod-id-association.html), so the pods' owners wait for it."""

    def __init__(self, name: str, args: WorkloadIdentityArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_identity_args(args))
        super().__init__("accelfit:aws:WorkloadIdentity", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)

        agent = args.agent or pod_identity_agent(child_name(name, "agent"), args.cluster_name, args.region, tags,
                                                 child)
        role = aws.iam.Role(child_name(name, "role"), description=f"pods of {args.namespace}/{args.service_account}",
                            assume_role_policy=assume_role_policy("pods.eks.amazonaws.com", tag_session=True),
                            tags=tags, opts=child)
        aws.iam.RolePolicy(child_name(name, "bucket-access"), role=role.name,
                           policy=pulumi.Output.from_input(args.bucket_arn).apply(bucket_read_write_policy),
                           opts=child)
        if args.weights is not None:
            # The Run:ai model streamer in the server pod reads the weights with these credentials.
            aws.iam.RolePolicy(child_name(name, "weights-read"), role=role.name,
                               policy=weights_read_policy(args.weights), opts=child)
        self.association = aws.eks.PodIdentityAssociation(
            child_name(name, "association"), cluster_name=args.cluster_name, namespace=args.namespace,
            service_account=args.service_account, role_arn=role.arn, region=args.region, tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[agent]))
        self.role_arn = role.arn
        self.agent = agent
        self.register_outputs({"role_arn": self.role_arn})
