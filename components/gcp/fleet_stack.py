"""One GKE cluster for several workloads (a fleet's shared cluster): the project's APIs, the network with its NAT,
the nodes' service account, the cluster and its system pool are built once, named after the cluster; each workload
adds its accelerator pools (planned and standby), its bucket (and Filestore when it asks) and its Workload
Identity, named after the workload. Several node pools of different machine types on one Standard cluster, each
configured on its own, is how the blueprints build GKE: GoogleCloudPlatform/cluster-toolkit @1047080
examples/gke-a3-highgpu-inference-gateway.yaml (two gke-node-pool modules, a3-highgpu-8g and e2-standard-2, on one
gke-cluster module, whose own system pool stays); AI-Hypercomputer/xpk @367c838 src/xpk/core/nodepool.py
(run_gke_node_pool_create_command adds one pool per TPU slice, `<cluster>-np-<i>`, to one cluster). Neither
blueprint puts GPU and TPU pools in the same cluster; GKE configures accelerators per node pool (guest
accelerators / TPU machine types), which is what this relies on.

GPU and TPU pools in one cluster (as_of 2026-11-23): Google's GKE AI/ML Terraform module builds them side by side,
GoogleCloudPlatform/applied-ai-engineering-samples @76c25894aff09eaeafe0d9f3bd9f6f6f9e122a1e
ai-infrastructure/terraform-modules/gke-aiml: README.md ("The cluster can be configured with multiple CPU, GPU or
TPU node pools"), gpu_node_pools.tf and tpu_node_pools.tf both attach their pools to the one `module.cluster.id`;
its TPU pools, like ours, set workload metadata GKE_METADATA and a COMPACT placement policy with the topology for
multi-host slices, and nothing on the cluster itself is TPU- or GPU-specific. GKE's "About TPUs in GKE"
(https://cloud.google.com/kubernetes-engine/docs/concepts/tpus) names a single platform for all ML workloads and
Kueue for sharing accelerators among tenants; "Plan TPUs in GKE" (.../concepts/plan-tpus) asks only that the
cluster be in a region that offers the TPU type (the planner's availability data). Cluster Toolkit @1047080 has one
gke-node-pool module for GPU and TPU pools alike (modules/compute/gke-node-pool) but no example with both; xpk
@367c838 src/xpk/core/nodepool.py get_node_pools_to_delete replaces a cluster's `<cluster>-np-*` pools when the
device type changes (one accelerator type per xpk cluster: a choice of that tool, not a GKE rule), and adds a CPU
pool `cpu-np` to TPU clusters for Pathways. No cluster-level setting that TPU pools need and GPU pools conflict
with was found, so no rule is encoded for it; the per-cluster pool count (shared_cluster_rules.yaml) still applies.

Every workload's plan and the cluster-wide rules are checked before anything is created. `build_gke_cluster` is the
one entry for every GKE cluster, a fleet's shared cluster or the single form's cluster of its own (stack.py
`build_cluster` builds both)."""

from __future__ import annotations

import dataclasses

from accelfit.catalog.models import Catalog
from accelfit.cloudrules.gcp.names import check_name, fitted_name
from accelfit.cloudrules.gcp.validation import network_problems, plan_problems
from accelfit.cloudrules.shared_cluster import pool_count_problems
from accelfit.errors import InputError, Problem, problem
from components.fleet import FILE, SharedClusterBuild, accelerator_pools, cluster_problems, prefixed
from components.gcp.stack import GcpSharedCluster, build_cluster, resolve_project


def shared_cluster_problems(build: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    """Every workload's own plan problems (under workloads[i]) and what the shared cluster adds: one region and
    network, GKE platforms only, pool names unique in the cluster, the pool count within GKE's limit."""
    problems = cluster_problems(build, "gcp")
    for index, plan in enumerate(build.plans):
        if plan.platform.value not in ("gke-gpu", "gke-tpu"):
            problems.append(problem(FILE, f"workloads[{index}].platform", "only GKE plans share a cluster",
                                    "build it alone (the fleet plan places TPU VMs in no cluster)",
                                    plan.platform.value))
            continue
        problems += prefixed(index, plan_problems(plan, catalog))
    # The shared network the fleet plan sized (its pods range covers every member's nodes) must be sound too.
    problems += [dataclasses.replace(item, field=f"fleet.{item.field}") for item in network_problems(build.basis)]
    gke = f"{build.name}-gke"
    names = [("fleet", "container_cluster", fitted_name("container_cluster", gke)),
             ("fleet", "container_node_pool", fitted_name("container_node_pool", f"{gke}-system"))]
    names += [(f"workloads[{index}].node_pools[{pool_index}].name", "container_node_pool",
               fitted_name("container_node_pool", f"{plan.workload}-{pool.name}"))
              for index, plan in enumerate(build.plans)
              for pool_index, pool in enumerate(plan.node_pools) if pool.role in ("gpu", "tpu")]
    seen: dict[str, str] = {}
    for where, kind, name in names:
        problems += check_name(FILE, where, kind, name)  # type: ignore[arg-type]
        if name in seen:
            problems.append(problem(FILE, where, f"two node pools of the cluster would both be named {name} "
                                    f"(also {seen[name]})", "rename the workload or the pool", name))
        seen.setdefault(name, where)
    pools = 1 + sum(len(accelerator_pools(plan)) for plan in build.plans)
    return problems + pool_count_problems("gcp", build.name, pools)


def cluster_build_problems(build: SharedClusterBuild, catalog: Catalog) -> list[Problem]:
    """What `build_gke_cluster` refuses: a cluster of its own, its one plan's problems; a shared cluster, every
    workload's (under workloads[i]) and the cluster-wide rules."""
    if build.own:
        return plan_problems(build.basis, catalog)
    return shared_cluster_problems(build, catalog)


def build_gke_cluster(build: SharedClusterBuild, catalog: Catalog, *, project: str | None = None,
                      checked: bool = False) -> GcpSharedCluster:
    """One GKE cluster in either form (`build.own`: the single form's cluster of its own). `checked`: the caller
    has already checked `build` (cluster_build_problems) and found nothing."""
    problems = [] if checked else cluster_build_problems(build, catalog)
    if problems:
        raise InputError(problems)
    return build_cluster(build, catalog, resolve_project(project))
