"""The limits of a shared cluster (data/shared_cluster_rules.yaml), and the checks that apply them. Pure: no Pulumi
import. Each rule names its source; each check returns problems naming the field and the fix."""

from __future__ import annotations

import datetime as dt
import functools
import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from accelfit.clouds import cloud_named
from accelfit.catalog.models import Frozen, Sourced
from accelfit.errors import Problem, problem
from accelfit.validation import validate
from accelfit.yamlio import read_package_yaml

RULES_FILE = Path(__file__).parent / "data" / "shared_cluster_rules.yaml"


class PoolLimit(Sourced):
    cloud: Literal["gcp", "aws"]
    max_pools: int = Field(ge=1)
    kind: Literal["quota", "recommended"]


class KueueLimits(Sourced):
    flavors_per_resource_group: int = Field(ge=1)
    cohort_name_max_length: int = Field(ge=1)
    cohort_name_pattern: str


class SharedClusterRules(Frozen):
    schema_version: Literal[1]
    as_of: dt.date
    node_pools_per_cluster: tuple[PoolLimit, ...]
    kueue: KueueLimits

    def pool_limit(self, cloud: str) -> PoolLimit | None:
        """The cloud's sourced limit; None for a cloud the file has no row for (a registered cloud's own)."""
        return next((row for row in self.node_pools_per_cluster if row.cloud == cloud), None)


@functools.cache
def shared_cluster_rules() -> SharedClusterRules:
    return validate(SharedClusterRules, read_package_yaml(RULES_FILE), str(RULES_FILE))


def pool_count_problems(cloud: str, cluster: str, pools: int) -> list[Problem]:
    limit = shared_cluster_rules().pool_limit(cloud)
    if limit is None or pools <= limit.max_pools:
        return []
    what = cloud_named(cloud).pools_per_cluster
    fix = ("raise the quota (Service Quotas: Amazon EKS, managed node groups per cluster) or split the fleet "
           "into two stacks" if limit.kind == "quota" else "split the fleet into two stacks, or plan fewer standby "
           "pools")
    return [problem("plan", "workloads", f"the shared cluster {cluster} would hold {pools} pools; "
                    f"{limit.max_pools} {what} is the limit ({limit.source})", fix, pools)]


def cohort_name_problems(field: str, name: str) -> list[Problem]:
    rules = shared_cluster_rules().kueue
    if len(name) <= rules.cohort_name_max_length and re.match(rules.cohort_name_pattern, name):
        return []
    return [problem("stack", field, "the fleet name is the Kueue cohort's name, which must be lowercase letters, "
                    "digits, '-' and '.' (an RFC 1123 subdomain)", "rename the fleet, e.g. replace '_' with '-'",
                    name)]


def queue_flavor_problems(field: str, queue: str, flavors: int) -> list[Problem]:
    limit = shared_cluster_rules().kueue.flavors_per_resource_group
    if flavors <= limit:
        return []
    return [problem("plan", field, f"the ClusterQueue {queue} would list {flavors} flavors in its resource group; "
                    f"Kueue accepts {limit}", "plan fewer standby pools, or fewer workloads that can lend to it",
                    flavors)]
