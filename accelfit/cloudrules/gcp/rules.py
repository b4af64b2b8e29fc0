"""Google Cloud rules the SDK types do not carry, as sourced data (data/gke_rules.yaml). Pure: no Pulumi import.

Each row says where it was read and when. `gcp_rules()` loads and validates the file once per process; the
validators in `validation.py` and the components read the rules from here, never from constants in code.
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Literal

from pydantic import Field

from accelfit.catalog.models import Frozen, Sourced
from accelfit.validation import validate
from accelfit.yamlio import read_package_yaml

RULES_FILE = Path(__file__).parent / "data" / "gke_rules.yaml"

NameKind = Literal["container_cluster", "container_node_pool", "compute_firewall", "compute_network",
                   "compute_subnetwork", "compute_router", "compute_router_nat", "iam_service_account_id",
                   "kubernetes_object", "filestore_instance", "compute_instance_group_manager",
                   "compute_base_instance_name"]


class NameLimit(Sourced):
    resource: NameKind
    max_length: int = Field(ge=1)


class BootDiskRule(Sourced):
    family: str = Field(description="Machine family as the catalog spells it, e.g. a3-ultra.")
    allowed: tuple[str, ...] = Field(min_length=1)
    default: str


class GpuDirectLayout(Sourced):
    """The extra networks one GPUDirect flavour needs: N gVNIC VPCs (one subnet each) and optionally one RoCE VPC
    with M subnets (RDMA), with their MTU, firewall, and the names of the Kubernetes Network objects."""

    flavour: Literal["tcpx", "tcpxo", "rdma"]
    families: tuple[str, ...] = Field(min_length=1)
    gvnic_networks: int = Field(ge=0)
    rdma_subnets: int = Field(ge=0)
    gvnic_mtu: int = Field(ge=0)
    rdma_mtu: int = Field(ge=0)
    gvnic_firewall: bool
    k8s_gvnic_names: str = Field(description="Pattern of the Kubernetes Network names, {n} from 1.")
    k8s_rdma_names: str = Field(description="Pattern of the RDMA Network names, {n} from 0; empty = none.")
    max_pods_per_node: int | None = Field(default=None, ge=8)

    @property
    def nics(self) -> int:
        """GPU NICs a node gets beyond its primary one."""
        return self.gvnic_networks + self.rdma_subnets

    def k8s_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(gVNIC network names, RDMA network names) of the Kubernetes Network objects, in NIC order."""
        gvnic = tuple(self.k8s_gvnic_names.format(n=index + 1) for index in range(self.gvnic_networks))
        rdma = tuple(self.k8s_rdma_names.format(n=index) for index in range(self.rdma_subnets))
        return gvnic, rdma


class WebhookPort(Sourced):
    component: str
    port: int = Field(ge=1, le=65535)


class ProjectService(Sourced):
    service: str = Field(pattern=r"^[a-z0-9-]+\.googleapis\.com$")
    needed_for: tuple[Literal["network", "gke", "tpu-vm", "gpu-vm", "filestore", "serving-route"], ...] = Field(min_length=1)


class HostMaintenance(Sourced):
    family: str
    interval: Literal["AS_NEEDED", "PERIODIC"]


class GcpRules(Frozen):
    schema_version: Literal[1]
    as_of: dt.date
    name_limits: tuple[NameLimit, ...]
    boot_disks: tuple[BootDiskRule, ...]
    gpudirect_layouts: tuple[GpuDirectLayout, ...]
    webhook_ports: tuple[WebhookPort, ...]
    project_services: tuple[ProjectService, ...]
    host_maintenance: tuple[HostMaintenance, ...]

    def name_limit(self, kind: NameKind) -> int:
        return next(row.max_length for row in self.name_limits if row.resource == kind)

    def boot_disk(self, family: str) -> BootDiskRule | None:
        return next((row for row in self.boot_disks if row.family == family), None)

    def layout(self, flavour: str) -> GpuDirectLayout | None:
        return next((row for row in self.gpudirect_layouts if row.flavour == flavour), None)

    def host_maintenance_interval(self, family: str) -> str | None:
        return next((row.interval for row in self.host_maintenance if row.family == family), None)

    def services_for(self, features: set[str]) -> tuple[str, ...]:
        return tuple(row.service for row in self.project_services if features & set(row.needed_for))

    def webhook_ports_for(self, components: set[str]) -> tuple[int, ...]:
        return tuple(sorted({row.port for row in self.webhook_ports if row.component in components}))


@functools.cache
def gcp_rules() -> GcpRules:
    return validate(GcpRules, read_package_yaml(RULES_FILE), str(RULES_FILE))
