"""SGLang, the second engine (accelfit/engines/sglang.py): what the plan decides reaches its flags, its port,
probes, metrics, the endpoint picker's metric flags and the autoscaler's query; what SGLang cannot do is refused."""

from __future__ import annotations

import dataclasses

import pytest

from accelfit.catalog import load_catalog
from accelfit.engines import engine, engines
from accelfit.planner import plan_fleet
from accelfit.planner.planner import Environment
from accelfit.planner.serving.traffic import pool_scaling
from accelfit.spec import WorkloadSpec
from components.kubernetes.build import servings
from components.kubernetes.serving import manifests
from components.kubernetes.serving.manifests import PoolTarget, ServerSettings
from components.kubernetes.serving.routing import epp_args

CATALOG = load_catalog()


def spec(server: str = "sglang", **overrides) -> WorkloadSpec:
    base = {"name": "chat", "kind": "inference", "framework": "pytorch",
            "model": {"parameters": "8B", "precision": "bf16", "weights": "gs://acme-models/llama-3.1-8b"},
            "inference": {"requests_per_second": 20, "latency_p99_ms": 15000, "server": server},
            "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["l4"]}}
    return WorkloadSpec.model_validate(base | overrides)


@pytest.fixture(scope="module")
def plan():
    fleet, _ = plan_fleet([spec()], CATALOG, Environment(name="staging"), None, fleet_name=None)
    return fleet.workloads[0].plan


def settings_and_target(plan):
    build = servings([(plan, "", (plan.workload,))])[0]
    settings = ServerSettings(workload=build.workload, namespace=build.namespace,
                              service_account=build.service_account, cloud=build.cloud, region=build.region,
                              serving=build.serving, hf_secret=build.hf_secret)
    placement = build.pools[0]
    target = PoolTarget(pool=placement.pool, pool_label="cloud.google.com/gke-nodepool",
                        pool_names=[f"{plan.workload}-{name}" for name in placement.pool.node_pools],
                        taints=placement.taints, tpu_labels=dict(placement.tpu_labels))
    return settings, target


def container(document):
    return document["spec"]["template"]["spec"]["containers"][0]


def test_the_plan_reaches_sglangs_flags_port_and_probes(plan):
    assert plan.serving.server == "sglang"
    settings, target = settings_and_target(plan)
    pool = target.pool
    server = container(manifests.deployment(settings, target))
    assert server["command"] == ["python3", "-m", "sglang.launch_server"]
    args = server["args"]
    assert f"--tp-size={pool.tensor_parallel}" in args and f"--max-running-requests={pool.max_num_seqs}" in args
    assert f"--context-length={pool.max_model_len}" in args and "--enable-metrics" in args
    assert f"--mem-fraction-static={pool.gpu_memory_utilization:g}" in args and "--port=30000" in args
    assert server["ports"][0]["containerPort"] == 30000
    assert server["readinessProbe"]["httpGet"]["path"] == "/health"
    assert server["image"].startswith("docker.io/lmsysorg/sglang:")


def test_a_changed_plan_number_changes_the_rendered_flag(plan):
    settings, target = settings_and_target(plan)
    bigger = dataclasses.replace(target, pool=target.pool.model_copy(update={"max_num_seqs": 7, "tensor_parallel": 2}))
    args = container(manifests.deployment(settings, bigger))["args"]
    assert "--max-running-requests=7" in args and "--tp-size=2" in args


def test_the_picker_and_the_autoscaler_read_sglangs_gauges(plan):
    route = plan.route
    assert route is not None and route.server == "sglang"
    picker = epp_args(route)
    # gateway-api-inference-extension v1.3.1 site-src/implementations/model-servers.md, "SGLang"
    assert "--total-queued-requests-metric=sglang:num_queue_reqs" in picker
    assert "--kv-cache-usage-percentage-metric=sglang:token_usage" in picker and "--lora-info-metric=" in picker
    [scaling, *_] = pool_scaling(route.namespace, route.pools, server="sglang")
    assert all("sglang:num_queue_reqs" in query for _, query, _ in scaling.triggers)
    assert not any("vllm:" in query for _, query, _ in scaling.triggers)


def test_a_multi_node_group_joins_through_the_lws_variables():
    server = engine("sglang")
    shape = manifests.ServerShape(workload="w", model="m", weights_scheme="hf", tensor_parallel=8,
                                  pipeline_parallel=2, nodes=2, max_running_requests=64, max_model_len=8192,
                                  dtype="bfloat16", memory_fraction=0.9)
    serve = server.argv(shape)
    for launch in (server.leader(shape, serve), server.worker(shape, serve)):
        assert launch.command[:3] == ("python3", "-m", "sglang.launch_server") and "--pp-size=2" in launch.command
        assert launch.args == ("--dist-init-addr=$(LWS_LEADER_ADDRESS):20000", "--nnodes=$(LWS_GROUP_SIZE)",
                               "--node-rank=$(LWS_WORKER_INDEX)")


def test_what_sglang_cannot_do_is_refused():
    with pytest.raises(ValueError, match="s3://"):
        spec(model={"parameters": "8B", "precision": "bf16", "weights": "s3://acme/llama"})
    with pytest.raises(ValueError, match="quantization"):
        spec(model={"parameters": "8B", "precision": "bf16", "weights": "gs://acme/llama", "quantization": "hqq"})
    assert engine("sglang").accelerator_kinds == ("gpu",)
    assert set(engines()) == {"vllm", "sglang"}
