"""One planning path for every cluster's Kubernetes layer (components/kubernetes/build.py `plan_layer`): the single
form's cluster of its own is its fleet of one, and what differs from a fleet's shared cluster is data on that path
(SharedClusterBuild.own), not a second function."""

from __future__ import annotations

import dataclasses

from accelfit.catalog import load_catalog
from components.fleet import ClusterWorkload, SharedClusterBuild, own_cluster, shared_ownership
from components.kubernetes.build import plan_layer
from tests.components.gcp import gcp_plans

CATALOG = load_catalog()


def test_the_same_plan_in_a_cluster_of_its_own_and_in_a_shared_cluster():
    plan = gcp_plans.gke_h100_training()
    ownership = gcp_plans.ownership(plan)
    own = plan_layer(own_cluster(plan, ownership), CATALOG)
    shared = plan_layer(SharedClusterBuild(
        name="fleet", fleet="fleet", ownership=shared_ownership("fleet", ownership),
        workloads=(ClusterWorkload(plan=plan, ownership=ownership),)), CATALOG)
    (own_queue,), (shared_queue,) = own.queues, shared.queues
    # The flavors are the same Kueue objects in the same fallback order ...
    assert [flavor.name for flavor in own_queue.flavors] == [flavor.name for flavor in shared_queue.flavors]
    assert [dataclasses.replace(flavor, pool="") for flavor in own_queue.flavors] == \
        [dataclasses.replace(flavor, pool="") for flavor in shared_queue.flavors]
    # ... keyed by the pool's own name in a cluster of its own, `<workload>-<pool>` where pools of several meet;
    assert [flavor.pool for flavor in own_queue.flavors] == [pool.name for pool in plan.node_pools
                                                             if pool.role in ("gpu", "tpu")]
    assert [flavor.pool for flavor in shared_queue.flavors] == [f"{plan.workload}-{flavor.pool}"
                                                                for flavor in own_queue.flavors]
    # only a shared cluster's queues are in the fleet's cohort;
    assert own_queue.cohort is None and shared_queue.cohort == "fleet"
    # the pods run in the workload's namespace (accelfit:teamNamespaces may widen a cluster of its own's);
    assert own_queue.namespaces == shared_queue.namespaces == (plan.workload,)
    # the cluster-wide add-ons follow from the same pools.
    assert own.gpu_software == shared.gpu_software and own.jobset == shared.jobset and own.eks == shared.eks
