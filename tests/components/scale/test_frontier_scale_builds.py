"""A 16K-GPU training plan (Llama 3.1 405B scale) is not only expressible but built: the planner splits it into
several node pools (GKE, at most 1,000 nodes per pool and zone) or managed node groups (EKS, 450 nodes each by
default), and the GCP and AWS components create every one of them (recorded under Pulumi mocks)."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import plan
from accelfit.preview.recorder import record
from accelfit.spec import WorkloadSpec
from components.common import Ownership


def frontier_spec(cloud: str) -> WorkloadSpec:
    return WorkloadSpec.model_validate({
        "name": "llama-405b", "kind": "training", "framework": "pytorch",
        "model": {"parameters": "405B", "precision": "bf16", "layers": 126, "hidden_size": 16384,
                  "attention_heads": 128, "kv_heads": 8, "context_tokens": 8192},
        "training": {"tokens": "15.6T", "deadline_days": 80},
        "placement": {"clouds": [cloud], "accelerators": ["h100-80gb"]},
    })


def owner(result) -> Ownership:
    return Ownership(team="research-llm", cost_center="cc-4410", environment=result.environment,
                     workload=result.workload)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.mark.parametrize(("cloud", "pool_type", "size_key", "limit"), [
    ("gcp", "gcp:container/nodePool:NodePool", "autoscaling", 1000),
    ("aws", "aws:eks/nodeGroup:NodeGroup", "scalingConfig", 450),
])
def test_frontier_run_builds_every_pool(catalog, cloud, pool_type, size_key, limit):
    result = plan(frontier_spec(cloud), catalog)
    gpu_pools = [pool for pool in result.node_pools if pool.role == "gpu"]
    assert result.accelerator.count >= 12_000 and len(gpu_pools) >= 2
    assert all(pool.max_nodes <= limit for pool in gpu_pools)
    if cloud == "gcp":
        from components.gcp import build

        recording = record(lambda: build(result, owner(result), catalog=catalog, project="acme-ml-examples"))
        # Past 1,024 nodes the default /14 pods range (a /24 per node) is too small; the plan widens it.
        assert result.network.pods_cidr != "10.64.0.0/14"
    else:
        from components.aws import ClusterAccess, build

        # EKS stacks say who reaches the API (components/aws/cluster_access.py).
        access = ClusterAccess(public_access_cidrs=("203.0.113.0/24",))
        recording = record(lambda: build(result, owner(result), catalog, access))
    created = [item for item in recording.resources if item.type == pool_type]
    accelerated = [item for item in created if "system" not in item.name]
    assert len(accelerated) == len(gpu_pools)
    if cloud == "gcp":
        total = sum(item.inputs[size_key]["totalMaxNodeCount"] for item in accelerated)
    else:
        total = sum(item.inputs[size_key]["maxSize"] for item in accelerated)
    assert total == result.accelerator.nodes
