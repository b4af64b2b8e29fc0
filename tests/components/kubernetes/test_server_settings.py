"""The model server's settings that decide whether it starts and keeps serving (issue 33, "Serving that answers"):
the --quantization flag only when the spec names a method vLLM accepts, CPU and memory requests from the plan's
machine shape (never BestEffort), and probes with the periods and thresholds of vLLM's production chart."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
import yaml

from accelfit.catalog import load_catalog
from accelfit.cli.main import main
from accelfit.planner.serving.server_pods import server_pods_data
from accelfit.spec import WorkloadSpec
from accelfit.engines.vllm_quantization import vllm_methods, vllm_tpu_methods
from components.kubernetes.serving import manifests

sys.path[:0] = [str(Path(__file__).parent)]
import serving_blueprints as blueprints  # noqa: E402
from test_model_server import at, planned, rendered, spec  # noqa: E402

CATALOG = load_catalog()


def _server(plan):
    settings, targets = rendered(plan)
    return manifests.deployment(settings, targets[0]), targets[0].pool


def _fp8(**model):
    return spec(model={"parameters": "8B", "precision": "fp8", "weights": "gs://acme-models/llama-3.1-8b-fp8",
                       **model},
                placement={"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["h100-80gb"]})


# --- --quantization ---

def test_an_fp8_checkpoint_gets_no_quantization_flag_by_default():
    """The usual FP8 checkpoints declare their own method (compressed-tensors, modelopt); vLLM refuses a
    --quantization=fp8 that contradicts it (vllm/config/model.py _verify_quantization at v0.11.0)."""
    deployment, pool = _server(planned(_fp8()))
    args = at(deployment, "spec.template.spec.containers[0].args")
    assert pool.quantization is None
    assert not [arg for arg in args if arg.startswith("--quantization")]
    assert "--dtype=bfloat16" in args


@pytest.mark.parametrize("method", ["fp8", "compressed-tensors", "awq"])
def test_a_named_method_reaches_the_server_flag(method):
    deployment, pool = _server(planned(_fp8(quantization=method)))
    assert pool.quantization == method
    assert f"--quantization={method}" in at(deployment, "spec.template.spec.containers[0].args")


def test_an_unknown_method_is_refused_naming_the_field_and_the_values(capsys, tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump({
        "name": "chat", "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "8B", "precision": "fp8", "weights": "gs://acme-models/x", "quantization": "fp9"},
        "inference": {"requests_per_second": 20, "latency_p99_ms": 15000}, "placement": {"clouds": ["gcp"]}}))
    code = main(["check", str(path)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "model.quantization" in err and "did you mean fp8" in err and "compressed-tensors" in err
    assert "Traceback" not in out + err


def test_quantization_without_a_server_is_refused():
    with pytest.raises(ValueError, match=r"model\.quantization"):
        WorkloadSpec.model_validate({
            "name": "t", "kind": "training", "framework": "jax", "model": {"parameters": "1B", "quantization": "fp8"},
            "training": {"tokens": "1B", "deadline_days": 2}})


def test_the_accepted_values_are_the_pinned_vllm_release_list():
    """vllm 0.11.0's QuantizationMethods (28 names), and its TPU platform's supported_quantization."""
    assert len(vllm_methods()) == 28 and {"fp8", "compressed-tensors", "modelopt", "awq", "gptq"} <= set(vllm_methods())
    assert vllm_tpu_methods() == ("fp8", "tpu_int8", "compressed-tensors")
    assert set(vllm_tpu_methods()) <= set(vllm_methods())
    schema = WorkloadSpec.model_json_schema()
    text = str(schema)
    assert "compressed-tensors" in text  # the field's description lists the values for editors


def test_a_tpu_pool_refuses_a_method_vllm_tpu_does_not_accept():
    from accelfit.planner.serving.layout import server_quantization
    from accelfit.planner.sizes import Unfit

    awq = _fp8(quantization="awq")
    assert server_quantization(awq, "gpu") == "awq"
    with pytest.raises(Unfit, match="vLLM on TPU accepts fp8, tpu_int8, compressed-tensors"):
        server_quantization(awq, "tpu")
    assert server_quantization(_fp8(quantization="fp8"), "tpu") == "fp8"
    assert server_quantization(_fp8(), "tpu") is None


# --- CPU and memory requests ---

def test_the_server_requests_cpu_and_memory_from_the_plan_so_it_is_not_best_effort():
    plan = planned(spec())
    deployment, pool = _server(plan)
    container = at(deployment, "spec.template.spec.containers[0]")
    requests = container["resources"]["requests"]
    node = CATALOG.instance_type("gcp", pool.machine_type)
    pods = pool.accelerators_per_node // pool.chips_per_replica
    share = server_pods_data().request.share_of_node / pods
    assert requests["cpu"] == f"{math.floor(node.vcpus * share * 1000)}m"
    assert requests["memory"] == f"{math.floor(node.memory_gib * share * 1024)}Mi"
    assert requests["cpu"] == f"{pool.cpu_millis_per_pod}m" and pool.cpu_millis_per_pod > 0
    # Requests without limits: Burstable (kubernetes.io/docs/concepts/workloads/pods/pod-qos), never BestEffort.
    assert "cpu" not in container["resources"]["limits"] and "memory" not in container["resources"]["limits"]


def test_a_bigger_machine_raises_the_requests():
    small = planned(spec())
    big = planned(spec(placement={"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["h100-80gb"]}))
    _, small_pool = _server(small)
    _, big_pool = _server(big)
    assert big_pool.machine_type != small_pool.machine_type
    assert big_pool.memory_mib_per_pod > small_pool.memory_mib_per_pod


def test_requests_leave_room_for_the_node_reservation_on_the_smallest_gpu_machine():
    """GKE's documented reservation (plan-node-sizes) on a 4 vCPU / 16 GiB machine, plus the GCS FUSE sidecar's
    default requests (250m, 256 MiB), stay within what the server pod leaves."""
    share = server_pods_data().request.share_of_node
    vcpus, memory_gib = 4, 16.0
    reserved_cpu = 0.06 + 0.01 + 0.005 * 2
    reserved_memory = 0.25 * 4 + 0.20 * 4 + 0.10 * 8 + 0.1
    assert vcpus * share + reserved_cpu + 0.25 < vcpus
    assert memory_gib * share + reserved_memory + 0.25 < memory_gib


# --- probes ---

def test_probes_follow_the_vllm_production_chart():
    deployment, _ = _server(planned(spec()))
    chart = blueprints.VLLM_PRODUCTION_STACK
    for path, value in chart["facts"].items():
        assert at(deployment, path) == value, (path, chart["source"])
    readiness = at(deployment, "spec.template.spec.containers[0].readinessProbe")
    assert readiness["failureThreshold"] > 1  # one slow /health under full batch does not drop the endpoint


def test_the_startup_probe_still_covers_the_planned_load_time():
    deployment, pool = _server(planned(spec()))
    startup = at(deployment, "spec.template.spec.containers[0].startupProbe")
    waited = startup["periodSeconds"] * startup["failureThreshold"]
    estimate = (pool.weights_load_seconds or 0) + pool.startup_seconds
    assert waited >= max(manifests.STARTUP_FLOOR_SECONDS, manifests.STARTUP_SAFETY * estimate)
    assert waited < max(manifests.STARTUP_FLOOR_SECONDS, manifests.STARTUP_SAFETY * estimate) + startup["periodSeconds"]
