"""Checks of a bare-metal plan against its inventory, run before any resource exists: by `accelfit check` (the stack
rules, accelfit.stackrules) and by the bare-metal components. Pure."""

from __future__ import annotations

from accelfit.clouds import cloud_of_platform
from accelfit.errors import InputError, Problem, did_you_mean, problem
from accelfit.planner.model import NodePool, Plan
from accelfit.spec.inventory import Inventory
from accelfit.validation import validate
from accelfit.planner.software import baremetal_gpu_driver
from accelfit.cloudrules.baremetal.host_software import driver_problems, form_factor_problems, toolkit_problems

GKE_MANAGED = frozenset({"DEFAULT", "LATEST"})
# A spelling hint compares one name with every server's (difflib): for a plan made from another inventory, 10,000
# missing hosts would cost 10^8 comparisons. Past this many, each missing host is still reported, without a hint.
MAX_SPELLING_HINTS = 20


def revalidated(inventory: Inventory, source: str) -> Inventory:
    """The inventory's own rules (unique names and addresses, known GPU models, GPU counts the model allows),
    run again here so an Inventory built without validation (model_construct) is refused too."""
    return validate(Inventory, inventory.model_dump(mode="json"), source)


def plan_problems(plan: Plan, inventory: Inventory | None, source: str = "inventory") -> list[Problem]:
    if not cloud_of_platform(plan.platform).owned:
        return [problem("plan", "platform", "not a bare-metal plan", "build it with its cloud's components",
                        plan.platform.value)]
    if inventory is None:
        return [problem("stack", "placement.inventory", "a bare-metal plan needs the inventory it was made from",
                        "set placement.inventory to the inventory file")]
    problems: list[Problem] = []
    if inventory.site != plan.region:
        problems.append(problem(source, "site", f"the plan is for site {plan.region!r}",
                                "plan again with this inventory (accelfit plan --stack ...)", inventory.site))
    gpu_pools = [pool for pool in plan.node_pools if pool.role == "gpu"]
    problems += _gpu_pool_problems(gpu_pools)
    problems += toolkit_problems(baremetal_gpu_driver()["container_toolkit"])
    if not plan.baremetal_hosts:
        problems.append(problem("plan", "baremetal_hosts", "no servers chosen", "plan again with this inventory"))
    chosen = set(plan.baremetal_hosts)  # a set: a tuple here made 10,000 servers cost 10^8 comparisons
    for index, server in enumerate(inventory.servers):
        if server.name in chosen:
            problems += form_factor_problems(server, index, source)
    return problems + _host_problems(plan, inventory, gpu_pools[0] if gpu_pools else None, source)


def _gpu_pool_problems(gpu_pools: list[NodePool]) -> list[Problem]:
    """Exactly one GPU pool, with a pinned driver the host preparation can install."""
    if len(gpu_pools) != 1:
        return [problem("plan", "node_pools", "a bare-metal plan has exactly one GPU pool", "plan again",
                        [pool.name for pool in gpu_pools])]
    version = gpu_pools[0].driver_version
    if not version or version.upper() in GKE_MANAGED:
        return [problem("plan", "node_pools.gpu.driver_version", "bare metal needs a pinned driver version",
                        "plan again (the planner pins it from its software data)", version)]
    return driver_problems(version)


def _host_problems(plan: Plan, inventory: Inventory, pool: NodePool | None, source: str) -> list[Problem]:
    """Each chosen host: listed once, in the inventory (with a spelling hint for the first few), and of the
    pool's GPU model and count."""
    problems: list[Problem] = []
    servers = {server.name: server for server in inventory.servers}
    seen: set[str] = set()
    missing = 0
    for index, host in enumerate(plan.baremetal_hosts):
        if host in seen:
            problems.append(problem("plan", f"baremetal_hosts[{index}]", "listed twice", "list each server once",
                                    host))
        seen.add(host)
        server = servers.get(host)
        if server is None:
            missing += 1
            hint = did_you_mean(host, servers) if missing <= MAX_SPELLING_HINTS else None
            problems.append(problem(source, f"servers[name={host}]", "the plan uses a server the inventory lacks",
                                    f"did you mean {hint!r}? " if hint else "plan again with this inventory", host))
            continue
        if pool and (server.gpu_model != pool.accelerator or server.gpu_count != pool.accelerators_per_node):
            problems.append(problem(source, f"servers[name={host}]", f"has {server.gpu_count} x {server.gpu_model}, "
                                    f"the plan's pool {pool.accelerators_per_node} x {pool.accelerator}",
                                    "plan again with this inventory", host))
    return problems


def check_plan(plan: Plan, inventory: Inventory | None, source: str = "inventory") -> Inventory:
    if inventory is not None:
        inventory = revalidated(inventory, source)
    problems = plan_problems(plan, inventory, source)
    if problems:
        raise InputError(problems)
    return inventory  # type: ignore[return-value]  # plan_problems refuses None
