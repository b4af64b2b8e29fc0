"""The example specs in examples/ each give a sensible, explained plan."""

from pathlib import Path

from accelfit.planner import Environment, plan
from accelfit.spec import load_workload

EXAMPLES = Path(__file__).parents[2] / "examples"


def plan_file(catalog, name):
    loaded = load_workload(EXAMPLES / name)
    return plan(loaded.spec, catalog, Environment("dev", loaded.inventory))


def test_jax_pretraining_on_gcp_and_aws_weighs_tpus_against_gpus(catalog):
    result = plan_file(catalog, "jax-pretrain.yaml")
    assert result.accelerator.kind == "tpu" and result.cloud.value == "gcp"
    assert result.estimate.hours <= 45 * 24
    assert any(alt.cloud.value == "aws" for alt in result.alternatives)


def test_pytorch_finetune_with_custom_kernels_runs_on_gpus(catalog):
    result = plan_file(catalog, "pytorch-finetune-custom-kernels.yaml")
    assert result.accelerator.kind == "gpu"
    assert all(not alt.accelerator.startswith("tpu") for alt in result.alternatives)
    assert any(rejection.rule == "custom-kernels" for rejection in result.rejected)
    assert result.estimate.total_usd <= 20000


def test_realtime_inference_meets_latency_on_gpus(catalog):
    """Variable traffic penalises TPUs (+25%, and PyTorch on TPU +30%); a v6e slice still wins on cost since issue
    34's load model, and then carries both penalties in its reasons."""
    result = plan_file(catalog, "realtime-inference.yaml")
    if result.accelerator.kind == "tpu":
        penalties = next(reason for reason in result.reasons if reason.startswith("Penalties applied:"))
        assert "variable-traffic-inference-on-tpu" in penalties and "pytorch-on-tpu" in penalties
    assert result.estimate.latency_p99_ms <= 8000 * 0.8 and result.estimate.replicas >= 1  # 20% headroom
    assert result.estimate.monthly_usd <= 60000
    # The smallest tensor-parallel group that meets the target: an 8B model for 30 req/s is not spread over 16 GPUs.
    assert result.accelerator.count // result.estimate.replicas <= 8
    assert any(reason.startswith("Margin:") and "20%" in reason for reason in result.reasons)


def test_onprem_spec_uses_the_inventory(catalog):
    result = plan_file(catalog, "onprem-training.yaml")
    assert result.platform.value == "baremetal-gpu"
    assert len(result.baremetal_hosts) == result.accelerator.nodes
    assert result.estimate.hours <= 30 * 24
