"""One test per rule of the decision matrix (design.md section 4)."""

import pytest

from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.planner import Environment, NoFeasiblePlan, plan
from accelfit.spec import load_inventory
from pathlib import Path

INVENTORY = Path(__file__).parent.parent / "fixtures" / "inventory-lab.yaml"


def rules_for(result, accelerator_prefix=""):
    return {rejection.rule for rejection in result.rejected if accelerator_prefix in rejection.option}


def test_tpus_only_on_google_cloud(catalog):
    result = plan(make_spec(TRAINING, placement__clouds=["aws"]), catalog)
    assert result.cloud.value == "aws" and result.accelerator.kind == "gpu"
    assert not any("tpu" in alt.accelerator for alt in result.alternatives)


def test_portability_required_rules_out_tpus(catalog):
    result = plan(make_spec(TRAINING, placement__portability="required"), catalog)
    assert result.accelerator.kind == "gpu"
    assert "portability" in rules_for(result, "tpu")


def test_portability_preferred_penalises_tpus(catalog):
    result = plan(make_spec(TRAINING, placement__portability="preferred"), catalog)
    tpu_alternatives = [alt for alt in result.alternatives if alt.accelerator.startswith("tpu")]
    if result.accelerator.kind == "tpu":
        assert any("portability-preferred-tpu" in reason for reason in result.reasons)
    assert all("portability-preferred-tpu" in alt.why_not for alt in tpu_alternatives)


def test_custom_kernels_need_gpus(catalog):
    result = plan(make_spec(TRAINING, model__custom_kernels=True), catalog)
    assert result.accelerator.kind == "gpu"
    assert "custom-kernels" in rules_for(result, "tpu")


def test_pytorch_on_tpu_is_allowed_with_a_penalty(catalog):
    spec = make_spec(TRAINING, framework="pytorch", placement__clouds=["gcp"],
                     placement__accelerators=["tpu-v5p", "tpu-v6e", "tpu-v5e"])
    result = plan(spec, catalog)
    assert result.accelerator.kind == "tpu"
    assert any("pytorch-on-tpu +30%" in reason for reason in result.reasons)


def test_dynamic_shapes_favour_gpus(catalog):
    plain = plan(make_spec(TRAINING), catalog)
    dynamic = plan(make_spec(TRAINING, model__dynamic_shapes=True), catalog)
    assert plain.accelerator.kind == "tpu"  # TPUs win this spec on cost...
    assert dynamic.accelerator.kind == "gpu" or any("dynamic-shapes" in r for r in dynamic.reasons)


def test_experimental_code_favours_gpus(catalog):
    result = plan(make_spec(TRAINING, maturity="experimental"), catalog)
    tpu_alternatives = [alt for alt in result.alternatives if alt.accelerator.startswith("tpu")]
    assert all("experimental-code-on-tpu" in alt.why_not for alt in tpu_alternatives)


def test_variable_low_latency_inference_favours_gpus(catalog):
    """A soft preference: every TPU option serving variable traffic carries the variable-traffic penalty, and none
    does for steady traffic. A TPU can still win where it is cheaper by more than its penalties: since issue 34's
    load model (prefill interference, queueing) a v6e slice is, for this 8B model."""
    penalty = "variable-traffic-inference-on-tpu"
    variable = plan(make_spec(INFERENCE, inference__traffic="variable"), catalog)
    tpu_alternatives = [alt for alt in variable.alternatives if alt.accelerator.startswith("tpu")]
    assert all(penalty in alt.why_not for alt in tpu_alternatives)
    if variable.accelerator.kind == "tpu":
        assert any(reason.startswith("Penalties applied:") and penalty in reason for reason in variable.reasons)
    steady = plan(make_spec(INFERENCE, inference__traffic="steady"), catalog)
    assert not any(penalty in alt.why_not for alt in steady.alternatives)
    assert not any(penalty in reason for reason in steady.reasons)


def test_steady_high_volume_inference_can_use_serving_tpus(catalog):
    spec = make_spec(INFERENCE, framework="jax", inference__traffic="steady", inference__requests_per_second=400,
                     placement__clouds=["gcp"], placement__accelerators=["tpu-v5e", "tpu-v6e", "tpu-v5p"])
    result = plan(spec, catalog)
    assert result.accelerator.name in ("tpu-v5e", "tpu-v6e")
    assert "tpu-serving" in rules_for(result, "tpu-v5p")


def test_dedicated_deployment_uses_only_the_inventory(catalog):
    spec = make_spec(TRAINING, framework="pytorch", placement__deployment="dedicated",
                     placement__inventory="inventory.yaml")
    result = plan(spec, catalog, Environment("dev", load_inventory(INVENTORY)))
    assert result.platform.value == "baremetal-gpu" and result.cloud.value == "onprem"
    assert set(result.baremetal_hosts) <= {"gpu-01", "gpu-02", "gpu-03", "gpu-04"}
    assert result.node_pools[0].driver_version  # pinned driver for hosts accelfit prepares
    assert not result.alternatives or all(alt.platform.value == "baremetal-gpu" for alt in result.alternatives)


def test_any_deployment_weighs_owned_servers_against_clouds(catalog):
    spec = make_spec(TRAINING, framework="pytorch", placement__deployment="any", placement__inventory="inv.yaml")
    result = plan(spec, catalog, Environment("dev", load_inventory(INVENTORY)))
    platforms = {result.platform.value} | {alt.platform.value for alt in result.alternatives}
    assert "baremetal-gpu" in platforms and platforms & {"gke-tpu", "gke-gpu", "eks-gpu"}


@pytest.mark.parametrize(("precision", "accelerator", "rule"), [
    ("bf16", "t4", "precision"),        # no bf16 before Ampere
    ("fp8", "a100-80gb", "precision"),  # no fp8 before Hopper/Ada
])
def test_precision_must_be_supported(catalog, precision, accelerator, rule):
    spec = make_spec(TRAINING, model__precision=precision, placement__accelerators=[accelerator, "h100-80gb"],
                     placement__clouds=["aws", "gcp"])
    result = plan(spec, catalog)
    assert result.accelerator.name == "h100-80gb"
    assert rule in rules_for(result, accelerator)


def test_fp8_runs_on_h100(catalog):
    spec = make_spec(TRAINING, model__precision="fp8", placement__accelerators=["h100-80gb"])
    assert plan(spec, catalog).accelerator.name == "h100-80gb"


def test_memory_must_fit(catalog):
    # 70B full training needs ~1.1 TB of state (16 bytes/parameter) plus activations: one 8-GPU L4 node (192 GB)
    # can never hold it.
    spec = make_spec(TRAINING, model__parameters="70B", placement__accelerators=["l4", "h100-80gb"],
                     training__deadline_days=120, training__tokens="100B")
    result = plan(spec, catalog)
    assert result.accelerator.name == "h100-80gb"
    assert result.accelerator.count * 80 * 0.9 >= 70e9 * 16 / 2**30
    assert 70e9 * 16 / result.accelerator.count / 2**30 < result.estimate.memory_per_device_gib <= 80 * 0.9
    assert "memory" in rules_for(result, "l4") or "deadline" in rules_for(result, "l4")


def test_lora_needs_far_less_memory_than_full(catalog):
    # Full fine-tuning of 70B holds ~1.1 TB of weights, gradients and Adam state: more than one 8 x H100 node
    # (640 GB); LoRA keeps the frozen weights in bf16 plus small adapters and fits on one node.
    full = plan(make_spec(TRAINING, kind="fine-tuning", model__parameters="70B", training__tokens="1B",
                          training__deadline_days=7, placement__clouds=["aws"],
                          placement__accelerators=["h100-80gb"]), catalog)
    lora = plan(make_spec(TRAINING, kind="fine-tuning", model__parameters="70B", training__tokens="1B",
                          training__deadline_days=7, training__method="lora", placement__clouds=["aws"],
                          placement__accelerators=["h100-80gb"]), catalog)
    assert full.accelerator.count >= 16
    assert lora.accelerator.count == 8


def test_vms_orchestration_gives_tpu_vms(catalog):
    result = plan(make_spec(TRAINING, placement__orchestration="vms", placement__clouds=["gcp"]), catalog)
    assert result.platform.value == "tpu-vm"
    assert result.tpu_vm_slices and result.tpu_vm_slices[0].runtime_version.startswith(("v2-alpha", "tpu-"))
    assert "single-node" in rules_for(result, "h100")  # one GPU VM cannot run this job; it says why


def test_region_allow_list(catalog):
    result = plan(make_spec(TRAINING, placement__regions=["europe-west4"], placement__clouds=["gcp"]), catalog)
    assert result.region == "europe-west4"


def test_inventory_gpu_count_and_model_used(catalog):
    spec = make_spec(TRAINING, framework="pytorch", placement__deployment="dedicated", placement__inventory="i.yaml")
    result = plan(spec, catalog, Environment("prod", load_inventory(INVENTORY)))
    assert result.accelerator.per_node == 8 and result.accelerator.name == "h100-80gb"
    assert result.environment == "prod"


def test_impossible_deadline_names_the_deadline_that_works(catalog):
    spec = make_spec(TRAINING, model__parameters="400B", training__tokens="15T", training__deadline_days=1,
                     placement__clouds=["aws"])
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(spec, catalog)
    assert failure.value.binding == "training.deadline_days"
    assert "set deadline_days to at least" in failure.value.message


def test_impossible_budget_names_the_budget_it_needs(catalog):
    spec = make_spec(TRAINING, budget__max_total_usd=100)
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(spec, catalog)
    assert failure.value.binding == "budget.max_total_usd"
    needed = float(failure.value.message.split("raise max_total_usd to at least $")[1].split()[0].replace(",", ""))
    relaxed = make_spec(TRAINING, budget__max_total_usd=needed + 1)
    assert plan(relaxed, catalog).estimate.total_usd <= needed + 1


def test_impossible_latency_names_the_latency_it_reaches(catalog):
    spec = make_spec(INFERENCE, model__parameters="400B", inference__latency_p99_ms=50)
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(spec, catalog)
    assert failure.value.binding == "inference.latency_p99_ms"


def test_spot_training_takes_longer_than_on_demand(catalog):
    spec_od = make_spec(TRAINING, placement__accelerators=["h100-80gb"], placement__clouds=["aws"])
    spec_spot = make_spec(TRAINING, placement__accelerators=["h100-80gb"], placement__clouds=["aws"],
                          budget__pricing="spot")
    od, spot = plan(spec_od, catalog), plan(spec_spot, catalog)
    assert spot.estimate.accelerator_hours > od.estimate.accelerator_hours


def test_committed_pricing_bills_the_whole_term(catalog):
    spec = make_spec(TRAINING, placement__clouds=["gcp"], placement__accelerators=["tpu-v6e"],
                     budget__pricing="committed-1y")
    result = plan(spec, catalog)
    compute = next(line for line in result.estimate.breakdown if line.item == "compute")
    assert "8,760 h term" in compute.note
    assert any("bills the whole term" in warning for warning in result.warnings)
