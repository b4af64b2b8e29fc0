"""Workload spec: table-driven good and bad cases; each bad case asserts the field path in the message."""

import contextlib
import copy

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelfit.errors import InputError
from accelfit.spec import Deployment, Precision, WorkloadKind, WorkloadSpec, workload_from_document
from accelfit.spec.loader import load_workload

BASE = {
    "name": "llm-pretrain",
    "kind": "training",
    "framework": "jax",
    "model": {"parameters": "70B", "precision": "bf16"},
    "training": {"tokens": "2T", "deadline_days": 30},
    "placement": {"clouds": ["gcp", "aws"]},
}


def with_changes(*edits):
    document = copy.deepcopy(BASE)
    for path, value in edits:
        node = document
        keys = path.split(".")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        if value is DELETE:
            node.pop(keys[-1])
        else:
            node[keys[-1]] = value
    return document


DELETE = object()


def problems_of(document, source="spec.yaml"):
    with pytest.raises(InputError) as caught:
        workload_from_document(document, source)
    return caught.value.problems


def test_base_spec_parses_with_sizes_and_defaults():
    spec, prefix = workload_from_document(BASE, "spec.yaml")
    assert prefix == ""
    assert spec.model.parameters == 70e9
    assert spec.training.tokens == 2e12
    assert spec.kind is WorkloadKind.training
    assert spec.model.precision is Precision.bf16
    assert spec.placement.deployment is Deployment.cloud
    assert spec.budget.pricing.value == "on-demand"


def test_spec_is_frozen():
    spec, _ = workload_from_document(BASE, "spec.yaml")
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        spec.name = "other"  # type: ignore[misc]


def test_accelerator_aliases_are_normalised():
    spec, _ = workload_from_document(with_changes(("placement.accelerators", ["H100", "v5litepod", "v5p"])), "s")
    assert spec.placement.accelerators == ("h100-80gb", "tpu-v5e", "tpu-v5p")


def test_inference_spec_parses():
    document = with_changes(("kind", "inference"), ("training", DELETE),
                            ("inference", {"requests_per_second": 40, "latency_p99_ms": 2000}))
    spec, _ = workload_from_document(document, "s")
    assert spec.inference.requests_per_second == 40
    assert spec.inference.hours_per_day == 24


@pytest.mark.parametrize(("edits", "field", "words"), [
    ([("model.precison", "bf16")], "model.precison", "did you mean 'precision'"),
    ([("trainig", {})], "trainig", "did you mean 'training'"),
    ([("kind", "train")], "kind", "did you mean 'training'"),
    ([("framework", "torch")], "framework", "pytorch"),
    ([("model.parameters", "70X")], "model.parameters", "suffix"),
    ([("model.parameters", 0)], "model.parameters", "allowed is more than 0"),
    ([("model.precision", "fp2")], "model.precision", "use one of"),
    ([("training.deadline_days", -1)], "training.deadline_days", "allowed is more than 0"),
    ([("training", DELETE)], "training", "add a training block"),
    ([("kind", "inference")], "inference", "required when kind is inference"),
    ([("training.method", "lora")], "training.method", "fine-tuning"),
    ([("name", "LLM_Pretrain")], "name", "pattern"),
    ([("name", "x" * 41)], "name", "at most 40"),
    ([("placement.deployment", "dedicated")], "placement.inventory", "required when deployment is dedicated"),
    ([("placement.inventory", "inv.yaml")], "placement.inventory", "deployment: any"),
    ([("placement.clouds", [])], "placement.clouds", "at least one"),
    ([("placement.clouds", ["azure"])], "placement.clouds[0]", "use one of"),
    ([("placement.accelerators", ["h1000"])], "placement.accelerators", "did you mean"),
    ([("placement.regions", ["US Central"])], "placement.regions", "not a region of any cloud"),
    ([("budget.max_monthly_usd", 0)], "budget.max_monthly_usd", "allowed is more than 0"),
    ([("budget.pricing", "reserved")], "budget.pricing", "committed-1y"),
    ([("data.dataset_tb", "20 parsecs")], "data.dataset_tb", "unit"),
    ([("inference", {"requests_per_second": 1, "latency_p99_ms": 5})], "inference", "remove the inference block"),
    ([("model.active_parameters", "671B"), ("model.parameters", "37B")], "model.active_parameters",
     "parameters is the TOTAL"),
    ([("model.experts", 8), ("model.experts_per_token", 9)], "model.experts_per_token", "more than experts"),
    ([("model.architecture", "other")], "model.gflops_per_sample", "required when architecture is other"),
    ([("model.gflops_per_sample", 4.1)], "model.gflops_per_sample", "only used when architecture is other"),
    ([("model.kv_lora_rank", 512)], "model.kv_lora_rank", "attention: mla"),
    ([("model.architecture", "other"), ("model.gflops_per_sample", 4.1), ("model.memory_gib", 8)],
     "training.samples", "required when model.architecture is other"),
    ([("training.deadline_margin_pct", 100)], "training.deadline_margin_pct", "less than 100"),
    ([("data.region", "us-centrall1")], "data.region", "did you mean 'us-central1'"),
])
def test_bad_specs_name_the_field_and_the_fix(edits, field, words):
    problems = problems_of(with_changes(*edits))
    fields = [item.field for item in problems]
    assert field in fields, fields
    rendered = " ".join(item.render() for item in problems if item.field == field)
    assert words in rendered
    assert rendered.startswith("spec.yaml: ")


def test_all_problems_reported_together():
    problems = problems_of(with_changes(("kind", "train"), ("framework", "jaxx"), ("model.precison", "bf16")))
    assert {item.field for item in problems} >= {"kind", "framework", "model.precison"}


def test_stack_file_prefix(tmp_path):
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text("config:\n  accelfit:workload:\n    name: x\n    kind: training\n    framework: jax\n"
                     "    model: {parameters: 1B}\n    training: {tokens: 1B, deadline_dayz: 3}\n")
    with pytest.raises(InputError) as caught:
        load_workload(stack)
    fields = {item.field for item in caught.value.problems}
    assert "config.accelfit:workload.training.deadline_dayz" in fields
    assert all(item.file == str(stack) for item in caught.value.problems)


def test_stack_file_without_workload(tmp_path):
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text("config:\n  gcp:project: p\n")
    with pytest.raises(InputError, match="accelfit:workload"):
        load_workload(stack)


def test_inventory_is_loaded_relative_to_the_spec(tmp_path):
    (tmp_path / "inv.yaml").write_text(
        "site: lab\nservers:\n  - {name: a, address: 10.0.0.1, ssh_user: ops, gpu_model: H100, gpu_count: 8,"
        " cpu_cores: 96, memory_gib: 1024, network_gbps: 400}\n")
    document = with_changes(("placement.deployment", "dedicated"), ("placement.inventory", "inv.yaml"))
    (tmp_path / "spec.yaml").write_text(__import__("yaml").safe_dump(document))
    loaded = load_workload(tmp_path / "spec.yaml")
    assert loaded.inventory.servers[0].gpu_model == "h100-80gb"


def test_missing_inventory_file_names_the_field(tmp_path):
    document = with_changes(("placement.deployment", "dedicated"), ("placement.inventory", "nope.yaml"))
    (tmp_path / "spec.yaml").write_text(__import__("yaml").safe_dump(document))
    with pytest.raises(InputError) as caught:
        load_workload(tmp_path / "spec.yaml")
    assert caught.value.problems[0].field == "placement.inventory"


def test_yaml_syntax_error_names_the_line(tmp_path):
    bad = tmp_path / "spec.yaml"
    bad.write_text("name: x\nkind: [training\n")
    with pytest.raises(InputError, match="line"):
        load_workload(bad)


def test_schema_has_a_description_on_every_field():
    schema = WorkloadSpec.model_json_schema()
    missing = []
    for name, definition in [("WorkloadSpec", schema), *schema["$defs"].items()]:
        for field, body in definition.get("properties", {}).items():
            if "description" not in body:
                missing.append(f"{name}.{field}")
    assert not missing


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.one_of(json_values, st.fixed_dictionaries({}, optional=dict.fromkeys(
    ("name", "kind", "framework", "model", "training", "inference", "placement", "budget", "data", "maturity"),
    json_values))))
def test_loader_raises_only_input_error(document):
    try:
        workload_from_document(document, "fuzz.yaml")
    except InputError as error:
        assert error.problems and all(item.file == "fuzz.yaml" for item in error.problems)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(BASE)), json_values, max_size=4))
def test_loader_raises_only_input_error_near_valid(overrides):
    document = {**copy.deepcopy(BASE), **overrides}
    with contextlib.suppress(InputError):
        workload_from_document(document, "fuzz.yaml")
