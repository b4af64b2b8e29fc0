"""Ec2GpuVm: one EC2 instance with GPUs for a single-node job without a cluster (platform ec2-gpu-vm).

- Image: the Deep Learning AMI named by its public SSM parameter, resolved by EC2 at launch through the launch
  template's `resolve:ssm:` image id (https://docs.aws.amazon.com/autoscaling/ec2/userguide/using-systems-manager-parameters.html;
  parameter format https://docs.aws.amazon.com/dlami/latest/devguide/find-dlami-id.html), so a newer AMI never
  replaces the running instance on `pulumi up`.
- IMDSv2 required; root volume gp3, encrypted; no public IP, no inbound rule: access through SSM Session Manager
  (the instance role carries AmazonSSMManagedInstanceCore, https://docs.aws.amazon.com/systems-manager/latest/userguide/setup-instance-permissions.html;
  the agent reaches Systems Manager through the network's NAT gateway, outbound HTTPS only).
- Spot: instance market options. autostop_action stop: a persistent request that stops on interruption, which EC2
  restarts when capacity returns ("For a Spot Instance launched by a persistent Spot Instance request: Amazon EC2
  restarts the stopped instance when capacity is available",
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/interruption-behavior.html); the root volume, with the job
  directory and its done marker, is kept, and the job's systemd unit starts it again at boot. An instance the idle
  check stops stays stopped (a persistent request reopens only when the instance is started,
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-request-status.html). delete: a one-time request that
  terminates, which cannot resume, so the planner never offers spot with delete for a job (gpu_vms.job_rejection).
- Autostop: the user data installs the nvidia-smi idle check (components/gpu_vm_script.py), which runs
  `shutdown -h now`; InstanceInitiatedShutdownBehavior (stop | terminate) decides what EC2 does then
  (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/Using_ChangingInstanceInitiatedShutdownBehavior.html).
- Buckets: the instance role may read and write the workload's bucket, and read the code archive training.code
  names (that object only); an image in a private ECR registry is pulled with AmazonEC2ContainerRegistryReadOnly
  (https://docs.aws.amazon.com/AmazonECR/latest/userguide/security-iam-awsmanpol.html).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.clouds.aws import CLOUD as AWS
from accelfit.environments import is_protected
from components.aws.checks import args_problem, raise_if_any
from accelfit.planner.model import Plan
from components.common import Ownership, child_name
from accelfit.spec.job_source import parse_code, parse_image
from components.gpu_vm_script import GpuVmJob, render_startup_script

_COMPONENT = "Ec2GpuVm"
# Root device of the Ubuntu Deep Learning AMIs (Canonical's Ubuntu AMIs boot from /dev/sda1).
ROOT_DEVICE = "/dev/sda1"
# The job may run in containers on the instance, one hop away: they need the role's credentials to reach the bucket.
IMDS_HOP_LIMIT = 2
SSM_CORE_POLICY = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
ECR_READ_POLICY = "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly"


@dataclass(frozen=True)
class Ec2GpuVmArgs:
    instance_type: str
    zone: str
    image: str = field(metadata={"doc": "resolve:ssm:<public parameter> of the Deep Learning AMI."})
    vpc_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    bucket_arn: pulumi.Input[str]
    bucket_name: pulumi.Input[str]
    root_volume_gb: int
    autostop_idle_minutes: int
    autostop_action: str = "stop"
    spot: bool = False
    job: GpuVmJob = field(default_factory=GpuVmJob)
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None


def validate_ec2_gpu_vm_args(args: Ec2GpuVmArgs) -> None:
    problems = []
    if not args.image.startswith("resolve:ssm:/"):
        problems.append(args_problem(_COMPONENT, "image", "expected resolve:ssm:/<public parameter>",
                                     "name the Deep Learning AMI by its SSM parameter", args.image))
    if args.autostop_action not in ("stop", "delete"):
        problems.append(args_problem(_COMPONENT, "autostop_action", "must be stop or delete", "set stop or delete",
                                     args.autostop_action))
    if args.autostop_idle_minutes < 5:
        problems.append(args_problem(_COMPONENT, "autostop_idle_minutes", "below 5 minutes a booting job looks idle",
                                     "use 5 or more", args.autostop_idle_minutes))
    if args.root_volume_gb < 75:
        problems.append(args_problem(_COMPONENT, "root_volume_gb", "the Deep Learning AMI's snapshot needs 75 GB or "
                                     "more", "use 75 or more", args.root_volume_gb))
    raise_if_any(problems)


def _bucket_policy(bucket_arn: str, code_url: str | None = None) -> str:
    """Read and write the workload's bucket; read the code archive (s3://BUCKET/KEY) when the job has one."""
    statements = [
        {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetBucketLocation"], "Resource": bucket_arn},
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
         "Resource": f"{bucket_arn}/*"}]
    if code_url is not None:
        statements.append({"Effect": "Allow", "Action": ["s3:GetObject"],
                           "Resource": f"arn:aws:s3:::{code_url.removeprefix('s3://')}"})
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


class Ec2GpuVm(pulumi.ComponentResource):
    instance: aws.ec2.Instance

    def __init__(self, name: str, args: Ec2GpuVmArgs, opts: pulumi.ResourceOptions | None = None):
        validate_ec2_gpu_vm_args(args)
        super().__init__("accelfit:aws:Ec2GpuVm", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        region = args.region

        role = aws.iam.Role(child_name(name, "role"), assume_role_policy=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                     "Principal": {"Service": "ec2.amazonaws.com"}}]}),
                            tags=tags, opts=child)
        aws.iam.RolePolicyAttachment(child_name(name, "ssm"), role=role.name, policy_arn=SSM_CORE_POLICY, opts=child)
        code = parse_code(args.job.code) if args.job.code else None
        code_url = code.url if code is not None and code.scheme == "s3" else None
        aws.iam.RolePolicy(child_name(name, "bucket"), role=role.id,
                           policy=pulumi.Output.from_input(args.bucket_arn).apply(
                               lambda arn: _bucket_policy(arn, code_url)), opts=child)
        if args.job.image and parse_image(args.job.image).cloud == AWS.name:  # this cloud's registry (ECR)
            aws.iam.RolePolicyAttachment(child_name(name, "ecr"), role=role.name, policy_arn=ECR_READ_POLICY,
                                         opts=child)
        profile = aws.iam.InstanceProfile(child_name(name, "profile"), role=role.name, tags=tags, opts=child)
        # No inbound rule: Session Manager needs only outbound HTTPS from the agent.
        group = aws.ec2.SecurityGroup(
            child_name(name, "sg"), vpc_id=args.vpc_id, description="accelfit GPU VM: no inbound, all outbound",
            egress=[aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"])],
            region=region, tags=tags, opts=child)
        imds = dict(http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=IMDS_HOP_LIMIT)
        template = aws.ec2.LaunchTemplate(
            child_name(name, "lt"), image_id=args.image, update_default_version=True,
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(**imds),
            block_device_mappings=[aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=ROOT_DEVICE, ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=args.root_volume_gb, volume_type="gp3", encrypted="true",
                    delete_on_termination="true"))],
            region=region, tags=tags, opts=child)
        delete = args.autostop_action == "delete"
        market = None
        if args.spot:
            market = aws.ec2.InstanceInstanceMarketOptionsArgs(
                market_type="spot", spot_options=aws.ec2.InstanceInstanceMarketOptionsSpotOptionsArgs(
                    spot_instance_type="one-time" if delete else "persistent",
                    instance_interruption_behavior="terminate" if delete else "stop"))
        self.instance = aws.ec2.Instance(
            child_name(name, "vm"), instance_type=args.instance_type, availability_zone=args.zone,
            launch_template=aws.ec2.InstanceLaunchTemplateArgs(id=template.id, version=template.latest_version.apply(str)),
            subnet_id=args.subnet_id, vpc_security_group_ids=[group.id], iam_instance_profile=profile.name,
            associate_public_ip_address=False,
            instance_initiated_shutdown_behavior="terminate" if delete else "stop",
            instance_market_options=market,
            metadata_options=aws.ec2.InstanceMetadataOptionsArgs(**imds),
            root_block_device=aws.ec2.InstanceRootBlockDeviceArgs(volume_size=args.root_volume_gb, volume_type="gp3",
                                                                  encrypted=True, delete_on_termination=True),
            user_data=pulumi.Output.from_input(args.bucket_name).apply(lambda bucket: render_startup_script(
                "aws", args.autostop_idle_minutes, args.autostop_action, args.job, bucket_url=f"s3://{bucket}")),
            tags={**tags, "Name": name, "autostop-idle-minutes": str(args.autostop_idle_minutes),
                  "autostop-action": args.autostop_action},
            region=region, opts=child)
        self.instance_id = self.instance.id
        self.register_outputs({"instance_id": self.instance.id})


class Ec2GpuVmStack(pulumi.ComponentResource):
    """An ec2-gpu-vm plan: the network (private subnets, one NAT gateway in the VM's zone), the data bucket, and
    the VM."""

    def __init__(self, name: str, plan: Plan, ownership: Ownership, opts: pulumi.ResourceOptions | None = None):
        from components.aws.data_bucket import DataBucket, DataBucketArgs
        from components.aws.network import AwsNetwork, AwsNetworkArgs

        vm = plan.gpu_vm
        if vm is None:  # build.py builds this stack only for an ec2-gpu-vm plan, which always has its VM
            raise AssertionError(f"{plan.workload}: an EC2 GPU VM stack built for a plan without a VM")
        super().__init__("accelfit:aws:Ec2GpuVmStack", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = ownership.aws_tags()
        self.network = AwsNetwork(child_name(name, "network"), AwsNetworkArgs(
            region=plan.region, zones=tuple(plan.zones), cidr=plan.network.cidr, tags=tags,
            nat_zones=(vm.zone,)), opts=child)
        storage = plan.storage
        self.bucket = DataBucket(child_name(name, "data"), DataBucketArgs(
            checkpoint_retention_days=storage.checkpoint_retention_days, versioning=storage.bucket_versioning,
            protect=is_protected(plan.environment), tags=tags, region=plan.region), opts=child)
        self.vm = Ec2GpuVm(child_name(name, "gpu"), Ec2GpuVmArgs(
            instance_type=vm.machine_type, zone=vm.zone, image=vm.image, vpc_id=self.network.vpc_id,
            subnet_id=self.network.private_subnet_ids[vm.zone], bucket_arn=self.bucket.bucket_arn,
            bucket_name=self.bucket.bucket_name, root_volume_gb=vm.boot_disk_gb,
            autostop_idle_minutes=vm.autostop_idle_minutes, autostop_action=vm.autostop_action, spot=vm.spot,
            job=GpuVmJob(vm.command, vm.code, vm.container_image), tags=tags, region=plan.region),
            opts=child)
        self.register_outputs({"instance_id": self.vm.instance_id, "bucket_name": self.bucket.bucket_name})
