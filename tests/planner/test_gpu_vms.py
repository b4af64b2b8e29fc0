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


def spec(orchestration: str, training: dict | None = None, **placement) -> WorkloadSpec:
    data = {**LORA, "placement": {**LORA["placement"], "orchestration": orchestration, **placement}}
    if training is not None:
        data["training"] = {key: value for key, value in {**LORA["training"], **training}.items() if value is not None}
    return WorkloadSpec.model_validate(data)


NO_JOB = {"command": None}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_lora_fine_tune_plans_one_spot_gpu_vm_with_autostop_when_cheapest(catalog):
    chosen = plan(spec("any", NO_JOB), catalog)
    cluster = plan(spec("kubernetes", NO_JOB), catalog)
    assert chosen.platform.value == "gce-gpu-vm" and chosen.orchestration == "vms"
    assert chosen.pricing == "spot" and chosen.gpu_vm.spot
    assert chosen.gpu_vm.autostop_idle_minutes == 30 and chosen.gpu_vm.autostop_action == "stop"
    assert chosen.gpu_vm.command is None
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


# --- the job (training.command, code, image) runs only on a GPU VM, in the cloud that can read it -----------------

def test_a_job_makes_only_gpu_vms_eligible_and_reaches_the_plan(catalog):
    chosen = plan(spec("any", {"code": "gs://acme-jobs/lora/code.tar.gz"}), catalog)
    assert chosen.platform.value == "gce-gpu-vm"
    assert (chosen.gpu_vm.code, chosen.gpu_vm.command) == ("gs://acme-jobs/lora/code.tar.gz", "torchrun train.py")
    refused = {item.option.split()[0] for item in chosen.rejected if item.rule == "job-on-vm"}
    assert refused == {"gke-gpu"}


def test_a_job_is_refused_on_kubernetes_by_the_spec():
    with pytest.raises(ValueError, match=r"training\.command: only a GPU VM runs it"):
        spec("kubernetes")


def test_a_job_read_with_one_clouds_identity_runs_in_that_cloud(catalog):
    both = {"clouds": ["gcp", "aws"], "regions": []}
    on_ecr = plan(spec("vms", {"image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/lora-ft:v1"}, **both), catalog)
    assert on_ecr.platform.value == "ec2-gpu-vm"
    assert any(item.rule == "job-source" and item.option.startswith("gce-gpu-vm") for item in on_ecr.rejected)
    public = plan(spec("vms", {"image": "nvcr.io/nvidia/pytorch:24.12-py3"}, **both), catalog)
    assert not any(item.rule == "job-source" for item in public.rejected)


def test_ec2_spot_that_could_not_resume_is_not_offered(catalog):
    aws = {"clouds": ["aws"], "regions": ["us-east-1"], "portability": "none"}
    deleting = plan(spec("vms", autostop_action="delete", **aws), catalog)
    assert deleting.pricing == "on-demand"  # the job would not come back after an interruption
    assert any(item.rule == "spot-resume" for item in deleting.rejected)
    stopping = plan(spec("vms", **aws), catalog)
    assert stopping.pricing == "spot" and not any(item.rule == "spot-resume" for item in stopping.rejected)
    idle = plan(spec("vms", NO_JOB, autostop_action="delete", **aws), catalog)
    assert idle.pricing == "spot"  # no job, nothing to resume


def test_one_gpu_vm_on_aws_pays_for_one_nat_gateway(catalog):
    aws = {"clouds": ["aws"], "regions": ["us-east-1"], "portability": "none"}
    vm = plan(spec("vms", **aws), catalog)
    cluster = plan(spec("kubernetes", NO_JOB, **aws), catalog)
    nat = {plan.platform.value: next(line for line in plan.estimate.breakdown if line.item == "nat")
           for plan in (vm, cluster)}
    assert len(vm.zones) == 2 and nat["ec2-gpu-vm"].note.startswith("1 NAT gateway")
    assert nat["eks-gpu"].monthly_usd == pytest.approx(2 * nat["ec2-gpu-vm"].monthly_usd)
