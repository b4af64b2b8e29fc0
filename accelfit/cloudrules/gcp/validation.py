"""Checks a GCP Plan against itself and the catalog before anything is created. Pure; no Pulumi import.

`plan_problems(plan, catalog)` returns every problem (never just the first), each naming the Plan field, so
`build()` can refuse a bad plan with one InputError (the CLI maps it to exit code 2). The components read the
catalog only to check; they never pick from it.
"""

from __future__ import annotations

import ipaddress
from collections import Counter

from accelfit.catalog.models import Catalog, Cloud
from accelfit.clouds.gcp import CLOUD as GCP
from accelfit.catalog.rows import InstanceType
from accelfit.environments import is_protected
from accelfit.errors import Problem, did_you_mean, join_path, problem
from accelfit.planner.costing import filestore_capacity
from accelfit.planner.model import NodePool, Plan, TpuVmSlice
from accelfit.planner.fleet.provisioning import provisioning_class
from accelfit.clouds.gcp_flex_start import flex_start_placement_rejection, flex_start_rules
from accelfit.cloudrules.gcp import tpu_rules, tpu_runtime
from accelfit.cloudrules.gcp.names import check_name, fitted_name
from accelfit.cloudrules.gcp.node_settings import MANAGED_DRIVER_VERSIONS, gvnic_subnet_cidr, rdma_subnet_cidr
from accelfit.cloudrules.gcp.retention import retention_problem
from accelfit.cloudrules.gcp.rules import GpuDirectLayout, gcp_rules

FILE = "plan"

# GKE GPU sharing limits. https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus
# and https://cloud.google.com/kubernetes-engine/docs/how-to/nvidia-mps-gpus
MAX_SHARED_CLIENTS = {"TIME_SHARING": 48, "MPS": 48}


def region_of(zone: str) -> str:
    """'us-central1-a' -> 'us-central1'."""
    return zone.rsplit("-", 1)[0]


def plan_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    problems: list[Problem] = []
    if _value(plan.cloud) != GCP.name or _value(plan.platform) not in GCP.platforms:
        problems.append(problem(FILE, "platform",
                                "the GCP components build only gke-gpu, gke-tpu, tpu-vm and gce-gpu-vm plans",
                                "build this plan with the components of its cloud", _value(plan.platform)))
        return problems
    problems += _zone_problems("zones", plan.zones, plan.region)
    problems += name_problems(plan)
    problems += network_problems(plan)
    problems += _storage_problems(plan)
    if _value(plan.platform) == "tpu-vm":
        problems += _tpu_vm_problems(plan, catalog)
    elif _value(plan.platform) == "gce-gpu-vm":
        problems += _gpu_vm_problems(plan, catalog)
    else:
        problems += _cluster_problems(plan, catalog)
    return problems


def _gpu_vm_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    """A GPU VM plan: its VM, in a zone of the plan's region that offers the machine type (gpu_availability.yaml)."""
    vm = plan.gpu_vm
    if vm is None:
        return [problem(FILE, "gpu_vm", "a gce-gpu-vm plan needs its VM", "plan the spec again")]
    found = list(_zone_problems("gpu_vm.zone", (vm.zone,), plan.region))
    from accelfit.catalog.models import Cloud

    offered = catalog.offered_zones(Cloud.gcp, vm.machine_type, plan.region)
    if offered and vm.zone not in offered:
        found.append(problem(FILE, "gpu_vm.zone", f"{vm.machine_type} is not offered in {vm.zone}",
                             f"use one of {', '.join(sorted(offered))}", vm.zone))
    return found


def _layout(plan: Plan) -> GpuDirectLayout | None:
    flavour = next((pool.gpudirect for pool in plan.node_pools if pool.gpudirect != "none"), "none")
    return gcp_rules().layout(flavour) if flavour != "none" and plan.network.extra_networks else None


def derived_names(plan: Plan) -> list[tuple[str, str, str]]:
    """(field, name kind, physical name) of every resource whose name grows with the workload name, as the
    components derive them (network.py, gke_cluster.py, gpu_node_pool.py)."""
    net = f"{plan.workload}-net"
    names = [("workload", "compute_network", fitted_name("compute_network", f"{net}-vpc")),
             ("workload", "compute_subnetwork", fitted_name("compute_subnetwork", f"{net}-subnet")),
             ("workload", "compute_router", fitted_name("compute_router", f"{net}-router")),
             ("workload", "compute_router_nat", fitted_name("compute_router_nat", f"{net}-nat"))]
    names += [("workload", "compute_firewall", fitted_name("compute_firewall", f"{net}-{rule}"))
              for rule in ("allow-internal", "allow-health-checks", "allow-iap-ssh")]
    layout = _layout(plan)
    if layout is not None:
        names += [("network.extra_networks", "compute_firewall",
                   fitted_name("compute_firewall", f"{net}-gpu{index}-allow-internal"))
                  for index in range(layout.gvnic_networks)]
        names += [("network.extra_networks", "compute_subnetwork",
                   fitted_name("compute_subnetwork", f"{net}-rdma-subnet{index}"))
                  for index in range(layout.rdma_subnets)]
    if plan.orchestration == "kubernetes":
        gke = f"{plan.workload}-gke"
        names += [("workload", "container_cluster", fitted_name("container_cluster", gke)),
                  ("workload", "compute_firewall", fitted_name("compute_firewall", f"{gke}-allow-webhooks")),
                  ("workload", "container_node_pool", fitted_name("container_node_pool", f"{gke}-system"))]
        names += [(join_path("node_pools", index, "name"), "container_node_pool",
                   fitted_name("container_node_pool", f"{plan.workload}-{pool.name}"))
                  for index, pool in enumerate(plan.node_pools) if pool.role in ("gpu", "tpu")]
    if plan.gpu_vm is not None:
        group = f"{plan.workload}-gpu"  # components/gcp/gpu_vm.py: the VM's managed instance group
        names += [("workload", "compute_instance_group_manager", fitted_name("compute_instance_group_manager", group)),
                  ("workload", "compute_base_instance_name", fitted_name("compute_base_instance_name", group))]
    if plan.storage.shared_filesystem == "filestore":
        names.append(("storage.shared_filesystem", "filestore_instance",
                      fitted_name("filestore_instance", f"{plan.workload}-shared-filestore")))
    return names


def name_problems(plan: Plan) -> list[Problem]:
    """The name-length rule (rules.name_limits) over every name the stack will set."""
    problems: list[Problem] = []
    for field, kind, name in derived_names(plan):
        problems += check_name(FILE, field, kind, name)  # type: ignore[arg-type]
    return problems


def _zone_problems(path: str, zones: tuple[str, ...], region: str) -> list[Problem]:
    return [problem(FILE, join_path(path, index), f"zone is not in the plan's region {region}",
                    f"use a zone of {region}, e.g. {region}-a", zone)
            for index, zone in enumerate(zones) if region_of(zone) != region]


def network_problems(plan: Plan) -> list[Problem]:
    problems: list[Problem] = []
    ranges: dict[str, ipaddress.IPv4Network] = {}
    fields = {"network.cidr": plan.network.cidr, "network.pods_cidr": plan.network.pods_cidr,
              "network.services_cidr": plan.network.services_cidr, "network.master_cidr": plan.network.master_cidr}
    layout = _layout(plan)
    if layout is not None:
        fields.update({f"network.gvnic_networks[{index}]": gvnic_subnet_cidr(index)
                       for index in range(layout.gvnic_networks)})
        fields.update({f"network.rdma_subnets[{index}]": rdma_subnet_cidr(index, layout.rdma_subnets)
                       for index in range(layout.rdma_subnets)})
    for field, cidr in fields.items():
        try:
            ranges[field] = ipaddress.IPv4Network(cidr)
        except ValueError:
            problems.append(problem(FILE, field, "not an IPv4 CIDR range", "write it as e.g. 10.0.0.0/16", cidr))
    master = ranges.get("network.master_cidr")
    if master is not None and master.prefixlen != 28:
        # https://cloud.google.com/kubernetes-engine/docs/how-to/legacy/network-isolation
        problems.append(problem(FILE, "network.master_cidr", "the GKE control plane range must be a /28",
                                "use a free /28 such as 172.16.0.0/28", plan.network.master_cidr))
    names = list(ranges)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if ranges[first].overlaps(ranges[second]):
                problems.append(problem(FILE, second, f"overlaps {first} ({ranges[first]})",
                                        "give every range its own address space", str(ranges[second])))
    return problems


def _storage_problems(plan: Plan) -> list[Problem]:
    storage = plan.storage
    too_short = retention_problem(storage.checkpoint_retention_days)
    if too_short:
        return [problem(FILE, "storage.checkpoint_retention_days", *too_short, storage.checkpoint_retention_days)]
    if storage.shared_filesystem == "fsx-lustre":
        return [problem(FILE, "storage.shared_filesystem", "FSx for Lustre is an AWS service",
                        "use filestore (or none) on Google Cloud", storage.shared_filesystem)]
    if storage.shared_filesystem != "filestore":
        return []
    # Each tier takes sizes in bands and steps (data: accelfit/planner/data/filestore_capacity.yaml).
    reason = filestore_capacity.capacity_problem(storage.filestore_tier, storage.filesystem_capacity_gib)
    if reason:
        fix = filestore_capacity.capacity_fix(storage.filestore_tier, storage.filesystem_capacity_gib)
        return [problem(FILE, "storage.filesystem_capacity_gib", reason, fix, storage.filesystem_capacity_gib)]
    return []


def _cluster_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    problems: list[Problem] = []
    roles: Counter[str] = Counter(pool.role for pool in plan.node_pools)
    if roles["system"] != 1:
        problems.append(problem(FILE, "node_pools", "a GKE plan needs exactly one system pool",
                                "add one pool with role: system (small, no accelerators)", roles["system"]))
    wanted = "gpu" if _value(plan.platform) == "gke-gpu" else "tpu"
    if roles[wanted] == 0:
        problems.append(problem(FILE, "node_pools", f"a {_value(plan.platform)} plan has no {wanted} pool",
                                f"add at least one pool with role: {wanted}"))
    for name, count in Counter(pool.name for pool in plan.node_pools).items():
        if count > 1:
            problems.append(problem(FILE, "node_pools", "two pools share a name; names become resource names",
                                    "give each pool its own name", name))
    for index, pool in enumerate(plan.node_pools):
        path = join_path("node_pools", index)
        problems += _zone_problems(join_path(path, "zones"), pool.zones, plan.region)
        problems += _bounds_problems(path, pool)
        if pool.role == "gpu":
            problems += _gpu_pool_problems(path, pool, plan, catalog)
        elif pool.role == "tpu":
            problems += _tpu_pool_problems(path, pool, catalog)
    return problems


def _bounds_problems(path: str, pool: NodePool) -> list[Problem]:
    if pool.min_nodes <= pool.initial_nodes <= pool.max_nodes:
        return []
    return [problem(FILE, join_path(path, "initial_nodes"), "must lie between min_nodes and max_nodes",
                    f"set min_nodes <= initial_nodes <= max_nodes (now {pool.min_nodes} <= "
                    f"{pool.initial_nodes} <= {pool.max_nodes})", pool.initial_nodes)]


def _gpu_pool_problems(path: str, pool: NodePool, plan: Plan, catalog: Catalog) -> list[Problem]:
    machine = catalog.instance_type(Cloud.gcp, pool.machine_type)
    if machine is None:
        known = [row.name for row in catalog.instance_types_for(Cloud.gcp)]
        close = did_you_mean(pool.machine_type, known)
        problems = [problem(FILE, join_path(path, "machine_type"), "not a GPU machine type the catalog knows",
                            f"use e.g. {close or 'a3-highgpu-8g'}", pool.machine_type)]
    else:
        problems = [*_machine_problems(path, pool, plan, catalog, machine),
                    *_gpudirect_problems(path, pool, plan, machine)]
    return [*problems, *_driver_problems(path, pool, plan), *_placement_problems(path, pool),
            *_flex_start_problems(path, pool, machine.family if machine is not None else "",
                                  queued=provisioning_class(plan, pool) is not None),
            *_sharing_problems(path, pool)]


def _machine_problems(path: str, pool: NodePool, plan: Plan, catalog: Catalog,
                      machine: InstanceType) -> list[Problem]:
    """The machine type against the region, its zones, the boot-disk rules and the pool's GPUs."""
    problems: list[Problem] = []
    if plan.region not in machine.regions:
        problems.append(problem(FILE, join_path(path, "machine_type"),
                                f"{machine.name} is not offered in {plan.region}",
                                f"use one of its regions: {', '.join(machine.regions)}", pool.machine_type))
    offered = catalog.offered_zones(Cloud.gcp, machine.name, plan.region)
    if offered:  # None: not offered in the region (reported above); (): the data lists no zones there
        # accelfit/catalog/data/gpu_availability.yaml (zones per machine type and region, with their source)
        problems += [problem(FILE, join_path(path, "zones", index),
                             f"{machine.name} is not offered in {zone}",
                             f"use one of {', '.join(offered)}", zone)
                     for index, zone in enumerate(pool.zones) if zone not in offered]
    if gcp_rules().boot_disk(machine.family) is None:
        problems.append(problem(FILE, join_path(path, "machine_type"),
                                f"no boot-disk rule for the {machine.family} family",
                                "add the family's boot disk types to accelfit/cloudrules/gcp/data/gke_rules.yaml "
                                "with their source", pool.machine_type))
    if pool.accelerator is None or _canonical(catalog, pool.accelerator) != machine.accelerator:
        problems.append(problem(FILE, join_path(path, "accelerator"),
                                f"{machine.name} holds {machine.accelerator} GPUs only",
                                f"use {machine.accelerator}, or a machine family that holds "
                                f"{pool.accelerator}", pool.accelerator))
    if pool.gke_accelerator != machine.gke_accelerator:
        problems.append(problem(FILE, join_path(path, "gke_accelerator"),
                                f"{machine.name} carries {machine.gke_accelerator}",
                                f"set gke_accelerator: {machine.gke_accelerator}", pool.gke_accelerator))
    if pool.accelerators_per_node != machine.accelerator_count:
        problems.append(problem(FILE, join_path(path, "accelerators_per_node"),
                                f"{machine.name} has exactly {machine.accelerator_count} GPUs",
                                f"set {machine.accelerator_count}", pool.accelerators_per_node))
    return problems


def _gpudirect_problems(path: str, pool: NodePool, plan: Plan, machine: InstanceType) -> list[Problem]:
    """GPUDirect: what the machine supports, a sourced network layout for it, and its networks and zone."""
    if pool.gpudirect == "none":
        return []
    problems: list[Problem] = []
    if pool.gpudirect != machine.gpudirect:
        problems.append(problem(FILE, join_path(path, "gpudirect"),
                                f"{machine.name} supports GPUDirect {machine.gpudirect}",
                                f"set gpudirect: {machine.gpudirect} or none", pool.gpudirect))
    layout = gcp_rules().layout(pool.gpudirect)
    if layout is None:
        problems.append(problem(FILE, join_path(path, "gpudirect"),
                                f"no network layout for GPUDirect {pool.gpudirect}",
                                "add it to accelfit/cloudrules/gcp/data/gke_rules.yaml with its source, or set "
                                "none",
                                pool.gpudirect))
    elif layout.rdma_subnets and len(pool.zones) != 1:
        # https://cloud.google.com/vpc/docs/rdma-network-profiles (one profile per zone)
        problems.append(problem(FILE, join_path(path, "zones"),
                                "RDMA NICs attach to a RoCE VPC of one zone's network profile",
                                "give the GPUDirect pool exactly one zone", list(pool.zones)))
    if plan.network.extra_networks < machine.extra_networks:
        problems.append(problem(FILE, "network.extra_networks",
                                f"GPUDirect on {machine.name} needs {machine.extra_networks} extra networks",
                                f"set network.extra_networks: {machine.extra_networks}",
                                plan.network.extra_networks))
    return problems


def _driver_problems(path: str, pool: NodePool, plan: Plan) -> list[Problem]:
    if pool.driver_version is None:
        return [problem(FILE, join_path(path, "driver_version"), "GPU pools need a driver version",
                        "set DEFAULT (GKE's tested driver), LATEST (not in prod) or a pinned version")]
    if pool.driver_version.upper() == "LATEST" and is_protected(plan.environment):
        return [problem(FILE, join_path(path, "driver_version"),
                        "LATEST changes the driver under a running prod cluster",
                        "use DEFAULT or a pinned version in prod", pool.driver_version)]
    if pool.driver_version.upper() not in MANAGED_DRIVER_VERSIONS and not pool.driver_version[:1].isdigit():
        return [problem(FILE, join_path(path, "driver_version"), "not a driver version",
                        "use DEFAULT, LATEST or a version such as 550.90.07", pool.driver_version)]
    return []


def _placement_problems(path: str, pool: NodePool) -> list[Problem]:
    problems = []
    if pool.compact_placement and len(pool.zones) != 1:
        problems.append(problem(FILE, join_path(path, "zones"), "compact placement keeps nodes in one zone",
                                "give the pool one zone, or turn compact_placement off", list(pool.zones)))
    if pool.spot and pool.reservation:
        problems.append(problem(FILE, join_path(path, "reservation"), "spot VMs cannot consume a reservation",
                                "set spot: false or drop the reservation", pool.reservation))
    return problems


def _flex_start_problems(path: str, pool: NodePool, family: str, queued: bool) -> list[Problem]:
    """DWS flex-start (data/flex_start.yaml, sourced): not for the families GCP excludes; no spot, no reservation,
    the pool starts empty (GKE creates nodes when capacity is found), and compact placement only where the sourced
    placement rule allows it (never on a queued GPU pool)."""
    if not pool.flex_start:
        return []
    problems = []
    if family in flex_start_rules()["excluded_families"]:
        problems.append(problem(FILE, join_path(path, "flex_start"), f"GCP sells no flex-start capacity for {family}",
                                "plan on-demand, spot or a reservation for this machine", pool.flex_start))
    if pool.spot or pool.reservation:
        problems.append(problem(FILE, join_path(path, "flex_start"), "flex-start capacity is neither spot nor reserved",
                                "drop spot and the reservation, or flex_start", pool.flex_start))
    if pool.initial_nodes or pool.min_nodes:
        problems.append(problem(FILE, join_path(path, "initial_nodes"), "a flex-start pool starts empty",
                                "set initial_nodes and min_nodes to 0", pool.initial_nodes))
    placement = flex_start_placement_rejection(pool.machine_type, queued) if pool.compact_placement else None
    if placement:
        problems.append(problem(FILE, join_path(path, "compact_placement"), placement,
                                "set compact_placement: false", pool.compact_placement))
    return problems


def _sharing_problems(path: str, pool: NodePool) -> list[Problem]:
    if pool.gpu_sharing_strategy is None:
        if pool.gpu_max_shared_clients:
            return [problem(FILE, join_path(path, "gpu_max_shared_clients"), "set without gpu_sharing_strategy",
                            "set gpu_sharing_strategy (TIME_SHARING or MPS) or 0", pool.gpu_max_shared_clients)]
        return []
    limit = MAX_SHARED_CLIENTS[pool.gpu_sharing_strategy]
    if not 2 <= pool.gpu_max_shared_clients <= limit:
        return [problem(FILE, join_path(path, "gpu_max_shared_clients"),
                        f"{pool.gpu_sharing_strategy} shares a GPU between 2 and {limit} pods",
                        f"set a value from 2 to {limit}", pool.gpu_max_shared_clients)]
    return []


def _tpu_pool_problems(path: str, pool: NodePool, catalog: Catalog) -> list[Problem]:
    problems: list[Problem] = []
    tpu_slice = catalog.tpu_slice(pool.tpu_slice or "")
    if tpu_slice is None:
        close = did_you_mean(pool.tpu_slice or "", [row.name for row in catalog.tpu_slices])
        return [problem(FILE, join_path(path, "tpu_slice"), "not a Cloud TPU slice the catalog knows",
                        f"use e.g. {close or 'v5p-128'}", pool.tpu_slice)]
    if pool.tpu_topology != tpu_slice.topology:
        problems.append(problem(FILE, join_path(path, "tpu_topology"),
                                f"{tpu_slice.name} has topology {tpu_slice.topology}",
                                f"set tpu_topology: {tpu_slice.topology}, or the slice whose topology you meant",
                                pool.tpu_topology))
    if pool.machine_type != tpu_slice.gke_machine_type:
        problems.append(problem(FILE, join_path(path, "machine_type"),
                                f"GKE runs {tpu_slice.name} on {tpu_slice.gke_machine_type}",
                                f"set machine_type: {tpu_slice.gke_machine_type}", pool.machine_type))
    if pool.gke_accelerator != tpu_slice.gke_accelerator:
        problems.append(problem(FILE, join_path(path, "gke_accelerator"),
                                f"{tpu_slice.name} is labelled {tpu_slice.gke_accelerator}",
                                f"set gke_accelerator: {tpu_slice.gke_accelerator}", pool.gke_accelerator))
    if len(pool.zones) != 1:
        problems.append(problem(FILE, join_path(path, "zones"), "a TPU slice lives in one zone",
                                "give the pool exactly one zone (one pool per slice)", list(pool.zones)))
    problems += tpu_rules.pool_zone_problems(join_path(path, "zones"), tpu_slice, pool.zones, catalog)
    if tpu_slice.multi_host and (pool.max_nodes != tpu_slice.hosts
                                 or pool.min_nodes not in (0, tpu_slice.hosts)
                                 or pool.initial_nodes not in (0, tpu_slice.hosts)):
        # Multi-host slices are atomic: all hosts or none.
        # https://cloud.google.com/kubernetes-engine/docs/concepts/tpus#node_pool
        problems.append(problem(FILE, join_path(path, "max_nodes"),
                                f"{tpu_slice.name} is one atomic slice of {tpu_slice.hosts} hosts",
                                f"set max_nodes: {tpu_slice.hosts} and min/initial nodes to 0 or {tpu_slice.hosts}",
                                pool.max_nodes))
    if pool.spot and pool.reservation:
        problems.append(problem(FILE, join_path(path, "reservation"), "spot VMs cannot consume a reservation",
                                "set spot: false or drop the reservation", pool.reservation))
    return problems


def _tpu_vm_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    problems: list[Problem] = []
    if not plan.tpu_vm_slices:
        return [problem(FILE, "tpu_vm_slices", "a tpu-vm plan has no slices", "add at least one slice")]
    for name, count in Counter(item.name for item in plan.tpu_vm_slices).items():
        if count > 1:
            problems.append(problem(FILE, "tpu_vm_slices", "two slices share a name", "name each slice", name))
    queued_zones = {item.zone for item in plan.tpu_vm_slices if item.queued}
    if len(queued_zones) > 1:
        problems.append(problem(FILE, "tpu_vm_slices", "queued slices go in one queued resource, in one zone",
                                "put every queued slice in the same zone", sorted(queued_zones)))
    for index, item in enumerate(plan.tpu_vm_slices):
        problems += _tpu_vm_slice_problems(join_path("tpu_vm_slices", index), item, plan, catalog)
    return problems


def _tpu_vm_slice_problems(path: str, item: TpuVmSlice, plan: Plan, catalog: Catalog) -> list[Problem]:
    problems = _zone_problems(join_path(path, "zone"), (item.zone,), plan.region)
    tpu_slice = catalog.tpu_slice(item.accelerator_type)
    if tpu_slice is None:
        close = did_you_mean(item.accelerator_type, [row.name for row in catalog.tpu_slices])
        return [*problems, problem(FILE, join_path(path, "accelerator_type"), "not a Cloud TPU accelerator type",
                                   f"use e.g. {close or 'v5p-128'}", item.accelerator_type)]
    if item.topology != tpu_slice.topology:
        problems.append(problem(FILE, join_path(path, "topology"),
                                f"{tpu_slice.name} has topology {tpu_slice.topology}",
                                f"set topology: {tpu_slice.topology}, or the accelerator type you meant",
                                item.topology))
    if item.accelerator_config_type != tpu_slice.accelerator_config_type:
        problems.append(problem(FILE, join_path(path, "accelerator_config_type"),
                                f"{tpu_slice.name} is type {tpu_slice.accelerator_config_type}",
                                f"set accelerator_config_type: {tpu_slice.accelerator_config_type}",
                                item.accelerator_config_type))
    problems += tpu_rules.zone_problems(join_path(path, "zone"), tpu_slice, item.zone, catalog)
    problems += tpu_rules.data_disk_problems(join_path(path, "data_disk_gb"), tpu_slice, item.data_disk_gb)
    reason = tpu_runtime.runtime_problem(item.runtime_version, tpu_slice.accelerator, plan.framework)
    if reason:
        problems.append(problem(FILE, join_path(path, "runtime_version"), reason,
                                "use " + tpu_runtime.runtime_version_for(tpu_slice.accelerator, plan.framework,
                                                                         tpu_slice.multi_host),
                                item.runtime_version))
    if item.spot and item.reserved:
        problems.append(problem(FILE, join_path(path, "reserved"), "a slice is either spot or reserved",
                                "set one of spot and reserved", item.reserved))
    if item.queued:
        # pulumi-gcp 10.2.0's V2QueuedResource cannot set the slices' service account: they would run as the
        # project's default compute account, which a plan cannot name or grant (tpu_queued.py).
        problems.append(problem(FILE, join_path(path, "queued"),
                                "queued-resource slices would run as the project's default Compute Engine service "
                                "account (pulumi-gcp 10.2.0 cannot set theirs), without access to the data bucket",
                                "set queued: false (TPU VMs run as accelfit's node account); for a queued multislice "
                                "compose TpuQueuedSlices by hand with the default account named", item.queued))
        # pulumi-gcp 10.2.0's V2QueuedResource has no spot, reservation or data-disk fields (reference 3.1).
        for field in ("spot", "reserved", "data_disk_gb"):
            if getattr(item, field):
                problems.append(problem(FILE, join_path(path, field),
                                        "a queued resource cannot ask for this with pulumi-gcp 10.2.0",
                                        "set queued: false to create the slice as a TPU VM directly",
                                        getattr(item, field)))
    return problems


def _value(member: object) -> str:
    """An enum member's value; a plain string as is (model_copy(update=...) does not re-validate)."""
    return str(getattr(member, "value", member))


def _canonical(catalog: Catalog, name: str) -> str | None:
    try:
        return catalog.canonical(name)
    except ValueError:
        return None
