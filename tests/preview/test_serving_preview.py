"""Inference stacks with model.weights preview their model server (issue 26): per serving pool, in the plan's route
order, a vLLM Deployment (or LeaderWorkerSet) wired to the plan's numbers, its Service and PodDisruptionBudget, the
weights read through the workload's identity, the serving PriorityClass; the documents are pinned by golden files,
and plan = preview holds. A stack without model.weights builds no server."""

from __future__ import annotations

import json
import math
import os

import pytest

from accelfit.preview.run import preview_stack
from test_preview_stack import GOLDEN, with_secrets_set

STACKS = ("example-gcp-vllm-serving", "example-aws-vllm-serving", "example-gcp-vllm-mixed-fleet")
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


@pytest.fixture(scope="module", params=STACKS)
def previewed(request):
    return request.param, preview_stack(request.param, with_secrets_set(request.param)).document


def of_type(document, kind):
    return [row for row in document["resources"] if row["type"] == kind]


def servers(document):
    """The model-server Deployments (the serving route adds its endpoint picker's Deployment beside them)."""
    return [row for row in of_type(document, DEPLOYMENT)
            if row["inputs"]["spec"]["template"]["metadata"]["labels"].get("app.kubernetes.io/name") == "vllm"]


def plans_of(document):
    """Each workload's plan as the preview shows it (the single form's `plan`, a fleet's members' plans)."""
    if document.get("form") == "fleet":
        return [member["plan"] for member in document["plan"]["workloads"]]
    return [document["plan"]]


def flag(args, name):
    return next(arg.split("=", 1)[1] for arg in args if arg.startswith(f"{name}="))


def test_the_autoscaler_owns_the_replica_count_after_creation(previewed):
    """The plan's replicas are the first count; every later `pulumi up` leaves spec.replicas to KEDA's HPA (each
    server has a ScaledObject), so a deploy never resets a scaled-out server or conflicts with the scale
    subresource under server-side apply."""
    _, document = previewed
    scaled = {row["inputs"]["spec"]["scaleTargetRef"]["name"]
              for row in of_type(document, "kubernetes:keda.sh/v1alpha1:ScaledObject")}
    for row in servers(document):
        assert row["inputs"]["metadata"]["name"] in scaled
        assert "spec.replicas" in row["ignore_changes"], row["name"]


def test_preview_documents_are_stable(previewed):
    stack, document = previewed
    rendered = json.dumps(document, indent=2, sort_keys=True) + "\n"
    golden = GOLDEN / f"preview-{stack}.json"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN"):
        golden.write_text(rendered)
    assert rendered == golden.read_text()


def test_every_serving_pool_gets_a_server_wired_to_the_plan(previewed):
    _, document = previewed
    deployments = {row["inputs"]["metadata"]["name"]: row["inputs"] for row in servers(document)}
    services = {row["inputs"]["metadata"]["name"]: row["inputs"] for row in
                of_type(document, "kubernetes:core/v1:Service")}
    budgets = {row["inputs"]["metadata"]["name"] for row in of_type(document, "kubernetes:policy/v1:PodDisruptionBudget")}
    checked = 0
    for plan in plans_of(document):
        serving = plan["serving"]
        assert serving["server"] == "vllm"
        for pool in serving["pools"]:
            name = f"{plan['workload']}-vllm-{pool['node_pools'][0]}"
            spec = deployments[name]["spec"]
            container = spec["template"]["spec"]["containers"][0]
            args = container["args"]
            assert flag(args, "--tensor-parallel-size") == str(pool["tensor_parallel"])
            assert flag(args, "--pipeline-parallel-size") == str(pool["pipeline_parallel"])
            assert flag(args, "--max-num-seqs") == str(pool["max_num_seqs"])
            assert flag(args, "--max-model-len") == str(pool["max_model_len"])
            assert flag(args, "--dtype") == pool["dtype"]
            assert float(flag(args, "--gpu-memory-utilization")) == pool["gpu_memory_utilization"]
            assert spec["replicas"] == pool["replicas_min"]
            resource = "google.com/tpu" if pool["kind"] == "tpu" else "nvidia.com/gpu"
            assert container["resources"]["limits"] == {resource: str(pool["chips_per_replica"])}
            estimate = (pool["weights_load_seconds"] or 0) + pool["startup_seconds"]
            startup = container["startupProbe"]
            assert startup["failureThreshold"] == math.ceil(max(300, 2 * estimate) / startup["periodSeconds"])
            requests = container["resources"]["requests"]
            assert (requests["cpu"], requests["memory"]) == (f"{pool['cpu_millis_per_pod']}m",
                                                             f"{pool['memory_mib_per_pod']}Mi")
            image = container["image"]
            assert ("vllm-tpu" in image) == (pool["kind"] == "tpu") and ":v" in image
            labels = spec["template"]["metadata"]["labels"]
            assert labels["app.kubernetes.io/name"] == "vllm"
            assert labels["accelfit.io/workload"] == plan["workload"]
            assert labels["accelfit.io/serving-pool"] == pool["node_pools"][0]
            service = services[name]["spec"]
            assert service["type"] == "ClusterIP" and service["ports"][0]["name"] == "http"
            assert service["ports"][0]["port"] == 8000
            assert service["selector"] == spec["selector"]["matchLabels"]
            assert name in budgets
            pod = spec["template"]["spec"]
            assert pod["priorityClassName"] == "accelfit-serving" and pod["serviceAccountName"] == plan["workload"]
            pools = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
                "nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
            assert len(pools) == len(pool["node_pools"])
            checked += 1
    # Every workload has at least its planned pool's server (the shipped examples list one pricing model, so since
    # the buying-models merge they have no standby pool: one server per workload).
    assert checked == len(deployments) >= len(plans_of(document))


def test_the_route_order_is_the_plans_planned_pool_first_then_standby_from_zero(previewed):
    _, document = previewed
    for plan in plans_of(document):
        pools = plan["serving"]["pools"]
        assert [pool["rank"] for pool in pools] == sorted(pool["rank"] for pool in pools)
        assert pools[0]["fallback_rank"] == 0 and pools[0]["replicas_min"] >= 1
        assert all(pool["replicas_min"] == 0 for pool in pools[1:])


def test_one_priority_class_per_cluster_ahead_of_batch(previewed):
    _, document = previewed
    classes = of_type(document, "kubernetes:scheduling.k8s.io/v1:PriorityClass")
    assert len(classes) == 1
    assert classes[0]["inputs"]["value"] > 0 and classes[0]["inputs"]["globalDefault"] is False


def test_weights_are_read_through_the_workloads_identity(previewed):
    stack, document = previewed
    if stack == "example-gcp-vllm-serving":
        readers = [row for row in of_type(document, "gcp:storage/bucketIAMMember:BucketIAMMember")
                   if row["name"].endswith("-weights-reader")]
        assert [row["inputs"]["bucket"] for row in readers] == ["acme-ml-models"]
        assert readers[0]["inputs"]["role"] == "roles/storage.objectViewer"
        pod = servers(document)[0]["inputs"]["spec"]["template"]
        assert pod["metadata"]["annotations"]["gke-gcsfuse/volumes"] == "true"
        volume = next(volume for volume in pod["spec"]["volumes"] if volume["name"] == "weights")
        assert volume["csi"]["volumeAttributes"]["bucketName"] == "acme-ml-models"
        assert "only-dir=llama-3.1-8b-instruct" in volume["csi"]["volumeAttributes"]["mountOptions"]
        assert flag(pod["spec"]["containers"][0]["args"], "--model") == "/models"
    elif stack == "example-aws-vllm-serving":
        policy = json.loads(next(row for row in of_type(document, "aws:iam/rolePolicy:RolePolicy")
                                 if row["name"].endswith("-weights-read"))["inputs"]["policy"])
        resources = {statement["Sid"]: statement["Resource"] for statement in policy["Statement"]}
        assert resources == {"ListWeights": "arn:aws:s3:::acme-ml-models",
                             "ReadWeights": "arn:aws:s3:::acme-ml-models/llama-3.1-8b-instruct/*"}
        container = servers(document)[0]["inputs"]["spec"]["template"]["spec"]["containers"][0]
        assert flag(container["args"], "--model") == "s3://acme-ml-models/llama-3.1-8b-instruct"
        assert "--load-format=runai_streamer" in container["args"]
        assert {"name": "AWS_REGION", "value": "us-east-1"} in container["env"]
        accounts = [row for row in of_type(document, "kubernetes:core/v1:ServiceAccount")
                    if not row["inputs"]["metadata"]["name"].endswith("-epp")]  # the route's endpoint picker
        assert [(row["inputs"]["metadata"]["name"], row["inputs"]["metadata"]["namespace"]) for row in accounts] \
            == [("chat-vllm", "chat-vllm")]
    else:
        secrets = [row for row in of_type(document, "kubernetes:core/v1:Secret") if "hf-token" in row["name"]]
        assert len(secrets) == 1 and secrets[0]["inputs"]["metadata"]["name"] == "summarize-vllm-hf-token"
        tpu = [row["inputs"] for row in of_type(document, DEPLOYMENT) if "summarize" in row["name"]]
        container = tpu[0]["spec"]["template"]["spec"]["containers"][0]
        assert {"name": "HUGGING_FACE_HUB_TOKEN", "valueFrom": {"secretKeyRef": {
            "name": "summarize-vllm-hf-token", "key": "token"}}} in container["env"]
        assert flag(container["args"], "--model") == "meta-llama/Llama-3.1-8B-Instruct"
        selector = tpu[0]["spec"]["template"]["spec"]["nodeSelector"]
        assert set(selector) == {"cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-tpu-topology"}


def test_plan_equals_preview(previewed):
    _, document = previewed
    if document.get("form") == "fleet":
        assert document["cost"]["monthly_usd"] == pytest.approx(document["plan"]["monthly_usd"], abs=0.05)
    else:
        assert document["cost"]["monthly_usd"] == pytest.approx(document["plan"]["estimate"]["monthly_usd"],
                                                                abs=0.05)


def test_an_inference_stack_without_weights_builds_no_server():
    document = preview_stack("example-gcp-l4-inference", with_secrets_set("example-gcp-l4-inference")).document
    assert document["plan"]["serving"]["server"] == "none"
    assert not of_type(document, DEPLOYMENT) and not of_type(document, "accelfit:kubernetes:ModelServer")
