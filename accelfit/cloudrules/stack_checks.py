"""Every cloud rule a stack's plan must meet that can be checked on the plan alone, before anything is created:
each workload's plan against its cloud's rules (GCP: `gcp.validation.plan_problems`; EKS:
`aws.plan_checks.validate_eks_plan`) and each shared cluster's limits (node pools per cluster, the Kueue cohort's
name; `shared_cluster.py`). Pure: no Pulumi import.

`accelfit check` runs them, so a breach shows there (exit 2) and not first in `preview` or `pulumi up`; the
components run the same functions again before they create anything (components/gcp/fleet_stack.py,
components/aws/fleet_stack.py, components/kubernetes/build.py). What needs the cloud account (the AWS account's
zone IDs) or other stack config (control-plane access) is checked where it is read.
"""

from __future__ import annotations

import dataclasses

from accelfit.catalog.models import Catalog
from accelfit.clouds import cloud_named, hook
from accelfit.errors import Problem
from accelfit.planner.fleet.model import FleetPlan
from accelfit.planner.model import Plan
from accelfit.cloudrules.shared_cluster import cohort_name_problems, pool_count_problems


def plan_cloud_problems(plan: Plan, catalog: Catalog) -> list[Problem]:
    """One workload's plan against its cloud's rules; fields name the plan's (`node_pools[1].zones`...)."""
    check = cloud_named(plan.cloud).plan_check  # each cloud's own rules, named by its record
    return hook(check)(plan, catalog) if check else []  # bare metal: checked where its inventory is read


def fleet_problems(fleet: FleetPlan, catalog: Catalog, *, single: bool) -> list[Problem]:
    """Every workload's plan (under `workloads[i].` unless `single`: the single form's stack file has no workload
    list) and every shared cluster's limits."""
    problems: list[Problem] = []
    for index, member in enumerate(fleet.workloads):
        found = plan_cloud_problems(member.plan, catalog)
        problems += found if single else [
            dataclasses.replace(item, field=f"workloads[{index}].{item.field}".rstrip(".")) for item in found]
    for cluster in fleet.clusters:
        members = [member.plan for member in fleet.workloads if member.cluster == cluster.name]
        # The cluster's one system pool and every member's accelerator pools, planned and standby.
        pools = 1 + sum(1 for plan in members for pool in plan.node_pools if pool.role in ("gpu", "tpu"))
        problems += pool_count_problems(cluster.cloud.value, cluster.name, pools)
    if fleet.clusters:
        problems += cohort_name_problems("accelfit:fleet", fleet.name)
    return problems
