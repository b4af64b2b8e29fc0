"""ManagedNodeGroup: one EKS managed node group with its own launch template (and placement group for EFA).

The launch template carries what the node group API cannot: IMDSv2 required, an encrypted gp3 root volume,
local NVMe striped as scratch, EFA interfaces (one per network card, in the layout data/efa_layouts.yaml gives
the type), the cluster placement group, and the capacity reservation or Capacity Block to launch into. The NVIDIA
accelerated AMI type comes with drivers, the container toolkit and the EFA software preinstalled, so no image id
or bootstrap script is given.

Capacity Blocks: the launch template carries the instance type and the node group names none; EKS rejects any
other combination (https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html).

Scaling: a group the Cluster Autoscaler manages gets node-template tags on its Auto Scaling group (labels, taints,
EFA and ephemeral-storage), so the autoscaler can scale it up from zero nodes
(kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "Auto-Discovery Setup"). EKS does not copy
node group tags to the Auto Scaling group, so they are set on it directly, as terraform-aws-eks does
(modules/eks-managed-node-group, `aws_autoscaling_group_tag`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws

from accelfit.errors import Problem
from components.aws.checks import args_problem, raise_if_any
from accelfit.cloudrules.aws.efa import efa_interfaces
from accelfit.cloudrules.aws.instance_rules import capacity_block_findings, efa_findings, efa_layouts
from components.aws.node_settings import ami_type, capacity_type, scratch_user_data_base64, taint_effect
from components.common import child_name

_COMPONENT = "ManagedNodeGroup"

# Root device of the AL2023 EKS AMIs (https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html).
ROOT_DEVICE = "/dev/xvda"
# Containers are one network hop from the instance, so a hop limit of 1 keeps pods away from the node role's
# credentials; pods get their own through EKS Pod Identity
# (https://docs.aws.amazon.com/eks/latest/best-practices/identity-and-access-management.html#_restrict_access_to_the_instance_profile_assigned_to_the_worker_node).
IMDS_HOP_LIMIT = 1
# On-Demand Capacity Reservation and Capacity Block ids (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityReservation.html).
_RESERVATION_ID = re.compile(r"cr-[0-9a-f]{8,17}")
# Smallest root volume the EKS accelerated AMIs boot from comfortably (images are tens of GB).
_MIN_ROOT_GB = 50


@dataclass(frozen=True)
class NodeTaint:
    key: str
    value: str
    effect: str = field(metadata={"doc": "Kubernetes spelling: NoSchedule, PreferNoSchedule or NoExecute."})


@dataclass(frozen=True)
class ManagedNodeGroupArgs:
    cluster_name: pulumi.Input[str]
    node_role_arn: pulumi.Input[str]
    subnet_ids: Sequence[pulumi.Input[str]] = field(metadata={"doc": "Private subnets; exactly one for EFA."})
    security_group_ids: Sequence[pulumi.Input[str]] = field(
        metadata={"doc": "Node security group and the EKS cluster security group."})
    instance_type: str
    min_size: int
    max_size: int
    desired_size: int
    accelerated: bool = field(default=True, metadata={"doc": "GPU nodes: use the NVIDIA accelerated AMI."})
    spot: bool = False
    capacity_reservation_id: str | None = field(
        default=None, metadata={"doc": "On-Demand Capacity Reservation or Capacity Block (cr-...) to launch into."})
    capacity_block: bool = field(default=False, metadata={"doc": "The reservation is an ML Capacity Block."})
    avoid_reservations: bool = field(default=False, metadata={
        "doc": "Never launch into a Capacity Reservation (preference none): a standby group of a plan on one."})
    taints: tuple[NodeTaint, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    efa_interfaces: int = field(default=0, metadata={"doc": "EFA interfaces per node, one per network card."})
    placement_group: bool = field(default=False, metadata={"doc": "Launch into a new cluster placement group."})
    root_volume_gb: int = 200
    local_nvme_scratch: bool = field(default=False, metadata={"doc": "Stripe instance-store NVMe as scratch."})
    local_nvme_gb: float = field(default=0, metadata={"doc": "Instance-store NVMe of the type, GB (scratch size)."})
    autoscaled: bool = field(default=False, metadata={"doc": "The Cluster Autoscaler manages this group's size."})
    scheduled: bool = field(default=False, metadata={
        "doc": "Scheduled actions own the group's min and max (components/aws/schedule.py): part-day serving."})
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None


def validate_node_group_args(args: ManagedNodeGroupArgs) -> list[Problem]:
    problems: list[Problem] = []

    def bad(field_name: str, message: str, fix: str, *value: object) -> None:
        problems.append(args_problem(_COMPONENT, field_name, message, fix, *value))

    if not args.instance_type:
        bad("instance_type", "no instance type", "set an EC2 instance type such as p5.48xlarge")
    if args.max_size < 1:
        bad("max_size", "a node group needs max_size >= 1", "raise max_size", args.max_size)
    if not 0 <= args.min_size <= args.desired_size <= args.max_size:
        bad("desired_size", "sizes must satisfy 0 <= min_size <= desired_size <= max_size",
            "reorder the sizes", (args.min_size, args.desired_size, args.max_size))
    if not args.subnet_ids:
        bad("subnet_ids", "no subnets", "pass the private subnet(s) the nodes run in")
    problems += _reservation_problems(args)
    if (args.efa_interfaces or args.placement_group) and len(args.subnet_ids) != 1:
        bad("subnet_ids", "EFA and cluster placement groups work within one availability zone",
            "pass exactly one subnet", len(args.subnet_ids))
    if args.efa_interfaces < 0:
        bad("efa_interfaces", "must be >= 0", "use 0 for no EFA", args.efa_interfaces)
    else:
        for field_name, message, fix, value in (
                efa_findings(args.instance_type, args.efa_interfaces)
                + capacity_block_findings(args.instance_type, args.capacity_block, args.spot,
                                          args.capacity_reservation_id)):
            bad(field_name, message, fix, value)
    if args.root_volume_gb < _MIN_ROOT_GB:
        bad("root_volume_gb", f"the accelerated AMI needs at least {_MIN_ROOT_GB} GB", f"use {_MIN_ROOT_GB} or more",
            args.root_volume_gb)
    for index, taint in enumerate(args.taints):
        try:
            taint_effect(taint.effect)
        except KeyError:
            bad(f"taints[{index}].effect", "unknown taint effect", "use NoSchedule, PreferNoSchedule or NoExecute",
                taint.effect)
    return problems


def _reservation_problems(args: ManagedNodeGroupArgs) -> list[Problem]:
    """The capacity reservation or Capacity Block the group launches into, or avoids."""
    reservation = args.capacity_reservation_id
    found: list[Problem] = []
    if args.spot and reservation:
        found.append(args_problem(_COMPONENT, "capacity_reservation_id", "Spot Instances cannot launch into a capacity "
                                  "reservation (reservations hold On-Demand capacity)",
                                  "drop spot or drop the reservation", reservation))
    if args.avoid_reservations and (reservation or args.capacity_block):
        found.append(args_problem(_COMPONENT, "avoid_reservations", "a node group cannot both launch into and avoid "
                                  "a capacity reservation", "drop the reservation or avoid_reservations", reservation))
    if args.capacity_block and not reservation:
        found.append(args_problem(_COMPONENT, "capacity_block", "a Capacity Block node group needs the reservation id "
                                  "of the block", "set capacity_reservation_id to the block's cr-... id"))
    if reservation and not _RESERVATION_ID.fullmatch(reservation):
        found.append(args_problem(_COMPONENT, "capacity_reservation_id", "not a capacity reservation id",
                                  "use the id, e.g. cr-0123456789abcdef0", reservation))
    return found


class ManagedNodeGroup(pulumi.ComponentResource):
    node_group_name: pulumi.Output[str]
    launch_template_id: pulumi.Output[str]
    placement_group_name: pulumi.Output[str] | None
    """The cluster placement group, when the pool asked for one."""

    def __init__(self, name: str, args: ManagedNodeGroupArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_node_group_args(args))
        super().__init__("accelfit:aws:ManagedNodeGroup", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)

        placement = None
        if args.placement_group:
            # "cluster" packs instances close together in one zone for low-latency, high-throughput links
            # (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html#placement-groups-cluster).
            placement = aws.ec2.PlacementGroup(child_name(name, "pg"), strategy="cluster", region=args.region,
                                               tags=tags, opts=child)

        interfaces = efa_interfaces(args.efa_interfaces, efa_layouts()[args.instance_type].layout) \
            if args.efa_interfaces else ()
        security_groups = list(args.security_group_ids)
        template = aws.ec2.LaunchTemplate(
            child_name(name, "lt"),
            description=f"accelfit {name}: {args.instance_type}",
            # Capacity Blocks: the type goes here and nowhere else (capacity-blocks-mng.html).
            instance_type=args.instance_type if args.capacity_block else None,
            update_default_version=True,
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=IMDS_HOP_LIMIT),
            block_device_mappings=[aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=ROOT_DEVICE, ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=args.root_volume_gb, volume_type="gp3", encrypted="true",
                    delete_on_termination="true"))],
            # With EFA the security groups go on the interfaces; a template may not set both
            # (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-instance).
            network_interfaces=[aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                network_card_index=interface.network_card_index, device_index=interface.device_index,
                interface_type=interface.interface_type, security_groups=security_groups,
                delete_on_termination="true") for interface in interfaces] or None,
            vpc_security_group_ids=None if interfaces else security_groups,
            placement=aws.ec2.LaunchTemplatePlacementArgs(group_name=placement.name) if placement else None,
            capacity_reservation_specification=_capacity_reservation(args),
            # https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html
            instance_market_options=aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")
            if args.capacity_block else None,
            user_data=scratch_user_data_base64() if args.local_nvme_scratch else None,
            # The template's own tags do not reach instances; tag specifications do (tagging policy).
            tag_specifications=[aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=tags)
                                for kind in ("instance", "volume", "network-interface")],
            region=args.region, tags=tags, opts=child)

        group = aws.eks.NodeGroup(
            child_name(name, "ng"),
            cluster_name=args.cluster_name,
            node_role_arn=args.node_role_arn,
            subnet_ids=list(args.subnet_ids),
            instance_types=None if args.capacity_block else [args.instance_type],
            ami_type=ami_type(args.instance_type, args.accelerated),
            capacity_type=capacity_type(args.spot, args.capacity_block),
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=args.min_size, max_size=args.max_size, desired_size=args.desired_size),
            # One node at a time: GPU nodes are few and expensive to drain.
            update_config=aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            labels=dict(args.labels) or None,
            taints=[aws.eks.NodeGroupTaintArgs(key=taint.key, value=taint.value, effect=taint_effect(taint.effect))
                    for taint in args.taints] or None,
            # The launch template version is a string input (reference/pulumi.md P8).
            launch_template=aws.eks.NodeGroupLaunchTemplateArgs(id=template.id,
                                                                version=template.latest_version.apply(str)),
            region=args.region, tags=tags,
            # The cluster autoscaler moves desiredSize; do not fight it on the next update. A scheduled group's
            # min and max belong to its scheduled actions: an update at night must not bring the nodes back.
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["scalingConfig.desiredSize"] + (
                ["scalingConfig.minSize", "scalingConfig.maxSize"] if args.scheduled else [])))

        if args.autoscaled:
            self._autoscaler_tags(name, args, group)

        self.node_group_name = group.node_group_name
        # The Auto Scaling group EKS made for the group: scheduled scaling acts on it (components/aws/schedule.py).
        self.autoscaling_group_name = group.resources.apply(_first_autoscaling_group)
        self.launch_template_id = template.id
        self.placement_group_name = placement.name if placement else None
        self.register_outputs({"node_group_name": self.node_group_name, "launch_template_id": self.launch_template_id,
                               "placement_group_name": self.placement_group_name})

    def _autoscaler_tags(self, name: str, args: ManagedNodeGroupArgs, group: aws.eks.NodeGroup) -> None:
        """Node-template tags on the group's Auto Scaling group, one `autoscaling.Tag` each."""
        asg_name = group.resources.apply(_first_autoscaling_group)
        tags: dict[str, pulumi.Input[str]] = dict(node_template_tags(args))
        # Kueue flavors select a pool's nodes by this label, which EKS sets on every node of the group; at zero nodes
        # the autoscaler knows it only from DescribeNodegroup (after a restart) or from this tag.
        tags[f"{TEMPLATE_PREFIX}/label/{EKS_NODEGROUP_LABEL}"] = group.node_group_name
        for key, value in tags.items():
            slug = re.sub(r"[^a-z0-9]+", "-", key[len(TEMPLATE_PREFIX) + 1:].lower()).strip("-")
            aws.autoscaling.Tag(
                child_name(name, f"asg-{slug}"),
                autoscaling_group_name=asg_name,
                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                region=args.region, opts=pulumi.ResourceOptions(parent=self))


def _capacity_reservation(args: ManagedNodeGroupArgs
                          ) -> aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs | None:
    """The reservation the instances launch into (its id), none at all (`avoid_reservations`: preference `none`,
    "The instance avoids running in a Capacity Reservation even if one is available. The instance runs in On-Demand
    capacity", https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateCapacityReservationSpecificationRequest.html),
    or EC2's default (`open`: any open reservation that matches)."""
    if args.capacity_reservation_id:
        return aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
            capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                capacity_reservation_id=args.capacity_reservation_id))
    if args.avoid_reservations:
        return aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(capacity_reservation_preference="none")
    return None


TEMPLATE_PREFIX = "k8s.io/cluster-autoscaler/node-template"
EKS_NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"


def node_template_tags(args: ManagedNodeGroupArgs) -> dict[str, str]:
    """What the Cluster Autoscaler reads from an Auto Scaling group at zero nodes: labels, taints and the
    resources its instance-type table lacks (EFA devices, ephemeral storage). GPUs, vCPUs and memory it knows
    from the instance type itself."""
    tags = {f"{TEMPLATE_PREFIX}/label/{key}": value for key, value in sorted(args.labels.items())}
    tags |= {f"{TEMPLATE_PREFIX}/taint/{taint.key}": f"{taint.value}:{taint.effect}" for taint in args.taints}
    if args.efa_interfaces:
        tags[f"{TEMPLATE_PREFIX}/resources/vpc.amazonaws.com/efa"] = str(args.efa_interfaces)
    scratch_gb = int(args.local_nvme_gb) if args.local_nvme_scratch and args.local_nvme_gb else args.root_volume_gb
    tags[f"{TEMPLATE_PREFIX}/resources/ephemeral-storage"] = f"{scratch_gb}G"
    return tags


def _first_autoscaling_group(resources: list[Any]) -> str:
    """The Auto Scaling group EKS made for the node group (a managed node group has exactly one)."""
    first = resources[0]
    groups = first["autoscaling_groups"] if isinstance(first, dict) else first.autoscaling_groups
    group = groups[0]
    return str(group["name"] if isinstance(group, dict) else group.name)
