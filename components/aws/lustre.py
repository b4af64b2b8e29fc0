"""LustreFileSystem: FSx for Lustre next to the GPU nodes, linked to the data bucket.

PERSISTENT_2 (the current generation: SSD, per-unit throughput, data repository associations). The bucket is
linked through a data repository association: objects appear as files on first access (lazy load) and new or
changed files are exported back, so checkpoints written to /data reach S3. Only Lustre ports are open, and
only to the nodes' security group; the clients' groups in turn admit the Lustre ports from the file system's
group (AWS lists both directions:
https://docs.aws.amazon.com/fsx/latest/LustreGuide/limit-access-security-groups.html#lustre-client-inbound-outbound-rules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from accelfit.errors import Problem
from components.aws.checks import args_problem, raise_if_any
from accelfit.cloudrules.aws.fsx_sizes import PERSISTENT_2_THROUGHPUTS, nearest_valid_capacity_gib, valid_capacity_gib
from components.common import child_name

_COMPONENT = "LustreFileSystem"

# Lustre traffic: TCP 988 and 1018-1023 (https://docs.aws.amazon.com/fsx/latest/LustreGuide/limit-access-security-groups.html).
LUSTRE_PORTS = ((988, 988), (1018, 1023))
MOUNT_PATH = "/data"
LUSTRE_VERSION = "2.15"  # the newest Lustre FSx offers, the version of the AL2023 Lustre client


@dataclass(frozen=True)
class LustreFileSystemArgs:
    vpc_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str] = field(metadata={"doc": "One private subnet, in the GPU nodes' zone."})
    client_security_group_ids: Sequence[pulumi.Input[str]] = field(
        metadata={"doc": "Security groups of the nodes that mount it."})
    capacity_gib: int
    throughput_mbps_per_tib: int
    bucket_name: pulumi.Input[str] | None = field(default=None, metadata={"doc": "Bucket to link, or None."})
    bucket_prefix: str = field(default="", metadata={"doc": "Bucket prefix to link, e.g. datasets/."})
    protect: bool = False
    tags: Mapping[str, str] = field(default_factory=dict)
    region: str | None = None


def validate_lustre_args(args: LustreFileSystemArgs) -> list[Problem]:
    problems: list[Problem] = []
    if not valid_capacity_gib(args.capacity_gib):
        problems.append(args_problem(_COMPONENT, "capacity_gib",
                                     "FSx for Lustre PERSISTENT_2 takes 1200 GiB or a multiple of 2400 GiB",
                                     f"use {nearest_valid_capacity_gib(args.capacity_gib)}", args.capacity_gib))
    if args.throughput_mbps_per_tib not in PERSISTENT_2_THROUGHPUTS:
        problems.append(args_problem(_COMPONENT, "throughput_mbps_per_tib",
                                     "not a PERSISTENT_2 throughput tier",
                                     f"use one of {', '.join(map(str, PERSISTENT_2_THROUGHPUTS))}",
                                     args.throughput_mbps_per_tib))
    return problems


class LustreFileSystem(pulumi.ComponentResource):
    file_system_id: pulumi.Output[str]
    dns_name: pulumi.Output[str]
    mount_name: pulumi.Output[str]
    security_group_id: pulumi.Output[str]

    def __init__(self, name: str, args: LustreFileSystemArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_lustre_args(args))
        super().__init__("accelfit:aws:LustreFileSystem", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        clients = list(args.client_security_group_ids)

        # Lustre servers also talk to each other on these ports, hence `self`.
        rules = [aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=low, to_port=high, self=True,
                                                  security_groups=clients, description="Lustre")
                 for low, high in LUSTRE_PORTS]
        group = aws.ec2.SecurityGroup(
            child_name(name, "sg"), vpc_id=args.vpc_id, description="FSx for Lustre: Lustre ports from the nodes",
            ingress=rules,
            egress=[aws.ec2.SecurityGroupEgressArgs(protocol="tcp", from_port=low, to_port=high, self=True,
                                                    security_groups=clients, description="Lustre")
                    for low, high in LUSTRE_PORTS],
            region=args.region, tags=tags, opts=child)

        # The return path: Lustre servers open connections to clients on the same ports.
        for index, client in enumerate(clients):
            for low, high in LUSTRE_PORTS:
                aws.vpc.SecurityGroupIngressRule(
                    child_name(name, f"client-{index}-from-fsx-{low}"), security_group_id=client,
                    referenced_security_group_id=group.id, ip_protocol="tcp", from_port=low, to_port=high,
                    description="Lustre from FSx", region=args.region, tags=tags, opts=child)

        file_system = aws.fsx.LustreFileSystem(
            child_name(name, "fs"),
            deployment_type="PERSISTENT_2",
            storage_type="SSD",
            storage_capacity=args.capacity_gib,
            per_unit_storage_throughput=args.throughput_mbps_per_tib,
            # A single string in pulumi-aws 7.51.1 despite the name (reference/pulumi.md P8).
            subnet_ids=args.subnet_id,
            security_group_ids=[group.id],
            file_system_type_version=LUSTRE_VERSION,
            # LZ4 usually shrinks datasets and checkpoints and costs no throughput
            # (https://docs.aws.amazon.com/fsx/latest/LustreGuide/data-compression.html).
            data_compression_type="LZ4",
            copy_tags_to_backups=True,
            region=args.region, tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect))

        if args.bucket_name is not None:
            repository = pulumi.Output.from_input(args.bucket_name).apply(
                lambda bucket: f"s3://{bucket}/{args.bucket_prefix}" if args.bucket_prefix else f"s3://{bucket}")
            aws.fsx.DataRepositoryAssociation(
                child_name(name, "bucket-link"),
                file_system_id=file_system.id,
                file_system_path=MOUNT_PATH,
                data_repository_path=repository,
                batch_import_meta_data_on_create=True,
                s3=aws.fsx.DataRepositoryAssociationS3Args(
                    auto_import_policy=aws.fsx.DataRepositoryAssociationS3AutoImportPolicyArgs(
                        events=["NEW", "CHANGED", "DELETED"]),
                    auto_export_policy=aws.fsx.DataRepositoryAssociationS3AutoExportPolicyArgs(
                        events=["NEW", "CHANGED", "DELETED"])),
                region=args.region, tags=tags, opts=child)

        self.file_system_id = file_system.id
        self.dns_name = file_system.dns_name
        self.mount_name = file_system.mount_name
        self.security_group_id = group.id
        self.register_outputs({"file_system_id": self.file_system_id, "dns_name": self.dns_name,
                               "mount_name": self.mount_name, "security_group_id": self.security_group_id})
