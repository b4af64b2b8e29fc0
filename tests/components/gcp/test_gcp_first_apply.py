"""What a first `pulumi up` on GKE needs beyond valid inputs (issue 24): the order the clouds require and the
counts GKE applies per zone. Asserted on the recorded resources, their inputs and their dependencies."""

from __future__ import annotations

import pytest

import gcp_family_plans
import gcp_plans


@pytest.fixture(scope="module")
def h100():
    recording, error = gcp_family_plans.record_full(gcp_plans.gke_h100_training())
    assert error is None
    return recording


def test_workload_identity_bindings_wait_for_the_cluster_that_creates_the_identity_pool(h100):
    # PROJECT.svc.id.goog exists only once a Workload Identity cluster does: IAM answers "Identity Pool does not
    # exist" to a binding made before it (terraform-google-kubernetes-engine issue 916).
    cluster = h100.named("llm-train-gke-cluster")
    bindings = [item for item in h100.of_type("gcp:serviceaccount/iAMMember:IAMMember")
                if ".svc.id.goog[" in item.inputs["member"]]
    assert bindings
    for binding in bindings:
        assert cluster.urn in binding.dependencies, binding.name


@pytest.fixture(scope="module")
def l4():
    recording, error = gcp_family_plans.record_full(gcp_plans.l4_inference())
    assert error is None
    return recording


def _started(pool) -> int:
    """What GKE starts: initialNodeCount in each of nodeLocations."""
    return pool.inputs["initialNodeCount"] * len(pool.inputs["nodeLocations"])


@pytest.mark.parametrize("make", [gcp_plans.l4_inference, gcp_plans.gke_h100_training, gcp_plans.gke_tpu_multislice])
def test_every_gke_pool_starts_the_planned_total(make):
    plan = make()
    recording, error = gcp_family_plans.record_full(plan)
    assert error is None
    for planned in plan.node_pools:
        pool = recording.named(f"{plan.workload}-gke-system" if planned.role == "system"
                               else f"{plan.workload}-{planned.name}-pool")
        assert _started(pool) == planned.initial_nodes, planned.name
        assert set(pool.inputs["nodeLocations"]) <= set(planned.zones), planned.name


def test_shipped_l4_serving_stack_starts_the_planned_nodes_and_prices_what_starts():
    import math
    from pathlib import Path

    from accelfit.preview.run import preview_stack

    document = preview_stack("example-gcp-l4-inference", Path(__file__).parents[3]).document
    planned = {pool["name"]: pool for pool in document["plan"]["node_pools"]}
    gpu = planned["gpu"]
    # The case that went wrong: a count that does not divide by the zones (rounded up per zone, GKE started
    # more nodes than the plan priced: 8 L4 nodes over 3 zones started 9). Since issue 34 this stack starts its 3
    # nodes (the minimum, ceil(3 / 1.3)) over 3 zones; the uneven counts are test_gcp_node_settings'
    # test_starting_zones_start_exactly_the_planned_total.
    assert len(gpu["zones"]) == 3 and gpu["initial_nodes"] == math.ceil(gpu["max_nodes"] / 1.3) == 3
    rows = {row["name"]: row for row in document["resources"]}
    for name, pool in (("chat-serve-gpu-pool", gpu), ("chat-serve-gke-system", planned["system"])):
        inputs = rows[name]["inputs"]
        started = inputs["initialNodeCount"] * len(inputs["nodeLocations"])
        assert started == pool["initial_nodes"], name
        # The month is priced from the pool's minimum, which is what starts.
        assert inputs["autoscaling"]["totalMinNodeCount"] == started, name
        assert f"{started}-" in rows[name]["cost_basis"], name


def test_an_existing_pool_is_not_replaced_for_its_initial_count(l4):
    # initialNodeCount forces a new pool, and only matters at creation (pulumi_gcp NodePool docs).
    for pool in l4.of_type("gcp:container/nodePool:NodePool"):
        assert "initialNodeCount" in pool.ignore_changes, pool.name
