"""Cluster, node-pool and node-group limits are sourced data, and sizes past them are split or flagged."""

from accelfit.planner.limits import (
    capacity_notes, max_cluster_nodes, nodes_per_pool, pods_cidr_for, pool_sizes, scale_limits,
)


def test_every_limit_has_a_source_and_date():
    for row in scale_limits():
        assert row.source and row.as_of and row.fix


def test_limits_match_the_providers_published_figures():
    assert nodes_per_pool("gke-gpu") == 1000
    assert nodes_per_pool("eks-gpu") == 450
    assert max_cluster_nodes("gke-gpu") == 15000
    assert max_cluster_nodes("eks-gpu") == 30 * 450


def test_pools_split_evenly_under_the_per_pool_limit():
    assert pool_sizes("gke-gpu", 999) == [999]
    assert pool_sizes("gke-gpu", 2048) == [683, 683, 682]
    assert pool_sizes("eks-gpu", 2048) == [410, 410, 410, 409, 409]
    for nodes in (1, 450, 451, 1000, 1001, 13_500):
        for platform in ("gke-gpu", "eks-gpu"):
            sizes = pool_sizes(platform, nodes)
            assert sum(sizes) == nodes and max(sizes) <= nodes_per_pool(platform)


def test_sizes_past_quotas_and_stock_say_what_to_do():
    assert capacity_notes("gke-gpu", 8) == []
    big = " ".join(capacity_notes("gke-gpu", 6000))
    assert "cluster size quota" in big and "regional cluster" in big and "reservation" in big
    assert any("Capacity Blocks" in note for note in capacity_notes("eks-gpu", 200))


def test_pods_range_grows_with_the_node_count():
    assert pods_cidr_for(1024, "10.64.0.0/14") == "10.64.0.0/14"
    assert pods_cidr_for(1025, "10.64.0.0/14") == "10.128.0.0/13"
    assert pods_cidr_for(15000, "10.64.0.0/14") == "10.128.0.0/10"
