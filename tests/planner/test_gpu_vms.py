"""GPU VMs (gce-gpu-vm, ec2-gpu-vm): chosen when cheaper under orchestration any, single-node only, priced as the
run plus the idle tail, with the spec's autostop."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import plan
from accelfit.spec import WorkloadSpec

LORA = {"name": "lora-ft", "kind": "fine-tuning", "framework": "pytorch",
        "model": {"parameters": "8B", "precision": "bf16"},
        "training": {"tokens": "200M", "deadline_days": 2, "method": "lora", "command": "torchrun train.py"},
        "data": {"dataset_tb": 0.05},
        "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "portability": "required"},
        "budget": {"pricing": ["spot", "on-demand"]}}


def spec(orchestration: str, **placement) -> WorkloadSpec:
    data = {**LORA, "placement": {**LORA["placement"], "orchestration": orchestration, **placement}}
    return WorkloadSpec.model_validate(data)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_lora_fine_tune_plans_one_spot_gpu_vm_with_autostop_when_cheapest(catalog):
    chosen = plan(spec("any"), catalog)
    cluster = plan(spec("kubernetes"), catalog)
    assert chosen.platform.value == "gce-gpu-vm" and chosen.orchestration == "vms"
    assert chosen.pricing == "spot" and chosen.gpu_vm.spot
    assert chosen.gpu_vm.autostop_idle_minutes == 30 and chosen.gpu_vm.autostop_action == "stop"
    assert chosen.gpu_vm.command == "torchrun train.py"
    assert chosen.estimate.total_usd < cluster.estimate.total_usd
    assert chosen.estimate.monthly_usd < cluster.estimate.monthly_usd
    assert any("placement.orchestration any" in reason and "cheapest on a cluster" in reason
               for reason in chosen.reasons)
    items = {line.item for line in chosen.estimate.breakdown}
    assert "cluster" not in items and "system" not in items


def test_idle_tail_is_priced(catalog):
    short = plan(spec("vms", autostop_idle_minutes=10, accelerators=["l4"]), catalog)
    long = plan(spec("vms", autostop_idle_minutes=600, accelerators=["l4"]), catalog)
    assert short.gpu_vm.machine_type == long.gpu_vm.machine_type
    assert long.estimate.total_usd > short.estimate.total_usd


def test_multi_node_job_is_refused_on_a_vm_with_the_reason(catalog):
    big = WorkloadSpec.model_validate({**LORA, "kind": "training", "model": {"parameters": "70B", "precision": "bf16"},
                                       "training": {"tokens": "2T", "deadline_days": 30},
                                       "placement": {**LORA["placement"], "orchestration": "any"}})
    result = plan(big, catalog)
    assert result.platform.value == "gke-gpu"
    single = [item for item in result.rejected if item.rule == "single-node"]
    assert single and "stays on Kubernetes" in single[0].reason


def test_serving_is_refused_on_a_vm(catalog):
    serving = WorkloadSpec.model_validate({
        "name": "chat", "kind": "inference", "framework": "pytorch", "model": {"parameters": "8B"},
        "inference": {"requests_per_second": 2, "latency_p99_ms": 20000},
        "placement": {"clouds": ["gcp"], "orchestration": "any", "portability": "required"}})
    result = plan(serving, catalog)
    assert result.platform.value == "gke-gpu"
    assert any(item.rule == "vm-serving" for item in result.rejected)


def test_delete_on_idle_prices_the_disk_only_while_the_vm_runs(catalog):
    stop = plan(spec("vms"), catalog)
    delete = plan(spec("vms", autostop_action="delete"), catalog)
    assert delete.estimate.monthly_usd < stop.estimate.monthly_usd


def test_spec_refuses_a_multi_line_command():
    with pytest.raises(ValueError, match="one non-empty line"):
        WorkloadSpec.model_validate({**LORA, "training": {**LORA["training"], "command": "a\nb"}})
