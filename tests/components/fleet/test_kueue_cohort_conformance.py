"""Conformance: the fleet's ClusterQueues against Kueue's own v1beta2 ClusterQueue schema at the version
components/kubernetes/data/charts.yaml pins. Facts read (not copied) from kubernetes-sigs/kueue tag v0.19.2
@8eab68778fc1b52affe165fdf5af29d1e9b4f3cb config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml (v1beta2:
served, storage) and apis/kueue/v1beta2/clusterqueue_types.go, read 2026-11-23. Mocks accept any field; Kueue's
API server rejects unknown fields and values outside these enums."""

from __future__ import annotations

import re

import pytest

import fleet_plans

KUEUE = {
    "repo": "kubernetes-sigs/kueue", "commit": "8eab68778fc1b52affe165fdf5af29d1e9b4f3cb",
    "path": "config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml",
    "spec_fields": {"admissionChecksStrategy", "admissionScope", "cohortName", "concurrentAdmissionPolicy",
                    "fairSharing", "flavorFungibility", "namespaceSelector", "preemption", "queueingStrategy",
                    "resourceGroups", "stopPolicy"},
    "queueingStrategy": {"StrictFIFO", "BestEffortFIFO"},
    "whenCanBorrow": {"MayStopSearch", "TryNextFlavor"},
    "whenCanPreempt": {"MayStopSearch", "TryNextFlavor"},
    "reclaimWithinCohort": {"Never", "LowerPriority", "Any"},
    "withinClusterQueue": {"Never", "LowerPriority", "LowerOrNewerEqualPriority"},
    "resource_groups_max": 16, "flavors_per_group_max": 64,
    "quota_fields": {"name", "nominalQuota", "borrowingLimit", "lendingLimit"},
    "cohort_pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", "cohort_max": 253,
}


@pytest.fixture(scope="module")
def queues():
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(
        eligible={"jax-pretrain": {"tpu-v5e"}, "chat-serve": {"l4", "tpu-v5e"}}))
    assert error is None, error
    found = [item.inputs for item in recording.resources
             if item.type == "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"]
    assert len(found) == 2
    return found


def test_spec_uses_only_v1beta2_fields_and_enum_values(queues):
    for queue in queues:
        spec = queue["spec"]
        assert set(spec) <= KUEUE["spec_fields"], set(spec) - KUEUE["spec_fields"]
        assert spec["queueingStrategy"] in KUEUE["queueingStrategy"]
        assert spec["flavorFungibility"]["whenCanBorrow"] in KUEUE["whenCanBorrow"]
        assert spec["flavorFungibility"]["whenCanPreempt"] in KUEUE["whenCanPreempt"]
        assert spec["preemption"]["reclaimWithinCohort"] in KUEUE["reclaimWithinCohort"]
        assert spec["preemption"]["withinClusterQueue"] in KUEUE["withinClusterQueue"]


def test_cohort_name_is_a_valid_cohort_reference(queues):
    for queue in queues:
        cohort = queue["spec"]["cohortName"]
        assert re.match(KUEUE["cohort_pattern"], cohort) and len(cohort) <= KUEUE["cohort_max"]


def test_resource_groups_fit_kueues_limits_and_list_every_covered_resource(queues):
    for queue in queues:
        groups = queue["spec"]["resourceGroups"]
        assert 1 <= len(groups) <= KUEUE["resource_groups_max"]
        for group in groups:
            assert 1 <= len(group["flavors"]) <= KUEUE["flavors_per_group_max"]
            for flavor in group["flavors"]:
                # CEL rule of ResourceGroup: every flavor lists as many resources as coveredResources, in order.
                assert [item["name"] for item in flavor["resources"]] == group["coveredResources"]
                for item in flavor["resources"]:
                    assert set(item) <= KUEUE["quota_fields"]
                    # borrowingLimit must be nil without a cohort (CEL rule of ClusterQueueSpec); we never set it.
                    assert "borrowingLimit" not in item
        names = [flavor["name"] for group in groups for flavor in group["flavors"]]
        assert len(names) == len(set(names)), "a flavor may appear in one resource group only"
