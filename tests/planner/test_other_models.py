"""Non-transformer models (model.architecture: other) sized by compute and memory per sample, with the framework
and precision rules applied as for transformers."""

from pathlib import Path

import pytest

from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.planner import plan
from accelfit.planner.training.sizing import training_flops
from accelfit.spec import load_workload

EXAMPLES = Path(__file__).parents[2] / "examples"


def other_training(**changes):
    return make_spec(TRAINING, **{"model__parameters": None, "model__architecture": "other",
                                  "model__gflops_per_sample": 8.2, "model__memory_gib": 12,
                                  "training__tokens": None, "training__samples": 115.3e6, **changes})


def test_training_compute_is_three_forward_passes_per_sample():
    assert training_flops(other_training()) == pytest.approx(3 * 8.2e9 * 115.3e6)


def test_vision_training_example_plans_by_compute_and_memory(catalog):
    result = plan(load_workload(EXAMPLES / "vision-training.yaml").spec, catalog)
    assert result.estimate.hours <= 24 * 0.9
    training = next(reason for reason in result.reasons if reason.startswith("Training:"))
    assert "GFLOPs per sample" in training and "115M samples" in training
    assert any("one whole copy of the model" in reason for reason in result.reasons)


def test_a_model_copy_larger_than_a_device_is_refused_for_it(catalog):
    result = plan(other_training(model__memory_gib=60, placement__accelerators=["a100-40gb", "h100-80gb"]), catalog)
    assert result.accelerator.name == "h100-80gb"
    assert any(rejection.rule == "memory" and "a100-40gb" in rejection.option for rejection in result.rejected)


def test_recommendation_serving_is_not_sized_as_llm_decoding(catalog):
    """The issue's TensorFlow ranking model at 50k req/s and 30 ms: about a thousand dollars a month, not a million,
    and TPUs are allowed for fp32 (XLA runs fp32 matmuls at the bf16 rate by default)."""
    result = plan(load_workload(EXAMPLES / "recsys-serving.yaml").spec, catalog)
    assert result.estimate.monthly_usd < 20_000
    assert result.estimate.latency_p99_ms <= 30 * 0.8
    assert not any(rejection.rule == "precision" and "tpu" in rejection.option for rejection in result.rejected)


def test_serving_throughput_follows_gflops_per_sample(catalog):
    base = {"model__parameters": None, "model__architecture": "other", "model__memory_gib": 4,
            "framework": "tensorflow", "inference__requests_per_second": 20000, "inference__latency_p99_ms": 50,
            "placement__accelerators": ["l4"]}
    light = plan(make_spec(INFERENCE, **base, model__gflops_per_sample=1.0), catalog)
    heavy = plan(make_spec(INFERENCE, **base, model__gflops_per_sample=8.0), catalog)
    assert heavy.accelerator.count >= 4 * light.accelerator.count


def test_fp32_tensorflow_may_use_serving_tpus_and_pytorch_is_penalised(catalog):
    fields = {"model__parameters": None, "model__architecture": "other", "model__gflops_per_sample": 0.5,
              "model__memory_gib": 4, "model__precision": "fp32", "inference__traffic": "steady",
              "placement__accelerators": ["tpu-v5e", "tpu-v6e"]}
    assert plan(make_spec(INFERENCE, framework="tensorflow", **fields), catalog).accelerator.kind == "tpu"
    torch = plan(make_spec(INFERENCE, framework="pytorch", **fields), catalog)
    assert any("pytorch-on-tpu" in reason for reason in torch.reasons)


@pytest.mark.parametrize(("changes", "words"), [
    ({"model__gflops_per_sample": None}, "gflops_per_sample: required when architecture is other"),
    ({"training__samples": None, "training__tokens": "1T"}, "training.samples: required"),
])
def test_other_needs_its_sizes(changes, words):
    with pytest.raises(Exception) as error:
        other_training(**changes)
    assert words in str(error.value)
