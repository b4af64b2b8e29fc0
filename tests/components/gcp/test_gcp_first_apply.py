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
