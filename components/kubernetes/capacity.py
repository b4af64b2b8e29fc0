"""Pool capacities for Kueue quotas: accelerators, vCPUs and memory of each accelerator pool at its largest.

Facts only, read from the catalog (cloud machine shapes) or the inventory (owned servers); pure, no Pulumi.
Quotas use the machine's full vCPUs and memory, not the (lower) allocatable amounts: Kueue then never refuses a
job the nodes could hold, and the scheduler still places pods by what is really allocatable.
"""

from __future__ import annotations

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem
from accelfit.planner.model import NodePool, Plan
from accelfit.spec.inventory import Inventory
from components.kubernetes.queues import NodeCapacity


# "Amazon EC2 instances with the EFA driver installed pre-allocate 5128 2MiB Huge Pages, which you can request as
# resources to consume in your job specifications" (https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html;
# aws-efa-installer's efa_test.sh checks for the same 5128). In MiB per node.
EFA_HUGEPAGES_2MI_PER_NODE = 5128 * 2


def cloud_capacities(plan: Plan, catalog: Catalog) -> dict[str, NodeCapacity]:
    found: dict[str, NodeCapacity] = {}
    problems = []
    for index, pool in enumerate(plan.node_pools):
        if pool.role not in ("gpu", "tpu"):
            continue
        shape = _per_node(plan, pool, catalog)
        if shape is None:
            problems.append(problem("plan", f"node_pools[{index}].machine_type",
                                    "the catalog has no vCPU/memory figures for this machine type",
                                    "add it to the catalog or plan a listed machine type", pool.machine_type))
            continue
        cpus, memory_gib = shape
        found[pool.name] = NodeCapacity(accelerators=pool.accelerators_per_node * pool.max_nodes,
                                        cpus=cpus * pool.max_nodes, memory_gib=int(memory_gib * pool.max_nodes),
                                        ephemeral_storage_gib=_scratch_gib(pool) * pool.max_nodes,
                                        efa=pool.efa_interfaces * pool.max_nodes,
                                        hugepages_2mi_mib=(EFA_HUGEPAGES_2MI_PER_NODE * pool.max_nodes
                                                           if pool.efa_interfaces else 0))
    if problems:
        raise InputError(problems)
    return found


def _scratch_gib(pool: NodePool) -> int:
    """Node-local storage pods may ask for: the local NVMe array when the pool has one (kubelet and containerd
    live on it), else the boot disk. GB as sold, counted as GiB: a slight overstatement Kueue tolerates because
    the scheduler still places pods by what the kubelet reports as allocatable."""
    return int(pool.local_nvme_gb) if pool.local_nvme_gb else pool.disk_size_gb


def _per_node(plan: Plan, pool: NodePool, catalog: Catalog) -> tuple[int, float] | None:
    if pool.role == "tpu" and pool.tpu_slice:
        tpu = catalog.tpu_slice(pool.tpu_slice)
        return (tpu.host_vcpus, tpu.host_memory_gib) if tpu else None
    instance = catalog.instance_type(plan.cloud.value, pool.machine_type)
    return (instance.vcpus, instance.memory_gib) if instance else None


def inventory_capacities(plan: Plan, inventory: Inventory) -> dict[str, NodeCapacity]:
    """Bare metal: the sum over the plan's servers. Physical cores are counted (the inventory does not say
    whether SMT is on), which errs towards admitting less CPU than the nodes have."""
    chosen = set(plan.baremetal_hosts)
    servers = [server for server in inventory.servers if server.name in chosen]
    total = NodeCapacity(accelerators=sum(server.gpu_count for server in servers),
                         cpus=sum(server.cpu_cores for server in servers),
                         memory_gib=int(sum(server.memory_gib for server in servers)),
                         # Inventory NVMe is in TB (10^12 bytes); quotas are Gi (2^30): 1 TB = 931 GiB.
                         ephemeral_storage_gib=int(sum(server.nvme_tb for server in servers) * 1e12 / 2**30))
    return {pool.name: total for pool in plan.node_pools if pool.role == "gpu"}
