"""Each GCP rule kept as data (accelfit/cloudrules/gcp/data/gke_rules.yaml) catches a breach, names the resource,
the rule and the fix, and refuses before anything is created; and every name the stack derives fits, for every
workload name length the spec accepts."""

from __future__ import annotations

import string

import annotated_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gcp_family_plans
import gcp_plans
from accelfit.spec import WorkloadSpec
from accelfit.cloudrules.gcp import names
from accelfit.cloudrules.gcp.rules import gcp_rules
from accelfit.cloudrules.gcp.validation import derived_names

# Type token -> the name rule of that resource type, for every GCP resource accelfit names explicitly.
NAMED_TYPES = {
    "gcp:container/cluster:Cluster": "container_cluster",
    "gcp:container/nodePool:NodePool": "container_node_pool",
    "gcp:compute/firewall:Firewall": "compute_firewall",
    "gcp:compute/network:Network": "compute_network",
    "gcp:compute/subnetwork:Subnetwork": "compute_subnetwork",
    "gcp:compute/router:Router": "compute_router",
    "gcp:compute/routerNat:RouterNat": "compute_router_nat",
    "gcp:filestore/instance:Instance": "filestore_instance",
    "gcp:compute/instanceGroupManager:InstanceGroupManager": "compute_instance_group_manager",  # gce-gpu-vm
}


def _max_workload_name() -> int:
    field = WorkloadSpec.model_fields["name"]
    return next(item.max_length for item in field.metadata if isinstance(item, annotated_types.MaxLen))


def _refused(plan) -> dict[str, str]:
    recording, error = gcp_plans.record_plan(plan)
    assert error is not None, "the plan was accepted"
    assert recording.resources == [], "resources were created before the plan was refused"
    return {item.field: item.render() for item in error.problems}


def test_every_rule_row_names_its_source_and_date():
    rules = gcp_rules()
    rows = [*rules.name_limits, *rules.boot_disks, *rules.gpudirect_layouts, *rules.webhook_ports,
            *rules.project_services, *rules.host_maintenance]
    assert rows and all(len(row.source) > 10 and row.as_of.year >= 2026 for row in rows)
    assert {row.resource for row in rules.name_limits} == set(NAMED_TYPES.values()) | {
        "iam_service_account_id", "kubernetes_object", "compute_base_instance_name"}


# --- names ---------------------------------------------------------------------------------------------------

def test_the_spec_caps_workload_names_at_40():
    assert _max_workload_name() == 40


@settings(max_examples=60, deadline=None)
@given(length=st.integers(min_value=1, max_value=40), data=st.data())
def test_every_derived_name_fits_for_every_workload_name_length(length, data):
    first = data.draw(st.sampled_from(string.ascii_lowercase))
    rest = data.draw(st.text(alphabet=string.ascii_lowercase + string.digits + "-", min_size=length - 1,
                             max_size=length - 1))
    workload = (first + rest).rstrip("-") or first
    for family in ("a3-ultra", "a3-mega", "g2"):
        plan = gcp_family_plans.training_plan(family, workload=workload)
        for field, kind, name in derived_names(plan):
            assert names.check_name("plan", field, kind, name) == [], (workload, kind, name)


@pytest.mark.parametrize("length", [1, 20, 21, 33, 40])
def test_recorded_names_fit_their_resource_type(length):
    """End to end: every explicit name the components set fits its type's limit (a 40-character workload name
    used to give a 57-character cluster name)."""
    workload = ("w" * length)[:length]
    recording, error = gcp_family_plans.record_full(gcp_family_plans.training_plan("a3-ultra", workload=workload))
    assert error is None, error and error.render()
    named = [item for item in recording.resources if item.type in NAMED_TYPES]
    assert len(named) > 20
    for item in named:
        name = item.inputs.get("name")
        assert name, f"{item.name} relies on auto-naming"
        assert names.check_name("test", "name", NAMED_TYPES[item.type], name) == [], (item.type, name)
    assert len({item.inputs["name"] for item in named if item.type == "gcp:compute/firewall:Firewall"}) == len(
        [item for item in named if item.type == "gcp:compute/firewall:Firewall"])


def test_fitted_names_are_stable_and_distinct():
    long_a, long_b = "a" * 39 + "-gke", "a" * 39 + "b-gke"
    assert names.fitted_name("container_cluster", long_a) == names.fitted_name("container_cluster", long_a)
    assert names.fitted_name("container_cluster", long_a) != names.fitted_name("container_cluster", long_b)
    assert names.fitted_name("container_cluster", "short-gke") == "short-gke"


def test_name_rule_catches_a_breach():
    problems = names.check_name("GkeCluster x", "name", "container_cluster", "c" * 41)
    assert len(problems) == 1 and "at most 40" in problems[0].render() and "Fix:" in problems[0].render()
    assert names.check_name("Firewall x", "name", "compute_firewall", "9-starts-with-a-digit")


def test_name_rule_refuses_a_plan_whose_names_would_not_fit(monkeypatch):
    """If the derivation ever produced an over-long name, the plan is refused before anything exists."""
    monkeypatch.setattr("accelfit.cloudrules.gcp.validation.fitted_name",
                        lambda kind, logical: logical + "-" * 0 + "x" * 60)
    problems = _refused(gcp_plans.l4_inference())
    assert any("names are at most" in text for text in problems.values())


# --- boot disks ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family, disk", [("a3-ultra", "hyperdisk-balanced"), ("a4", "hyperdisk-balanced"),
                                          ("a3-high", "pd-ssd"), ("a3-mega", "pd-ssd"), ("g2", "pd-balanced"),
                                          ("a2-high", "pd-ssd"), ("a2-ultra", "pd-ssd")])
def test_gpu_pool_boot_disk_follows_the_family_rule(family, disk):
    recording, error = gcp_family_plans.record_full(gcp_family_plans.training_plan(family))
    assert error is None
    node_config = recording.named("fam-train-gpu-pool").inputs["nodeConfig"]
    assert node_config["diskType"] == disk
    assert disk in gcp_rules().boot_disk(family).allowed


def test_persistent_disk_on_a3_ultra_is_refused():
    from accelfit.errors import InputError
    from components.gcp.gpu_node_pool import GpuNodePoolArgs, validate_gpu_pool_args

    args = GpuNodePoolArgs(cluster="c", location="us-central1", zones=("us-central1-b",),
                           machine_type="a3-ultragpu-8g", gpu_type="nvidia-h200-141gb", gpus_per_node=8,
                           driver_version="DEFAULT", service_account="sa@x", environment="staging", min_nodes=0,
                           max_nodes=2, initial_nodes=2, machine_family="a3-ultra", disk_type="pd-ssd")
    with pytest.raises(InputError) as caught:
        validate_gpu_pool_args("by-hand", args)
    text = caught.value.render()
    assert "GpuNodePool by-hand: disk_type" in text and "hyperdisk-balanced" in text


def test_family_without_a_boot_disk_rule_is_refused(monkeypatch):
    rules = gcp_rules()
    trimmed = rules.model_copy(update={"boot_disks": tuple(row for row in rules.boot_disks if row.family != "g2")})
    monkeypatch.setattr("accelfit.cloudrules.gcp.validation.gcp_rules", lambda: trimmed)
    problems = _refused(gcp_plans.l4_inference())
    assert "no boot-disk rule for the g2 family" in problems["node_pools[1].machine_type"]


# --- GPUDirect network layout --------------------------------------------------------------------------------

def test_rdma_layout_is_one_gvnic_vpc_and_one_roce_vpc_with_eight_subnets_and_no_roce_firewall():
    recording, error = gcp_family_plans.record_full(gcp_family_plans.training_plan("a3-ultra"))
    assert error is None
    networks = {item.name: item.inputs for item in recording.of_type("gcp:compute/network:Network")}
    assert set(networks) == {"fam-train-net-vpc", "fam-train-net-gpu0-vpc", "fam-train-net-rdma-vpc"}
    roce = networks["fam-train-net-rdma-vpc"]
    assert roce["networkProfile"] == f"projects/{gcp_plans.PROJECT}/global/networkProfiles/us-central1-b-vpc-roce"
    assert roce["mtu"] == 8896 and networks["fam-train-net-gpu0-vpc"]["mtu"] == 8896
    subnets = [item for item in recording.of_type("gcp:compute/subnetwork:Subnetwork")
               if item.inputs["network"] == "fam-train-net-rdma-vpc-id"]
    assert len(subnets) == 8
    firewalls = recording.of_type("gcp:compute/firewall:Firewall")
    assert not [item for item in firewalls if item.inputs["network"] == "fam-train-net-rdma-vpc-id"]
    assert [item for item in firewalls if item.inputs["network"] == "fam-train-net-gpu0-vpc-id"]
    nics = recording.named("fam-train-gpu-pool").inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    assert len(nics) == 9 and nics[0]["network"] == "fam-train-net-gpu0-vpc"


def test_rdma_pool_over_two_zones_is_refused():
    plan = gcp_family_plans.training_plan("a4", compact_placement=False,
                                          zones=("us-central1-b", "us-central1-c"))
    problems = _refused(plan)
    assert "network profile" in problems["node_pools[1].zones"]


def test_gvnic_ranges_may_not_overlap_the_node_range():
    plan = gcp_family_plans.training_plan("a3-mega")
    plan = plan.model_copy(update={"network": plan.network.model_copy(update={"cidr": "192.168.0.0/16"})})
    problems = _refused(plan)
    assert any(field.startswith("network.gvnic_networks") for field in problems)


# --- project APIs --------------------------------------------------------------------------------------------

def test_apis_are_enabled_and_every_resource_waits_for_them():
    recording, error = gcp_family_plans.record_full(gcp_family_plans.training_plan("a3-high"))
    assert error is None
    services = {item.inputs["service"]: item.inputs for item in recording.of_type("gcp:projects/service:Service")}
    assert {"compute.googleapis.com", "container.googleapis.com", "iam.googleapis.com"} <= set(services)
    assert all(inputs["disableOnDestroy"] is False for inputs in services.values())
    provider = recording.named("fam-train-apis-provider")
    assert provider.inputs["project"] == gcp_plans.PROJECT
    for item in recording.resources:
        if item.custom and item.type.startswith("gcp:") and item.type != "gcp:projects/service:Service":
            assert "fam-train-apis-provider" in item.provider, item.name


def test_tpu_vm_stack_enables_the_tpu_api_and_not_gke():
    recording, error = gcp_plans.record_plan(gcp_plans.tpu_jax_pretrain())
    assert error is None
    services = {item.inputs["service"] for item in recording.of_type("gcp:projects/service:Service")}
    assert "tpu.googleapis.com" in services and "container.googleapis.com" not in services
    for item in recording.resources:
        if item.custom and item.type.startswith("gcp:") and item.type != "gcp:projects/service:Service":
            assert "-apis-provider" in item.provider, item.name  # TPU VMs wait for the TPU API too


# --- GPU zone availability -----------------------------------------------------------------------------------

def test_gpu_pool_in_a_zone_without_the_family_is_refused():
    plan = gcp_family_plans.training_plan("a3-ultra", zones=("us-central1-a",))
    plan = plan.model_copy(update={"zones": ("us-central1-a",)})
    problems = _refused(plan)
    text = problems["node_pools[1].zones[0]"]
    assert "a3-ultragpu-8g is not offered in us-central1-a" in text and "us-central1-b" in text


def test_example_stacks_gpu_pools_are_in_offered_zones():
    from accelfit.catalog import load_catalog

    catalog = load_catalog()
    for make in (gcp_plans.gke_h100_training, gcp_plans.l4_inference):
        plan = make()
        for pool in plan.node_pools:
            if pool.role == "gpu":
                assert set(pool.zones) <= set(catalog.offered_zones("gcp", pool.machine_type, plan.region))


@pytest.mark.parametrize("make", [gcp_plans.gke_tpu_multislice, gcp_plans.gke_h100_training])
def test_tpu_pools_and_filestore_names_fit_for_the_longest_workload_name(make):
    plan = make().model_copy(update={"workload": "w" * 40})
    recording, error = gcp_plans.record_plan(plan)
    assert error is None, error and error.render()
    named = [item for item in recording.resources if item.type in NAMED_TYPES]
    assert any(item.type in ("gcp:filestore/instance:Instance", "gcp:container/nodePool:NodePool")
               for item in named)
    for item in named:
        assert names.check_name("test", "name", NAMED_TYPES[item.type], item.inputs["name"]) == [], item.name


def test_a_gpu_vm_groups_names_fit_for_the_longest_workload_name():
    from accelfit.catalog import load_catalog
    from accelfit.planner import plan
    from accelfit.spec import WorkloadSpec

    workload = "w" * 40
    spec = WorkloadSpec.model_validate({
        "name": workload, "kind": "fine-tuning", "framework": "pytorch",
        "model": {"parameters": "8B", "precision": "bf16"},
        "training": {"tokens": "200M", "deadline_days": 2, "method": "lora", "command": "python train.py"},
        "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "orchestration": "vms"}})
    derived = {kind: name for _, kind, name in derived_names(plan(spec, load_catalog()))}
    for kind in ("compute_instance_group_manager", "compute_base_instance_name"):
        assert names.check_name("plan", "workload", kind, derived[kind]) == [], derived[kind]
    assert derived["compute_instance_group_manager"] == f"{workload}-gpu"
