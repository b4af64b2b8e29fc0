"""The shared-cluster rules (accelfit/cloudrules/data/shared_cluster_rules.yaml), each shown catching a breach,
and the pure Kueue routing of a fleet (queues.cohort_queues, cluster_queue_spec with a cohort)."""

from __future__ import annotations

from accelfit.cloudrules.shared_cluster import (
    cohort_name_problems, pool_count_problems, queue_flavor_problems, shared_cluster_rules,
)
from components.kubernetes.queues import FlavorPlan, NodeCapacity, QueuePlan, cluster_queue_spec, cohort_queues


def test_every_rule_names_its_source():
    rules = shared_cluster_rules()
    assert {row.cloud for row in rules.node_pools_per_cluster} == {"gcp", "aws"}
    assert all(row.source and row.as_of for row in rules.node_pools_per_cluster)
    assert "8eab68778fc1b52affe165fdf5af29d1e9b4f3cb" in rules.kueue.source


def test_eks_node_group_quota_catches_a_31st_group():
    assert pool_count_problems("aws", "fleet", 30) == []
    [problem] = pool_count_problems("aws", "fleet", 31)
    assert "30" in problem.message and "Service Quotas" in problem.fix


def test_gke_node_pool_ceiling_catches_a_201st_pool():
    assert pool_count_problems("gcp", "fleet", 200) == []
    assert pool_count_problems("gcp", "fleet", 201)


def test_cohort_names_follow_kueues_pattern():
    assert cohort_name_problems("accelfit:fleet", "ml-fleet") == []
    for bad in ("ml_fleet", "ML", "-a", "a" * 254):
        assert cohort_name_problems("accelfit:fleet", bad), bad


def test_a_queue_lists_at_most_64_flavors():
    assert queue_flavor_problems("f", "q", 64) == []
    assert queue_flavor_problems("f", "q", 65)


def flavor(name: str, kind: str, accelerator: str, rank: int = 0) -> FlavorPlan:
    return FlavorPlan(name=name, pool=name, kind=kind, tier="on-demand", node_labels={}, taints=(),
                      capacity=NodeCapacity(accelerators=8, cpus=96, memory_gib=384), rank=rank,
                      accelerator=accelerator)


def test_queues_borrow_only_accelerators_their_workload_is_eligible_for():
    train = QueuePlan(name="train", flavors=(flavor("train-tpu", "tpu", "tpu-v5e"),), namespaces=("train",))
    serve = QueuePlan(name="serve", flavors=(flavor("serve-gpu", "gpu", "l4"),
                                             flavor("serve-gpu-fb1", "gpu", "l4", rank=1)), namespaces=("serve",))
    routed = cohort_queues([train, serve], {"train": frozenset({"tpu-v5e"}),
                                            "serve": frozenset({"l4", "tpu-v5e"})}, "fleet")
    assert [item.name for item in routed[0].borrowed] == []
    assert [item.name for item in routed[1].borrowed] == ["train-tpu"]
    spec = routed[1].spec()
    assert spec["cohortName"] == "fleet"
    [group] = spec["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "ephemeral-storage", "google.com/tpu", "nvidia.com/gpu"]
    assert [item["name"] for item in group["flavors"]] == ["serve-gpu", "serve-gpu-fb1", "train-tpu"]
    assert {quota["nominalQuota"] for quota in group["flavors"][2]["resources"]} == {"0"}


def test_outside_a_fleet_the_queue_spec_has_no_cohort_or_preemption():
    spec = cluster_queue_spec("q", [flavor("q-gpu", "gpu", "l4")])
    assert "cohortName" not in spec and "preemption" not in spec
