"""Bare metal: owned GPU servers from an inventory prepared over SSH (preflight, pinned NVIDIA driver and
container toolkit, kubeadm join) and made members of the cluster (node labels and the GPU taint).

`build(plan, inventory)` checks the plan against the inventory and the stack's access config, then creates the
BaremetalCluster; `components.build` adds the Kubernetes layer on top. The pure parts (scripts, checks) import
neither Pulumi nor a provider SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelfit.planner.model import Plan
    from accelfit.spec.inventory import Inventory
    from components.baremetal.cluster import BaremetalCluster

__all__ = ["build"]


def build(plan: Plan, inventory: Inventory | None, inventory_source: str = "inventory") -> BaremetalCluster:
    """Raises InputError before creating anything when the plan does not match the inventory or the access
    config (SSH key, join token, kubeconfig, join endpoint and CA hash) is incomplete."""
    from components.baremetal.access import read_host_access
    from accelfit.cloudrules.baremetal.checks import plan_problems
    from components.baremetal.cluster import BaremetalCluster, BaremetalClusterArgs
    from accelfit.errors import InputError

    problems = plan_problems(plan, inventory, inventory_source)  # first: they say to plan again
    if problems:
        raise InputError(problems)
    access = read_host_access()
    return BaremetalCluster(f"{plan.workload}-metal", BaremetalClusterArgs(
        plan=plan, inventory=inventory, access=access, inventory_source=inventory_source))  # type: ignore[arg-type]
