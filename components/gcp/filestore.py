"""SharedFilestore: a Filestore NFS share on the VPC, for plans that need a shared POSIX file system."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import filestore

from accelfit.errors import InputError, problem
from accelfit.planner.costing.filestore_capacity import capacity_fix, capacity_problem
from accelfit.cloudrules.gcp.names import KEEP_EXISTING_NAME, fitted_name

# Tiers that are regional take a region as their location; the others a zone.
# https://cloud.google.com/filestore/docs/service-tiers
REGIONAL_TIERS = ("REGIONAL", "ENTERPRISE")


@dataclass(frozen=True)
class SharedFilestoreArgs:
    tier: str
    capacity_gib: int
    network: pulumi.Input[str]
    """VPC name (Filestore takes the name, not the self link)."""
    region: str
    zone: str
    share_name: str = "shared"
    protect: bool = False
    """Filestore deletion protection and Pulumi `protect` (prod)."""
    labels: dict[str, str] = field(default_factory=dict)


class SharedFilestore(pulumi.ComponentResource):
    instance: filestore.Instance

    def __init__(self, name: str, args: SharedFilestoreArgs, opts: pulumi.ResourceOptions | None = None):
        reason = capacity_problem(args.tier, args.capacity_gib)
        if reason:
            raise InputError([problem(f"SharedFilestore {name}", "capacity_gib", reason,
                                      capacity_fix(args.tier, args.capacity_gib), args.capacity_gib)])
        super().__init__("accelfit:gcp:SharedFilestore", name, None, opts)
        self.instance = filestore.Instance(
            # Explicit, fitted name: auto-naming could pass the 63-character limit (accelfit/cloudrules/gcp/names.py).
            f"{name}-filestore", name=fitted_name("filestore_instance", f"{name}-filestore"), tier=args.tier,
            location=args.region if args.tier in REGIONAL_TIERS else args.zone,
            file_shares=filestore.InstanceFileSharesArgs(name=args.share_name, capacity_gb=args.capacity_gib),
            networks=[filestore.InstanceNetworkArgs(network=args.network, modes=["MODE_IPV4"],
                                                    connect_mode="DIRECT_PEERING")],
            deletion_protection_enabled=args.protect, labels=args.labels,
            # A name an earlier release's auto-naming gave stays (names.KEEP_EXISTING_NAME).
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect, ignore_changes=list(KEEP_EXISTING_NAME)))

        self.register_outputs({"instance_name": self.instance.name, "share": args.share_name})
