"""The model server's objects (components/kubernetes/serving): conformance with the upstream blueprints field by field
(serving_blueprints.py), the multi-node LeaderWorkerSet against its pinned CRD, the LWS controller installed only
when a replica spans nodes (recorded under mocks), and bad arguments refused before anything is created."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.errors import InputError
from accelfit.planner import plan_fleet
from accelfit.planner.planner import Environment
from accelfit.preview.recorder import record
from accelfit.spec import WorkloadSpec
from components.kubernetes.build import servings
from components.kubernetes.serving import manifests
from components.kubernetes.serving.images import server_images
from components.kubernetes.serving.manifests import PoolTarget, ServerSettings
from components.kubernetes.serving.model_server import ModelServerArgs, validate_model_server_args

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[2] / "checks"),
                str(Path(__file__).parents[1] / "aws")]
import aws_plans  # noqa: E402
import serving_blueprints as blueprints  # noqa: E402
from k8s_schemas import Report, builtin_problems, crds, custom_resource_problems  # noqa: E402

CATALOG = load_catalog()


def spec(**inference) -> WorkloadSpec:
    base = {"name": "chat", "kind": "inference", "framework": "pytorch",
            "model": {"parameters": "8B", "precision": "bf16", "weights": "gs://acme-models/llama-3.1-8b"},
            "inference": {"requests_per_second": 20, "latency_p99_ms": 15000},
            "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["l4"]}}
    return WorkloadSpec.model_validate(base | inference)


def planned(workload: WorkloadSpec):
    fleet, _ = plan_fleet([workload], CATALOG, Environment(name="staging"), None, fleet_name=None)
    return fleet.workloads[0].plan


def rendered(plan, pool_label: str = "cloud.google.com/gke-nodepool"):
    build = servings([(plan, "", (plan.workload,))])[0]
    settings = ServerSettings(workload=build.workload, namespace=build.namespace,
                              service_account=build.service_account, cloud=build.cloud, region=build.region,
                              serving=build.serving, hf_secret=build.hf_secret)
    targets = [PoolTarget(pool=placement.pool, pool_label=pool_label,
                          pool_names=[f"{plan.workload}-{name}" for name in placement.pool.node_pools],
                          taints=placement.taints, tpu_labels=dict(placement.tpu_labels))
               for placement in build.pools]
    return settings, targets


def at(document, path: str):
    node = document
    for part in path.replace("]", "").split("."):
        name, _, index = part.partition("[")
        node = node[name]
        if index:
            node = node[int(index)]
    return node


@pytest.fixture(scope="module")
def gke():
    return rendered(planned(spec()))


def test_deployment_matches_the_gke_inference_quickstart_field_by_field(gke):
    settings, targets = gke
    deployment = manifests.deployment(settings, targets[0])
    blueprint = blueprints.GKE_INFERENCE_QUICKSTART
    assert deployment["kind"] == blueprint["kind"]
    for path, value in blueprint["facts"].items():
        assert at(deployment, path) == value, (path, blueprint["source"])
    for path, kind in blueprint["derived"].items():
        assert isinstance(at(deployment, path), kind), path
    volumes = {volume["name"]: volume for volume in at(deployment, "spec.template.spec.volumes")}
    assert volumes["dshm"]["emptyDir"] == blueprint["volumes"]["shm"]["emptyDir"]
    assert {"name": "dshm", "mountPath": "/dev/shm"} in at(deployment, "spec.template.spec.containers[0].volumeMounts")


def test_flags_and_service_match_the_gke_vllm_tutorial(gke):
    settings, targets = gke
    args = at(manifests.deployment(settings, targets[0]), "spec.template.spec.containers[0].args")
    names = {arg.split("=", 1)[0]: arg.split("=", 1)[1] for arg in args}
    tutorial = blueprints.GKE_VLLM_TUTORIAL
    assert set(tutorial["flags"]) <= set(names), tutorial["source"]
    for name, value in tutorial["flag_values"].items():
        assert names[name] == value
    service = manifests.service(settings, targets[0].pool)
    for path, value in tutorial["service"].items():
        assert at(service, path) == value


def test_weights_volume_matches_the_gcsfuse_model_serving_sample(gke):
    settings, targets = gke
    template = at(manifests.deployment(settings, targets[0]), "spec.template")
    sample = blueprints.GCSFUSE_MODEL_SERVING
    key, value = sample["pod_annotation"]
    assert template["metadata"]["annotations"][key] == value
    for key, value in sample["sidecar_annotations"].items():
        assert template["metadata"]["annotations"][key] == value
    volume = next(volume for volume in template["spec"]["volumes"] if volume["name"] == "weights")
    assert volume["csi"]["driver"] == sample["driver"] and volume["csi"]["readOnly"] is sample["read_only"]
    options = volume["csi"]["volumeAttributes"]["mountOptions"].split(",")
    assert options[:len(sample["mount_options"])] == list(sample["mount_options"])
    assert options[-1] == "only-dir=llama-3.1-8b"


def test_every_built_in_object_validates_for_the_clusters_versions(gke):
    settings, targets = gke
    for target in targets:
        for body in (manifests.deployment(settings, target), manifests.service(settings, target.pool),
                     manifests.disruption_budget(settings, target.pool)):
            for minor in ("1.34", "1.36"):
                assert builtin_problems(body, minor) == [], (body["kind"], minor)
    assert builtin_problems(manifests.priority_class({}), "1.34") == []


@pytest.fixture(scope="module")
def multi_node():
    workload = WorkloadSpec.model_validate({
        "name": "big", "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "405B", "precision": "bf16", "weights": "s3://acme-models/llama-405b"},
        "inference": {"requests_per_second": 2, "latency_p99_ms": 60000},
        "placement": {"clouds": ["aws"], "regions": ["us-east-1"], "accelerators": ["h100-80gb"]}})
    plan = planned(workload)
    return plan, *rendered(plan, "eks.amazonaws.com/nodegroup")


def test_a_multi_node_replica_is_a_leader_worker_set_valid_against_its_pinned_crd(multi_node):
    _plan, settings, targets = multi_node
    pool = targets[0].pool
    assert (pool.nodes_per_replica, pool.tensor_parallel, pool.pipeline_parallel) == (2, 8, 2)
    body = manifests.leader_worker_set(settings, targets[0])
    crd = crds()[(body["apiVersion"], body["kind"])]
    report = Report()
    assert custom_resource_problems(body, crd, report) == []
    lws = blueprints.LWS_VLLM_GPU
    assert body["apiVersion"] == lws["apiVersion"]
    for path, value in lws["facts"].items():
        assert at(body, path) == value, (path, lws["source"])
    assert at(body, "spec.leaderWorkerTemplate.size") == 2
    leader = at(body, "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0]")
    assert leader["command"][2].startswith(lws["leader_command_starts"])
    # The server's argv follows as arguments (`exec "$@"`), never as shell text: tests/components/kubernetes/
    # test_container_commands.py runs it with stub binaries.
    assert leader["args"][:3] == ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert "--tensor-parallel-size=8" in leader["args"] and "--pipeline-parallel-size=2" in leader["args"]
    assert "--load-format=runai_streamer" in leader["args"]
    worker = at(body, "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0]")
    assert worker["command"][2] == lws["worker_command"]
    assert worker["resources"]["limits"] == {"nvidia.com/gpu": "8"}  # one node of the group per pod
    worker_labels = at(body, "spec.leaderWorkerTemplate.workerTemplate.metadata.labels")
    assert "app.kubernetes.io/name" not in worker_labels  # only the leader is an endpoint
    assert manifests.service(settings, pool)["spec"]["selector"]["role"] == lws["service_selector_role"]


def test_the_lws_crd_catches_a_breach(multi_node):
    _, settings, targets = multi_node
    body = manifests.leader_worker_set(settings, targets[0])
    body["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Sometimes"
    report = Report()
    assert custom_resource_problems(body, crds()[(body["apiVersion"], body["kind"])], report)


def test_the_lws_controller_is_installed_only_for_multi_node_serving(multi_node):
    from components.build import build

    plan = multi_node[0]
    recording = record(lambda: build(plan, aws_plans.ownership_for(plan)), config=aws_plans.ACCESS_CONFIG)
    releases = [item for item in recording.resources if item.type == "kubernetes:helm.sh/v3:Release"]
    lws = [item for item in releases if item.inputs.get("chart") == "oci://registry.k8s.io/lws/charts/lws"]
    assert len(lws) == 1 and lws[0].inputs["version"] == "0.7.0"
    sets = [item for item in recording.resources if item.type == "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"]
    assert len(sets) == len(plan.serving.pools)
    assert all("spec.replicas" in item.ignore_changes for item in sets)  # the autoscaler owns it after creation
    single = planned(spec())  # single-node replicas: no controller
    assert not any(build.multi_node for build in servings([(single, "", (single.workload,))]))


def test_images_are_pinned_and_say_whether_the_digest_was_checked():
    for image in server_images().values():
        assert image.tag.startswith("v") and image.source and image.as_of
        assert image.digest is None or image.digest.startswith("sha256:")
        assert image.digest_verified is False  # not checked against a registry from here; the data says so
        assert image.reference.endswith(image.digest or image.tag)


def test_bad_arguments_are_refused_before_anything_is_created(gke):
    settings, targets = gke
    with pytest.raises(InputError) as caught:
        validate_model_server_args("s", ModelServerArgs(settings=settings, targets=()))
    assert "no serving pool" in str(caught.value)
    with pytest.raises(InputError) as caught:
        validate_model_server_args("s", ModelServerArgs(settings=settings, targets=(targets[0], targets[0])))
    assert "share a node pool" in str(caught.value)
    hf = ServerSettings(**{**settings.__dict__, "hf_secret": "chat-hf-token"})
    with pytest.raises(InputError) as caught:
        validate_model_server_args("s", ModelServerArgs(settings=hf, targets=tuple(targets)))
    assert "token" in str(caught.value)


def test_a_moe_replica_over_two_nodes_is_built_expert_parallel_as_planned():
    """DeepSeek-V3 in FP8 on H100: the plan models the replica expert parallel over its two nodes (data-parallel
    attention per node), and the LeaderWorkerSet's leader runs vLLM with those flags, not pipeline stages."""
    workload = WorkloadSpec.model_validate({
        "name": "moe", "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "671B", "active_parameters": "37B", "experts": 256, "experts_per_token": 8,
                  "precision": "fp8", "layers": 61, "hidden_size": 7168, "attention_heads": 128, "attention": "mla",
                  "kv_lora_rank": 512, "rope_head_dim": 64, "context_tokens": 32768,
                  "weights": "s3://acme-models/deepseek-v3"},
        "inference": {"requests_per_second": 2, "latency_p99_ms": 60000},
        "placement": {"clouds": ["aws"], "regions": ["us-east-1"], "accelerators": ["h100-80gb"]}})
    plan = planned(workload)
    settings, targets = rendered(plan, "eks.amazonaws.com/nodegroup")
    pool = targets[0].pool
    assert (pool.nodes_per_replica, pool.tensor_parallel, pool.pipeline_parallel, pool.data_parallel,
            pool.expert_parallel) == (2, 8, 1, 2, True)
    body = manifests.leader_worker_set(settings, targets[0])
    assert at(body, "spec.leaderWorkerTemplate.size") == 2
    args = at(body, "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0]")["args"]
    assert {"--tensor-parallel-size=8", "--data-parallel-size=2", "--data-parallel-backend=ray",
            "--enable-expert-parallel"} <= set(args)
    assert not any(arg.startswith("--pipeline-parallel-size") for arg in args)
    assert f"--max-num-seqs={-(-pool.max_num_seqs // 2)}" in args
