"""EksCluster: the EKS control plane, private, logged, with encrypted secrets and API access entries.

- Private API endpoint always on; the public endpoint on in `public` access mode, restricted to the configured
  CIDRs (never 0.0.0.0/0); in `private` mode the cluster security group admits the configured CIDRs on 443
  (cluster_access.py says who configures what).
- Every control-plane log type goes to CloudWatch (audit trail for who changed the cluster).
- Kubernetes secrets are envelope-encrypted with a customer KMS key with rotation on.
- Access is managed through EKS access entries (authentication mode API), not the aws-auth ConfigMap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.errors import Problem
from components.aws.checks import ARGS_FILE, args_problem, raise_if_any
from components.aws.cluster_access import ClusterAccess, access_problems
from components.aws.iam_documents import kms_key_use_policy, partition
from components.common import child_name

_COMPONENT = "EksCluster"

# https://docs.aws.amazon.com/eks/latest/userguide/control-plane-logs.html
LOG_TYPES = ("api", "audit", "authenticator", "controllerManager", "scheduler")
# https://docs.aws.amazon.com/eks/latest/userguide/access-policies.html
ADMIN_ACCESS_POLICY = "AmazonEKSClusterAdminPolicy"
BOOTSTRAP_FLAG_PATH = "accessConfig.bootstrapClusterCreatorAdminPermissions"


def bootstrap_creator_admin(access: ClusterAccess) -> bool:
    """Whether EKS itself makes an admin access entry for the principal that creates the cluster.

    Off when the stack names its admins: the deploy role that runs `pulumi up` is one of them, and EKS answers
    the second entry for it with 409 ResourceInUseException (terraform-aws-modules/terraform-aws-eks issues 3293
    and 2968; https://docs.aws.amazon.com/eks/latest/userguide/creating-access-entries.html). terraform-aws-eks
    (main.tf, v20 and later) hard-codes the flag to false and grants the creator through an access entry of its
    own (`enable_cluster_creator_admin_permissions`); here the listed principals are those entries. With no
    principal listed, EKS's own entry is the only way the creator can apply the Kubernetes layer, so it stays on
    (nothing else creates an entry then)."""
    return not access.admin_principal_arns


@dataclass(frozen=True)
class EksClusterArgs:
    role_arn: pulumi.Input[str] = field(metadata={"doc": "Cluster IAM role (EksRoles.cluster_role_arn)."})
    role_name: pulumi.Input[str] = field(metadata={"doc": "Its name, to grant it use of the secrets key."})
    subnet_ids: Sequence[pulumi.Input[str]] = field(metadata={"doc": "Private subnets in two or more zones."})
    version: str | None = field(default=None, metadata={"doc": "Kubernetes version, e.g. 1.33; None = EKS default."})
    service_cidr: str | None = field(default=None, metadata={"doc": "Service IPv4 CIDR; None = EKS default."})
    access: ClusterAccess = field(
        default_factory=ClusterAccess, metadata={"doc": "Endpoint mode, allowed CIDRs and admin principals."})
    deletion_protection: bool = field(default=False, metadata={"doc": "Refuse cluster deletion (prod)."})
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None


def validate_cluster_args(args: EksClusterArgs) -> list[Problem]:
    problems: list[Problem] = []
    if len(args.subnet_ids) < 2:
        problems.append(args_problem(_COMPONENT, "subnet_ids", "EKS needs subnets in at least two zones",
                                     "pass the private subnet of each zone"))
    problems += access_problems(args.access, f"{ARGS_FILE} ({_COMPONENT}.access)")
    return problems


class EksCluster(pulumi.ComponentResource):
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    """Base64 CA data of the API server."""
    cluster_security_group_id: pulumi.Output[str]
    """Security group EKS creates for control-plane to node traffic; nodes must carry it."""

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_cluster_args(args))
        super().__init__("accelfit:aws:EksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)

        # Rotation yearly, 30-day deletion window: the AWS defaults made explicit
        # (https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html).
        key = aws.kms.Key(child_name(name, "secrets-key"), description=f"EKS secrets encryption for {name}",
                          enable_key_rotation=True, deletion_window_in_days=30, region=args.region, tags=tags,
                          opts=child)
        key_use = aws.iam.RolePolicy(child_name(name, "secrets-key-use"), role=args.role_name,
                                     policy=key.arn.apply(kms_key_use_policy), opts=child)

        public = args.access.endpoint_access == "public"
        cluster = aws.eks.Cluster(
            child_name(name, "eks"),
            role_arn=args.role_arn,
            version=args.version,
            vpc_config=aws.eks.ClusterVpcConfigArgs(
                subnet_ids=list(args.subnet_ids), endpoint_private_access=True,
                endpoint_public_access=public,
                public_access_cidrs=list(args.access.public_access_cidrs) if public else None),
            access_config=aws.eks.ClusterAccessConfigArgs(
                authentication_mode="API",
                bootstrap_cluster_creator_admin_permissions=bootstrap_creator_admin(args.access)),
            enabled_cluster_log_types=list(LOG_TYPES),
            encryption_config=aws.eks.ClusterEncryptionConfigArgs(
                resources=["secrets"], provider=aws.eks.ClusterEncryptionConfigProviderArgs(key_arn=key.arn)),
            kubernetes_network_config=aws.eks.ClusterKubernetesNetworkConfigArgs(
                service_ipv4_cidr=args.service_cidr) if args.service_cidr else None,
            # STANDARD support: a cluster left on an old version is upgraded instead of silently billed for
            # extended support (https://docs.aws.amazon.com/eks/latest/userguide/view-upgrade-policy.html).
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type="STANDARD"),
            deletion_protection=args.deletion_protection,
            region=args.region, tags=tags,
            # The bootstrap flag only acts at creation and changing it replaces the cluster (pulumi/pulumi-aws
            # issue 3997, hashicorp/terraform-provider-aws issue 35824): a cluster an earlier release created
            # with it on keeps it (see CHANGELOG.md 0.2.0 for the access entry such a stack may already have).
            opts=pulumi.ResourceOptions(parent=self, depends_on=[key_use],
                                        ignore_changes=[BOOTSTRAP_FLAG_PATH]))

        # The control-plane interfaces carry the cluster security group, which admits only its members; runners
        # inside the VPC (private mode) need 443 to it
        # (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html).
        for index, cidr in enumerate(args.access.private_access_cidrs):
            aws.vpc.SecurityGroupIngressRule(
                child_name(name, f"api-from-{index}"), security_group_id=cluster.vpc_config.cluster_security_group_id,
                description=f"Kubernetes API from {cidr}", ip_protocol="tcp", from_port=443, to_port=443,
                cidr_ipv4=cidr, region=args.region, tags=tags, opts=child)

        for index, principal in enumerate(args.access.admin_principal_arns):
            entry = aws.eks.AccessEntry(child_name(name, f"admin-{index}"), cluster_name=cluster.name,
                                        principal_arn=principal, type="STANDARD", region=args.region, tags=tags,
                                        opts=child)
            aws.eks.AccessPolicyAssociation(
                child_name(name, f"admin-{index}-policy"), cluster_name=cluster.name, principal_arn=principal,
                policy_arn=f"arn:{partition(args.region)}:eks::aws:cluster-access-policy/{ADMIN_ACCESS_POLICY}",
                access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"), region=args.region,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[entry]))

        self.cluster_name = cluster.name
        self.endpoint = cluster.endpoint
        self.certificate_authority = cluster.certificate_authority.data
        self.cluster_security_group_id = cluster.vpc_config.cluster_security_group_id
        self.register_outputs({"cluster_name": self.cluster_name, "endpoint": self.endpoint,
                               "certificate_authority": self.certificate_authority,
                               "cluster_security_group_id": self.cluster_security_group_id})
