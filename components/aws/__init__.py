"""AWS components: VPC, EKS with GPU managed node groups (NVIDIA AMI, EFA, placement groups, spot and
reservations), S3 and FSx for Lustre.

`build(plan, ownership)` is what the Pulumi program calls for an eks-gpu plan; the components can also be
composed by hand (each takes a typed frozen args object). Importing this package imports `pulumi_aws` and
never `pulumi_gcp`.

By hand, in your own program (every argument is checked before anything is created):

    network = AwsNetwork("lab", AwsNetworkArgs(region="us-west-2", zones=("us-west-2a", "us-west-2b")))
    ManagedNodeGroup("lab-a100", ManagedNodeGroupArgs(
        cluster_name=my_cluster.name, node_role_arn=my_node_role.arn,
        subnet_ids=[network.private_subnet_ids["us-west-2a"]],          # one zone for EFA
        security_group_ids=[network.node_security_group_id, my_cluster.vpc_config.cluster_security_group_id],
        instance_type="p4d.24xlarge", min_size=0, max_size=4, desired_size=0,
        efa_interfaces=4, placement_group=True,
        taints=(NodeTaint("nvidia.com/gpu", "present", "NoSchedule"),)))
"""

from __future__ import annotations

from accelfit.catalog import Catalog, load_catalog
from accelfit.cloudrules.aws.plan_checks import validate_eks_plan
from accelfit.errors import InputError
from accelfit.planner.model import Plan
from components.aws.cluster_access import ClusterAccess, read_cluster_access
from components.aws.data_bucket import DataBucket, DataBucketArgs
from components.aws.eks_cluster import EksCluster, EksClusterArgs
from components.aws.eks_roles import EksRoles, EksRolesArgs
from components.aws.lustre import LustreFileSystem, LustreFileSystemArgs
from components.aws.network import AwsNetwork, AwsNetworkArgs
from components.aws.node_group import ManagedNodeGroup, ManagedNodeGroupArgs, NodeTaint
from components.aws.stack import EksGpuStack, EksGpuStackArgs
from components.aws.workload_identity import WorkloadIdentity, WorkloadIdentityArgs
from components.aws.zone_offerings import account_zone_ids, zone_offering_problems
from components.common import Ownership

__all__ = [
    "AwsNetwork", "ClusterAccess", "AwsNetworkArgs", "DataBucket", "DataBucketArgs", "EksCluster", "EksClusterArgs",
    "EksGpuStack",
    "EksGpuStackArgs", "EksRoles", "EksRolesArgs", "LustreFileSystem", "LustreFileSystemArgs", "ManagedNodeGroup",
    "ManagedNodeGroupArgs", "NodeTaint", "WorkloadIdentity", "WorkloadIdentityArgs", "build", "validate_eks_plan",
]


def build(plan: Plan, ownership: Ownership, catalog: Catalog | None = None,
          access: ClusterAccess | None = None) -> EksGpuStack:
    """Create everything an eks-gpu plan needs; the component is named after the workload.

    Raises accelfit.errors.InputError (field paths into the plan) before creating anything when the plan
    cannot be built: an instance type missing from the region, EFA on a type without it, spot in a
    reservation, a multi-zone EFA pool, an FSx size AWS does not offer... `access` None reads the API access
    from stack config (accelfit:eksPublicAccessCidrs, eksAdminPrincipals, eksEndpointAccess, eksPrivateAccessCidrs).
    """
    catalog = catalog if catalog is not None else load_catalog()
    problems = validate_eks_plan(plan, catalog)  # the plan first: its problems say to plan again
    if not problems:
        problems = zone_offering_problems(plan, account_zone_ids(tuple(plan.zones), plan.region), catalog)
    if problems:
        raise InputError(problems)
    return EksGpuStack(plan.workload, EksGpuStackArgs(
        plan=plan, ownership=ownership, catalog=catalog,
        access=access if access is not None else read_cluster_access()))
