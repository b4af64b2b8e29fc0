"""Who reaches the EKS API (`accelfit:eksEndpointAccess`, `eksPublicAccessCidrs`, `eksPrivateAccessCidrs`,
`eksAdminPrincipals`): the one reading and check of the settings, run by `accelfit check`/`plan`/`lock` (the stack
rules) and by the EKS components (components/aws/cluster_access.py) alike. Pure.

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
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from accelfit.errors import Problem, problem

EndpointAccess = Literal["public", "private"]
KEYS = ("eksEndpointAccess", "eksPublicAccessCidrs", "eksPrivateAccessCidrs", "eksAdminPrincipals")
IAM_PRINCIPAL = re.compile(r"^arn:aws(-cn|-us-gov)?:(iam|sts)::[0-9]{12}:(role|user|assumed-role)/[\w+=,.@/-]+\Z")
SOURCE = "stack"
PREFIX = "accelfit:"


@dataclass(frozen=True)
class ClusterAccess:
    endpoint_access: EndpointAccess = "public"
    public_access_cidrs: tuple[str, ...] = ()
    private_access_cidrs: tuple[str, ...] = ()
    admin_principal_arns: tuple[str, ...] = ()


def access_problems(access: ClusterAccess, source: str = SOURCE, prefix: str = PREFIX, *,
                    complete: bool = True) -> list[Problem]:
    """`prefix` is how fields name the keys: `accelfit:` in the program, `config.accelfit:` for a stack file.
    `complete` False (no EKS cluster is planned): only values malformed in themselves."""
    problems: list[Problem] = []
    if access.endpoint_access not in ("public", "private"):
        problems.append(problem(source, f"{prefix}eksEndpointAccess", "must be public or private",
                                "pulumi config set accelfit:eksEndpointAccess public", access.endpoint_access))
    if complete and access.endpoint_access == "public" and not access.public_access_cidrs:
        problems.append(problem(
            source, f"{prefix}eksPublicAccessCidrs", "the EKS API would be unreachable from outside the VPC (or "
            "open to the whole internet); pulumi and the deploy workflow apply the Kubernetes layer through it",
            "list your office/VPN/CI egress ranges: pulumi config set --path "
            "'accelfit:eksPublicAccessCidrs[0]' 203.0.113.0/24, or run from inside the VPC with "
            "accelfit:eksEndpointAccess private"))
    if access.endpoint_access == "private" and access.public_access_cidrs:
        problems.append(problem(source, f"{prefix}eksPublicAccessCidrs", "set, but the endpoint is private",
                                "remove it, or use accelfit:eksEndpointAccess public",
                                list(access.public_access_cidrs)))
    for key, cidrs in (("eksPublicAccessCidrs", access.public_access_cidrs),
                       ("eksPrivateAccessCidrs", access.private_access_cidrs)):
        problems += _cidr_problems(f"{prefix}{key}", cidrs, source)
    for index, arn in enumerate(access.admin_principal_arns):
        if not IAM_PRINCIPAL.match(arn):
            problems.append(problem(source, f"{prefix}eksAdminPrincipals[{index}]", "not an IAM role or user ARN",
                                    "use arn:aws:iam::<account>:role/<name>", arn))
    return problems


def _cidr_problems(field: str, cidrs: tuple[str, ...], source: str) -> list[Problem]:
    problems = []
    for index, cidr in enumerate(cidrs):
        try:
            network = ipaddress.ip_network(cidr, strict=True)
        except ValueError as error:
            problems.append(problem(source, f"{field}[{index}]", str(error), "use a CIDR such as 203.0.113.0/24",
                                    cidr))
            continue
        if network.version != 4:
            problems.append(problem(source, f"{field}[{index}]", "EKS endpoint access takes IPv4 CIDRs",
                                    "use an IPv4 CIDR", cidr))
        elif network.prefixlen == 0:
            problems.append(problem(source, f"{field}[{index}]", "opens the Kubernetes API to every address",
                                    "list only your office, VPN or runner ranges", cidr))
    return problems


def _string_list(value: Any, field: str, source: str, problems: list[Problem]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        key = field.rsplit(":", 1)[-1]
        problems.append(problem(source, field, "must be a list of strings",
                                f"pulumi config set --path 'accelfit:{key}[0]' <value>", value))
        return ()
    return tuple(value)


def read_cluster_access(get: Callable[[str], Any], source: str = SOURCE, prefix: str = PREFIX, *,
                        complete: bool = True) -> tuple[ClusterAccess, list[Problem]]:
    """The settings as `get(key)` gives them (text, or the list the stack file holds), and every problem at once;
    `complete` as `access_problems`."""
    problems: list[Problem] = []
    endpoint = get("eksEndpointAccess")
    access = ClusterAccess(
        endpoint_access=endpoint or "public",
        public_access_cidrs=_string_list(get("eksPublicAccessCidrs"), f"{prefix}eksPublicAccessCidrs", source,
                                         problems),
        private_access_cidrs=_string_list(get("eksPrivateAccessCidrs"), f"{prefix}eksPrivateAccessCidrs", source,
                                          problems),
        admin_principal_arns=_string_list(get("eksAdminPrincipals"), f"{prefix}eksAdminPrincipals", source,
                                          problems))
    return access, problems + access_problems(access, source, prefix, complete=complete)
