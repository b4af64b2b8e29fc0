"""Who reaches the EKS API, read from stack config before anything is created. Pure except `read_cluster_access`.

The Kubernetes layer (Helm releases, Kueue objects) is applied by whoever runs `pulumi up`: a laptop, or the deploy
workflow on GitHub-hosted runners outside the VPC. So the API must be reachable from there, and those principals
need Kubernetes permissions. Two modes (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html):

- `public` (default): the public endpoint restricted to `eksPublicAccessCidrs`, the private endpoint also on (nodes
  and pods in the VPC use it). An empty list is refused: EKS would open the endpoint to 0.0.0.0/0.
- `private`: private endpoint only, for runners inside the VPC (or a peered/VPN network); `eksPrivateAccessCidrs`
  are admitted on TCP 443 by the cluster security group, which otherwise admits only its own members.

`eksAdminPrincipals` (IAM role/user ARNs: people, the CI deploy role) get access entries with
AmazonEKSClusterAdminPolicy, as terraform-aws-eks `access_entries` does
(https://docs.aws.amazon.com/eks/latest/userguide/access-policies.html).

    pulumi config set --path 'accelfit:eksPublicAccessCidrs[0]' 203.0.113.0/24
    pulumi config set --path 'accelfit:eksAdminPrincipals[0]' arn:aws:iam::111122223333:role/github-deploy
    pulumi config set accelfit:eksEndpointAccess private      # runners inside the VPC
    pulumi config set --path 'accelfit:eksPrivateAccessCidrs[0]' 10.0.0.0/16
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any, Literal

from accelfit.errors import InputError, Problem, problem

EndpointAccess = Literal["public", "private"]
_IAM_PRINCIPAL = re.compile(r"^arn:aws(-cn|-us-gov)?:(iam|sts)::[0-9]{12}:(role|user|assumed-role)/[\w+=,.@/-]+\Z")
SOURCE = "stack"


@dataclass(frozen=True)
class ClusterAccess:
    endpoint_access: EndpointAccess = "public"
    public_access_cidrs: tuple[str, ...] = ()
    private_access_cidrs: tuple[str, ...] = ()
    admin_principal_arns: tuple[str, ...] = ()


def access_problems(access: ClusterAccess, source: str = SOURCE) -> list[Problem]:
    problems: list[Problem] = []
    if access.endpoint_access not in ("public", "private"):
        problems.append(problem(source, "accelfit:eksEndpointAccess", "must be public or private",
                                "pulumi config set accelfit:eksEndpointAccess public", access.endpoint_access))
    if access.endpoint_access == "public" and not access.public_access_cidrs:
        problems.append(problem(
            source, "accelfit:eksPublicAccessCidrs", "the EKS API would be unreachable from outside the VPC (or "
            "open to the whole internet); pulumi and the deploy workflow apply the Kubernetes layer through it",
            "list your office/VPN/CI egress ranges: pulumi config set --path "
            "'accelfit:eksPublicAccessCidrs[0]' 203.0.113.0/24, or run from inside the VPC with "
            "accelfit:eksEndpointAccess private"))
    if access.endpoint_access == "private" and access.public_access_cidrs:
        problems.append(problem(source, "accelfit:eksPublicAccessCidrs", "set, but the endpoint is private",
                                "remove it, or use accelfit:eksEndpointAccess public",
                                list(access.public_access_cidrs)))
    for key, cidrs in (("eksPublicAccessCidrs", access.public_access_cidrs),
                       ("eksPrivateAccessCidrs", access.private_access_cidrs)):
        for index, cidr in enumerate(cidrs):
            try:
                network = ipaddress.ip_network(cidr, strict=True)
            except ValueError as error:
                problems.append(problem(source, f"accelfit:{key}[{index}]", str(error),
                                        "use a CIDR such as 203.0.113.0/24", cidr))
                continue
            if network.version != 4:
                problems.append(problem(source, f"accelfit:{key}[{index}]", "EKS endpoint access takes IPv4 CIDRs",
                                        "use an IPv4 CIDR", cidr))
            elif network.prefixlen == 0:
                problems.append(problem(source, f"accelfit:{key}[{index}]", "opens the Kubernetes API to every "
                                        "address", "list only your office, VPN or runner ranges", cidr))
    for index, arn in enumerate(access.admin_principal_arns):
        if not _IAM_PRINCIPAL.match(arn):
            problems.append(problem(source, f"accelfit:eksAdminPrincipals[{index}]", "not an IAM role or user ARN",
                                    "use arn:aws:iam::<account>:role/<name>", arn))
    return problems


def _string_list(config: Any, key: str, problems: list[Problem]) -> tuple[str, ...]:
    value = config.get_object(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(problem(SOURCE, f"accelfit:{key}", "must be a list of strings",
                                f"pulumi config set --path 'accelfit:{key}[0]' <value>", value))
        return ()
    return tuple(value)


def read_cluster_access() -> ClusterAccess:
    """From the stack's config; every problem reported at once, before any resource."""
    import pulumi

    config = pulumi.Config()
    problems: list[Problem] = []
    access = ClusterAccess(
        endpoint_access=config.get("eksEndpointAccess") or "public",  # type: ignore[arg-type]
        public_access_cidrs=_string_list(config, "eksPublicAccessCidrs", problems),
        private_access_cidrs=_string_list(config, "eksPrivateAccessCidrs", problems),
        admin_principal_arns=_string_list(config, "eksAdminPrincipals", problems))
    problems += access_problems(access)
    if problems:
        raise InputError(problems)
    return access
