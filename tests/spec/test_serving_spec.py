"""model.weights, inference.server and the TTFT/TPOT targets: good forms parse, each bad one names its field and fix."""

import copy

import pytest

from accelfit.errors import InputError
from accelfit.spec import ModelServer, workload_from_document

SERVE = {
    "name": "chat",
    "kind": "inference",
    "framework": "pytorch",
    "model": {"parameters": "8B", "precision": "bf16"},
    "inference": {"requests_per_second": 10, "latency_p99_ms": 10000},
    "placement": {"clouds": ["gcp"]},
}


def document(model=None, inference=None, placement=None, **top):
    doc = copy.deepcopy(SERVE)
    doc["model"].update(model or {})
    doc["inference"].update(inference or {})
    doc["placement"].update(placement or {})
    doc.update(top)
    return doc


def parsed(doc):
    return workload_from_document(doc, "spec.yaml")[0]


def problem_of(doc):
    with pytest.raises(InputError) as caught:
        workload_from_document(doc, "spec.yaml")
    found = caught.value.problems[0]
    assert found.file == "spec.yaml"
    return Found(found.field, f"{found.message}; {found.fix}")


class Found:
    def __init__(self, field, message):
        self.field, self.message = field, message


def test_server_defaults_to_none_without_weights_and_vllm_with_them():
    assert parsed(document()).model_server is ModelServer.none
    assert parsed(document({"weights": "gs://acme-models/llama-3.1-8b"})).model_server is ModelServer.vllm


def test_explicit_server_none_keeps_weights_without_a_server():
    spec = parsed(document({"weights": "gs://acme-models/llama"}, {"server": "none"}))
    assert spec.model_server is ModelServer.none


@pytest.mark.parametrize("weights", ["gs://acme-models", "gs://acme-models/llama/3.1", "s3://acme.models/x",
                                     "hf://meta-llama/Llama-3.1-8B-Instruct"])
def test_weights_forms_parse(weights):
    placement = {"clouds": ["gcp", "aws"]}
    model = {"weights": weights, **({"weights_token": "accelfit:hfToken"} if weights.startswith("hf") else {})}
    assert parsed(document(model, placement=placement)).model.weights == weights


@pytest.mark.parametrize("weights, says", [
    ("http://example.com/model", "give gs://bucket/path"),
    ("gs://Acme_Models/x", "not a valid gs:// location"),
    ("s3://a/x", "not a valid s3:// location"),
    ("hf://just-a-name", "not a valid hf:// location"),
    ("gs://acme models/x", "not a valid gs:// location"),
])
def test_bad_weights_name_the_field_and_the_form(weights, says):
    found = problem_of(document({"weights": weights}, placement={"clouds": ["gcp", "aws"]}))
    assert found.field == "model.weights"
    assert says in found.message


def test_hf_weights_need_a_token_key_and_only_hf_takes_one():
    found = problem_of(document({"weights": "hf://meta-llama/Llama-3.1-8B"}))
    assert "weights_token" in found.field + found.message and "pulumi config set --secret" in found.message
    found = problem_of(document({"weights": "gs://acme-models/x", "weights_token": "accelfit:hfToken"}))
    assert "only used with hf://" in found.message
    found = problem_of(document({"weights": "hf://meta-llama/Llama-3.1-8B", "weights_token": "hf token"}))
    assert "namespace:key" in found.message


def test_bucket_cloud_must_be_allowed():
    found = problem_of(document({"weights": "s3://acme-models/x"}))  # placement.clouds is [gcp]
    assert "add aws to placement.clouds" in found.message


@pytest.mark.parametrize("changes, says", [
    (dict(inference={"server": "vllm"}), "required when inference.server is vllm"),
    (dict(model={"weights": "gs://acme-models/x"}, placement={"orchestration": "vms"}), "orchestration: kubernetes"),
    (dict(model={"weights": "gs://acme-models/x", "architecture": "other", "parameters": None,
                 "gflops_per_sample": 10, "memory_gib": 4}), "vllm serves transformer"),
])
def test_server_needs_weights_a_cluster_and_a_transformer(changes, says):
    doc = document(changes.get("model"), changes.get("inference"), changes.get("placement"))
    doc["model"] = {key: value for key, value in doc["model"].items() if value is not None}
    assert says in problem_of(doc).message


def test_weights_only_for_inference():
    doc = {"name": "t", "kind": "training", "framework": "jax", "model": {"parameters": "1B", "weights": "gs://a-b/c"},
           "training": {"tokens": "1B", "deadline_days": 3}}
    assert "only used for inference" in problem_of(doc).message


def test_ttft_and_tpot_targets_parse_and_stay_within_the_end_to_end_target():
    spec = parsed(document(inference={"ttft_p99_ms": 500, "tpot_p99_ms": 40}))
    assert (spec.inference.ttft_p99_ms, spec.inference.tpot_p99_ms) == (500, 40)
    found = problem_of(document(inference={"ttft_p99_ms": 20000}))
    assert found.field == "inference.ttft_p99_ms" and "latency_p99_ms" in found.message
    assert problem_of(document(inference={"tpot_p99_ms": 0})).field.endswith("tpot_p99_ms")
