"""AWS: EKS GPU node groups and EC2 GPU VMs; no TPUs."""

from __future__ import annotations

from accelfit.clouds.cloud import Cloud


def zones_of_region(region: str) -> tuple[str, ...]:
    """A GPU pool's zones when the availability data lists only the region: the region's first two (EKS needs
    subnets in two Availability Zones, docs.aws.amazon.com/eks/latest/userguide/network-reqs.html)."""
    return (f"{region}a", f"{region}b")

CLOUD = Cloud(
    name="aws",
    title="AWS",
    platforms=("eks-gpu", "ec2-gpu-vm"),
    cluster_platform="eks-gpu",
    cluster_kind="eks",
    vm_platform="ec2-gpu-vm",
    server_platforms=("eks-gpu",),
    catalog_files=("instances_aws.yaml", "prices_aws.yaml"),
    priced_resource_types=(
        "aws:eks/nodeGroup:NodeGroup", "aws:eks/cluster:Cluster", "aws:ec2/natGateway:NatGateway",
        "aws:s3/bucket:Bucket", "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:ec2/instance:Instance",
    ),
    pricer_module="accelfit.pricing.pricers.aws",
    template_resource_types=("aws:ec2/launchTemplate:LaunchTemplate",),
    component_builders="components.build:AWS_BUILDERS",
    preflight_reader="accelfit.preflight.aws:AwsReader",
    provider_config_check="accelfit.cloudrules.aws.provider_config:provider_problems",
    provider_config_keys=("aws:region",),
    plan_check="accelfit.cloudrules.aws.plan_checks:plan_problems",
    system_pool_machine="m6i.xlarge",
    shared_cluster_parts=("EKS control plane", "VPC, subnets + NAT gateways (one per zone)", "system node group",
                          "Kueue and the GPU add-ons"),
    availability_row_check="accelfit.catalog.aws_rows:availability_source_problems",
    storage_schemes=("s3",),
    cluster_fee_service="eks-cluster",
    bucket_service="s3-standard",
    node_disk_service="ebs-gp3",  # the launch template's gp3 root volume (components/aws/node_group.py)
    shared_filesystem="fsx-lustre",
    nat_per_zone=True,
    zones_of_region=zones_of_region,
    cluster_needs_two_zones=True,
    multi_node_network="efa",
    pools_per_cluster="node groups per EKS cluster (a quota)",
    capacity_groups="node-label",
    node_pool_kind="managed node groups",
    zone_suffix=r"[a-z]\Z",
    # A reservation (a Capacity Block too) is named by its EC2 Capacity Reservation id, `cr-` and its identifier
    # (API_CapacityReservation.html: CapacityReservationId); EC2 resource ids carry 17 characters after the hyphen,
    # 8 in ids made before 2016-2018 (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html).
    reservation_name_pattern=r"cr-[0-9a-f]{8}([0-9a-f]{9})?\Z",
    reservation_name_rule="an EC2 Capacity Reservation id; give the id (cr- and 8 or 17 hex digits) from "
                          "`aws ec2 describe-capacity-reservations`",
    vm_network_spans_zones=True,
    gpu_quota="the region's EC2 On-Demand (or Spot) vCPU quota for this instance family",
    vm_access="SSM Session Manager (`aws ssm start-session`)",
    serving_gateway="nginx-gateway-fabric",
    cluster_version_field="eks_version",
    example_region="us-east-1",
    region_key="aws:region",
    stack_keys="accelfit.stackkeys:AWS_KEYS",
    provider_title="AWS",
    serving_metrics="in-cluster-prometheus",
    gpu_software="gpu-operator",
    vm_spot_recovery=("it stops (keeping its root volume) and EC2 restarts it when capacity returns (a persistent "
                      "Spot request)"),
    unsupported=(("tpu", "TPUs are Google Cloud's; AWS sells none"),),
    pod_identity_association=True,
    registry_auth="ecr",
)
