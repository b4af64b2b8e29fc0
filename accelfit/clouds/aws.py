"""AWS: EKS GPU node groups and EC2 GPU VMs; no TPUs."""

from __future__ import annotations

from accelfit.clouds.cloud import Cloud

CLOUD = Cloud(
    name="aws",
    title="AWS",
    platforms=("eks-gpu", "ec2-gpu-vm"),
    cluster_platform="eks-gpu",
    vm_platform="ec2-gpu-vm",
    server_platforms=("eks-gpu",),
    catalog_files=("instances_aws.yaml", "prices_aws.yaml"),
    priced_resource_types=(
        "aws:eks/nodeGroup:NodeGroup", "aws:eks/cluster:Cluster", "aws:ec2/natGateway:NatGateway",
        "aws:s3/bucket:Bucket", "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:ec2/instance:Instance",
    ),
    pricer_module="accelfit.pricing.pricers.aws",
    template_resource_types=("aws:ec2/launchTemplate:LaunchTemplate",),
    preflight_reader="accelfit.preflight.aws:AwsReader",
    buying_models=("capacity-block",),
    storage_schemes=("s3",),
    unsupported=(("tpu", "TPUs are Google Cloud's; AWS sells none"),),
)
