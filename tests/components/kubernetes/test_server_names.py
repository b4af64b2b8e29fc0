"""Model server object names fit what Kubernetes derives from them (issue 36 item 5): a LeaderWorkerSet's worker
pods carry `controller-revision-hash: <lws>-<group>-<hash>` (at most 63: kubernetes#64023, lws#410), so a 38-40
character workload with a standby pool (`<name>-vllm-gpu-fb2`, 51-53 characters) never got its workers. Names that
fit keep their form, so the servers of existing stacks are not renamed."""

from __future__ import annotations

from accelfit.catalog import load_catalog
from accelfit.planner import plan_fleet
from accelfit.planner.planner import Environment
from accelfit.planner.serving.route_plan import route_pools, server_name
from accelfit.spec import WorkloadSpec
from accelfit.values import REVISION_HASH_CHARS
from components.kubernetes.build import servings
from components.kubernetes.serving import manifests
from components.kubernetes.serving.manifests import PoolTarget, ServerSettings

LONG = "a-forty-character-workload-name-abcdefgh"


def planned(name: str):
    workload = WorkloadSpec.model_validate({
        "name": name, "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "405B", "precision": "bf16", "weights": "s3://acme-models/llama-405b"},
        "inference": {"requests_per_second": 2, "latency_p99_ms": 60000},
        "placement": {"clouds": ["aws"], "regions": ["us-east-1"], "accelerators": ["h100-80gb"]}})
    fleet, _ = plan_fleet([workload], load_catalog(), Environment(name="staging"), None, fleet_name=None)
    return fleet.workloads[0].plan


def revision_labels(lws_name: str, groups: int) -> list[str]:
    """The longest controller-revision-hash each StatefulSet of the LWS gives its pods: the leaders' and the
    workers' of the highest group index."""
    return [f"{lws_name}-{'h' * REVISION_HASH_CHARS}", f"{lws_name}-{groups - 1}-{'h' * REVISION_HASH_CHARS}"]


def test_a_forty_character_workload_with_a_standby_pool_gets_a_leader_worker_set_its_workers_can_join():
    assert len(LONG) == 40
    plan = planned(LONG)
    pool = plan.serving.pools[0].model_copy(update={"node_pools": ("gpu-fb2",)})
    assert pool.nodes_per_replica == 2
    assert len(f"{LONG}-vllm-gpu-fb2") == 53  # the reproduction: 53 - 1 - 1 - 10 > 51 (lws#410)
    build = servings([(plan, "", (plan.workload,))])[0]
    settings = ServerSettings(workload=build.workload, namespace=build.namespace, service_account="sa",
                              cloud=build.cloud, region=build.region, serving=build.serving)
    body = manifests.leader_worker_set(settings, PoolTarget(pool=pool, pool_label="x", pool_names=["x"]))
    name = body["metadata"]["name"]
    assert name == server_name(LONG, pool) and name.endswith("-vllm-gpu-fb2") and name.startswith(LONG[:20])
    for label in revision_labels(name, pool.replicas_max):
        assert len(label) <= 63, label
    # The Service and the disruption budget name the same object; the autoscaler's route targets it.
    assert manifests.service(settings, pool)["metadata"]["name"] == name
    standby = plan.model_copy(update={"serving": plan.serving.model_copy(update={"pools": (pool,)})})
    assert route_pools(standby)[0].server == name


def test_names_that_fit_are_unchanged():
    plan = planned("big")
    pool = plan.serving.pools[0]
    assert server_name("big", pool) == f"big-vllm-{pool.node_pools[0]}"
    # 50 characters, up to 10 groups: its worker pods' labels fit (50 + 2 + 11 = 63), so it keeps its name...
    fits = pool.model_copy(update={"replicas_max": 10})
    assert server_name("w" * 41, fits) == "w" * 41 + "-vllm-gpu"
    # ...until an 11th group (index 10) would not fit: then, and only then, it is cut.
    assert len(server_name("w" * 41, fits.model_copy(update={"replicas_max": 11}))) == 49
    single = pool.model_copy(update={"nodes_per_replica": 1, "node_pools": ("gpu-1-fb2",)})
    assert server_name(LONG, single) == f"{LONG}-vllm-gpu-1-fb2"  # a Deployment: a DNS label (63) is enough
