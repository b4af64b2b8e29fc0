"""Pure checks of a Plan against what AWS allows and what the catalog says, before anything is created.

Every problem names the plan field (`node_pools[1].efa_interfaces`) and the fix; all are reported together.
The catalog is read, never chosen from: a plan that names an instance type the region lacks is refused, not
repaired.
"""

from __future__ import annotations

import ipaddress
import re

from accelfit.catalog import Catalog
from accelfit.clouds.aws import CLOUD as AWS
from accelfit.catalog.rows import InstanceType
from accelfit.errors import Problem, did_you_mean, problem
from accelfit.planner.model import NodePool, Plan, PlanCloud, Platform
from accelfit.cloudrules.aws.addressing import MIN_ZONES, subnet_layout
from accelfit.cloudrules.aws.eks_versions import eks_version_problems
from accelfit.cloudrules.aws.fsx_sizes import PERSISTENT_2_THROUGHPUTS, nearest_valid_capacity_gib, valid_capacity_gib
from accelfit.cloudrules.aws.instance_rules import capacity_block_findings, efa_findings

FILE = "plan"
# EKS quota: nodes per managed node group (https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html).
MAX_NODES_PER_GROUP = 450
_RESERVATION_ID = re.compile(r"cr-[0-9a-f]{8,17}")
_POOL_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def plan_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    """An AWS plan against its rules (accelfit.clouds.aws names this check): an EKS plan against the EKS rules; an
    EC2 GPU VM is checked against the instance where it is read."""
    return validate_eks_plan(plan, catalog) if plan.platform.value == AWS.cluster_platform else []


def validate_eks_plan(plan: Plan, catalog: Catalog) -> list[Problem]:
    """Every reason the plan cannot be built on EKS; an empty list when it can."""
    problems: list[Problem] = []
    platform, cloud = Platform(plan.platform), PlanCloud(plan.cloud)
    if cloud.value != AWS.name or platform.value != AWS.cluster_platform:
        problems.append(problem(FILE, "platform", "the AWS components build eks-gpu plans on aws",
                                "build this plan with the components of its platform",
                                f"{platform.value} on {cloud.value}"))
    problems += _zone_problems(plan)
    problems += _network_problems(plan)
    problems += eks_version_problems(plan.eks_version, FILE)
    if not plan.node_pools:
        problems.append(problem(FILE, "node_pools", "an EKS plan needs at least one node pool",
                                "add the GPU pool the workload runs on"))
    names = [pool.name for pool in plan.node_pools]
    for index, pool in enumerate(plan.node_pools):
        if names.count(pool.name) > 1:
            problems.append(problem(FILE, f"node_pools[{index}].name", "two pools share this name",
                                    "give each pool its own name", pool.name))
        problems += _pool_problems(plan, index, pool, catalog)
    problems += _storage_problems(plan)
    return problems


def _zone_problems(plan: Plan) -> list[Problem]:
    problems = []
    if len(set(plan.zones)) < MIN_ZONES:
        problems.append(problem(FILE, "zones", f"EKS needs subnets in at least {MIN_ZONES} availability zones "
                                "(the GPU pools may still use one)", f"list a second zone of {plan.region}",
                                list(plan.zones)))
    outside = [zone for zone in plan.zones if not _in_region(zone, plan.region)]
    if outside:
        problems.append(problem(FILE, "zones", f"zones outside region {plan.region}",
                                f"use zones such as {plan.region}a", outside))
    return problems


def _network_problems(plan: Plan) -> list[Problem]:
    try:
        if not ipaddress.ip_network(plan.network.cidr, strict=True).is_private:
            return [problem(FILE, "network.cidr", "the VPC range must be private (RFC 1918)", "use 10.0.0.0/16",
                            plan.network.cidr)]
        if plan.zones:
            subnet_layout(plan.network.cidr, plan.zones)
    except ValueError as error:
        return [problem(FILE, "network.cidr", str(error), "use a /16 such as 10.0.0.0/16", plan.network.cidr)]
    return []


# (field, message, fix, value) of one finding on a pool, before it is given the pool's path.
Finding = tuple[str, str, str, object]


def _pool_problems(plan: Plan, index: int, pool: NodePool, catalog: Catalog) -> list[Problem]:
    path = f"node_pools[{index}]"
    instance = catalog.instance_type("aws", pool.machine_type)

    def problems_of(findings: list[Finding]) -> list[Problem]:
        return [problem(FILE, f"{path}.{field}", message, fix, value) for field, message, fix, value in findings]

    # In the order they were always reported: the type, the instance, zones, capacity, the block, the sizes.
    return [*problems_of([*_type_findings(pool, instance, catalog), *_instance_findings(plan, pool, instance),
                          *_zone_findings(plan, pool)]),
            *_capacity_problems(path, pool),
            *problems_of([*_block_findings(pool), *_size_findings(pool)])]


def _type_findings(pool: NodePool, instance: InstanceType | None, catalog: Catalog) -> list[Finding]:
    found: list[Finding] = []
    if not _POOL_NAME.fullmatch(pool.name):
        found.append(("name", "pool names go into resource names", "use lowercase letters, digits and '-'",
                      pool.name))
    if pool.role == "tpu":
        found.append(("role", "TPU pools exist only on Google Cloud", "plan TPUs on gke-tpu or tpu-vm", pool.role))
    elif pool.role == "gpu" and instance is None:
        names = [row.name for row in catalog.instance_types_for("aws")]
        close = did_you_mean(pool.machine_type, names)
        found.append(("machine_type", "not an AWS GPU instance type the catalog knows",
                      f"use {close}" if close else "run `accelfit catalog --cloud aws` for the known types",
                      pool.machine_type))
    return found


def _instance_findings(plan: Plan, pool: NodePool, instance: InstanceType | None) -> list[Finding]:
    if instance is None:
        if pool.efa_interfaces and pool.role != "gpu":
            return [("efa_interfaces", "EFA is planned only for GPU pools", "set 0", pool.efa_interfaces)]
        return []
    found: list[Finding] = []
    if plan.region not in instance.regions:
        found.append(("machine_type", f"{pool.machine_type} is not offered in {plan.region}",
                      f"use a region where it is offered ({', '.join(instance.regions)}) or another type",
                      pool.machine_type))
    if pool.accelerators_per_node and pool.accelerators_per_node != instance.accelerator_count:
        found.append(("accelerators_per_node", f"{pool.machine_type} has {instance.accelerator_count} GPUs",
                      f"set {instance.accelerator_count}", pool.accelerators_per_node))
    if pool.efa_interfaces and not instance.efa_interfaces:
        found.append(("efa_interfaces", f"{pool.machine_type} does not support EFA",
                      "set 0, or use an EFA type such as p5.48xlarge", pool.efa_interfaces))
    else:
        # The sourced per-type layout (data/efa_layouts.yaml) decides: one EFA per network card, all cards.
        found += efa_findings(pool.machine_type, pool.efa_interfaces)
    if pool.local_nvme_gb > instance.local_nvme_gb:
        found.append(("local_nvme_gb", f"{pool.machine_type} has {instance.local_nvme_gb:g} GB of local NVMe",
                      f"set at most {instance.local_nvme_gb:g}", pool.local_nvme_gb))
    return found


def _zone_findings(plan: Plan, pool: NodePool) -> list[Finding]:
    found: list[Finding] = []
    outside = [zone for zone in pool.zones if zone not in plan.zones]
    if outside:
        found.append(("zones", "the pool uses zones the plan's network does not cover",
                      "use zones listed in plan.zones", outside))
    if (pool.efa_interfaces or pool.compact_placement) and len(pool.zones) != 1:
        found.append(("zones", "EFA and cluster placement groups work within a single availability zone",
                      "give this pool exactly one zone", list(pool.zones)))
    return found


def _block_findings(pool: NodePool) -> list[Finding]:
    # A Capacity Block's missing reservation is reported by _capacity_problems, so its finding is left out here.
    return [(field, message, fix, value) for field, message, fix, value in
            capacity_block_findings(pool.machine_type, pool.capacity_block, pool.spot, pool.reservation)
            if not (field == "capacity_block" and value is None)]


def _size_findings(pool: NodePool) -> list[Finding]:
    found: list[Finding] = []
    if not pool.min_nodes <= pool.initial_nodes <= pool.max_nodes:
        found.append(("initial_nodes", "sizes must satisfy min_nodes <= initial_nodes <= max_nodes",
                      "reorder the sizes", (pool.min_nodes, pool.initial_nodes, pool.max_nodes)))
    if pool.max_nodes > MAX_NODES_PER_GROUP:
        found.append(("max_nodes", f"an EKS managed node group holds at most {MAX_NODES_PER_GROUP} nodes",
                      "split the pool", pool.max_nodes))
    return found


def _capacity_problems(path: str, pool: NodePool) -> list[Problem]:
    problems = []
    if pool.spot and pool.reservation:
        # Reservations and Capacity Blocks hold On-Demand capacity; Spot cannot target them
        # (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservations-launch.html).
        problems.append(problem(FILE, f"{path}.reservation", "Spot Instances cannot launch into a capacity "
                                "reservation or Capacity Block", "drop spot or drop the reservation",
                                pool.reservation))
    if pool.capacity_block and not pool.reservation:
        problems.append(problem(FILE, f"{path}.capacity_block", "a Capacity Block pool needs the block's "
                                "reservation id", "set reservation to the block's cr-... id"))
    if pool.reservation and not _RESERVATION_ID.fullmatch(pool.reservation):
        problems.append(problem(FILE, f"{path}.reservation", "not an EC2 capacity reservation id",
                                "use the id, e.g. cr-0123456789abcdef0", pool.reservation))
    return problems


def _storage_problems(plan: Plan) -> list[Problem]:
    storage = plan.storage
    problems: list[Problem] = []
    if storage.shared_filesystem == "filestore":
        problems.append(problem(FILE, "storage.shared_filesystem", "Filestore is a Google Cloud service",
                                "use fsx-lustre or none on AWS", storage.shared_filesystem))
    if storage.shared_filesystem == "fsx-lustre":
        if not valid_capacity_gib(storage.filesystem_capacity_gib):
            problems.append(problem(FILE, "storage.filesystem_capacity_gib", "FSx for Lustre PERSISTENT_2 takes "
                                    "1200 GiB or a multiple of 2400 GiB",
                                    f"use {nearest_valid_capacity_gib(storage.filesystem_capacity_gib)}",
                                    storage.filesystem_capacity_gib))
        if storage.filesystem_throughput_mbps_per_tib not in PERSISTENT_2_THROUGHPUTS:
            problems.append(problem(FILE, "storage.filesystem_throughput_mbps_per_tib",
                                    "not a PERSISTENT_2 throughput tier (MB/s per TiB)",
                                    f"use one of {', '.join(map(str, PERSISTENT_2_THROUGHPUTS))}",
                                    storage.filesystem_throughput_mbps_per_tib))
    return problems


def _in_region(zone: str, region: str) -> bool:
    """us-east-1a is in us-east-1; local zones (us-east-1-bos-1a) are not used for EKS here."""
    return zone.startswith(region) and zone[len(region):].isalpha() and len(zone) > len(region)


def filesystem_zone(plan: Plan) -> str:
    """Where FSx goes: with the first GPU pool's nodes (Lustre traffic across zones is slower and billed),
    else the plan's first zone. A fixed rule over the plan, not a choice."""
    for pool in plan.node_pools:
        if pool.role == "gpu":
            return pool.zones[0]
    return plan.zones[0]
