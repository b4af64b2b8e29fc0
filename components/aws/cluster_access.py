"""Who reaches the EKS API, read from stack config before anything is created. The settings' one reading and check
is accelfit.stackrules.eks_access (which `accelfit check` runs too); this reads them from the program's config.

    pulumi config set --path 'accelfit:eksPublicAccessCidrs[0]' 203.0.113.0/24
    pulumi config set --path 'accelfit:eksAdminPrincipals[0]' arn:aws:iam::111122223333:role/github-deploy
    pulumi config set accelfit:eksEndpointAccess private      # runners inside the VPC
    pulumi config set --path 'accelfit:eksPrivateAccessCidrs[0]' 10.0.0.0/16
"""

from __future__ import annotations

from accelfit.errors import InputError
from accelfit.stackrules.eks_access import SOURCE, ClusterAccess, EndpointAccess, access_problems
from accelfit.stackrules.eks_access import read_cluster_access as read_access

__all__ = ["SOURCE", "ClusterAccess", "EndpointAccess", "access_problems", "read_cluster_access"]


def read_cluster_access() -> ClusterAccess:
    """From the stack's config; every problem reported at once, before any resource."""
    from components.stack_config import stack_value

    access, problems = read_access(stack_value)
    if problems:
        raise InputError(problems)
    return access
