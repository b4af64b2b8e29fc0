"""Capacity groups: which chain steps the autoscaler moves between, the one Kueue flavor that holds them, and the
rendered autoscaler objects against the clouds' documented shapes (the pinned ComputeClass schema, the priority
expander's ConfigMap format)."""

from __future__ import annotations

import re

import pytest
import yaml

from accelfit.planner.fleet.capacity_groups import (
    EKS_CAPACITY_GROUP_LABEL,
    GKE_COMPUTE_CLASS_LABEL,
    capacity_groups,
    group_name,
    pool_group_labels,
)
from accelfit.planner.model import PlanCloud, Platform
from accelfit.planner.fleet.fallback_triggers import NODE_PROVISION_TIMEOUT_MINUTES, TRIGGER_TEXT, step_triggers, \
    step_wait_minutes
from components.kubernetes.capacity_fallback import (
    PRIORITY_CONFIGMAP,
    asg_name_pattern,
    compute_class_spec,
    expander_priorities,
)
from components.kubernetes.eks_addons import autoscaler_values
from components.kubernetes.queues import cluster_queue_spec, flavor_plans, resource_flavor_spec
from tests.checks.k8s_schemas import Report, crds, custom_resource_problems
from tests.components.kubernetes.autoscaler_model import Autoscaler, Pool
from tests.components.kubernetes.kueue_model import PodSet, Queue
from tests.components.kubernetes.test_k8s_queues import capacities, make_plan, make_pool

STANDBY = dict(spot=True, fallback_rank=2)


def gpu_plan(*pools, platform="gke-gpu", cloud="gcp"):
    return make_plan("gpu", *pools).model_copy(update={"platform": Platform(platform), "cloud": PlanCloud(cloud)})


def test_the_same_accelerator_on_another_tier_is_one_group_in_chain_order():
    plan = gpu_plan(make_pool("gpu-fb3", "gpu", fallback_rank=3), make_pool("gpu", "gpu"),
                    make_pool("gpu-fb2", "gpu", **STANDBY))
    [group] = capacity_groups(plan)
    assert group.pools == ("gpu", "gpu-fb2", "gpu-fb3") and group.name == "w-gpu" and group.ranks == (0, 2, 3)


@pytest.mark.parametrize(("standby", "why"), [
    (make_pool("gpu-fb2", "gpu", **STANDBY).model_copy(update={"accelerator": "y", "machine_type": "m2"}),
     "another accelerator stays a Kueue flavor of its own (quota-full)"),
    (make_pool("tpu-fb2", "tpu", **STANDBY), "TPU pools are not grouped"),
    (make_pool("gpu-fb2", "gpu", **STANDBY).model_copy(update={"accelerators_per_node": 8}),
     "other nodes (GPUs per node) are not the same step on another tier"),
])
def test_what_is_not_grouped(standby, why):
    assert capacity_groups(gpu_plan(make_pool("gpu", "gpu"), standby)) == (), why


def test_no_group_without_a_standby_pool_or_on_a_platform_without_an_autoscaler():
    assert capacity_groups(gpu_plan(make_pool("gpu-a", "gpu"), make_pool("gpu-b", "gpu"))) == ()
    assert capacity_groups(gpu_plan(make_pool("gpu", "gpu"), make_pool("gpu-fb2", "gpu", **STANDBY),
                                    platform="baremetal-gpu")) == ()


def test_a_capacity_block_node_group_is_not_grouped():
    plan = gpu_plan(make_pool("gpu", "gpu"), make_pool("gpu-fb2", "gpu", fallback_rank=2, reservation="cr-1",
                                                       capacity_block=True), platform="eks-gpu", cloud="aws")
    assert capacity_groups(plan) == ()


def test_group_names_fit_a_label_value():
    name = group_name("w" * 40, "gpu-" + "x" * 40)
    assert len(name) <= 63 and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name)
    assert group_name("w", "gpu") == "w-gpu"


def test_each_cloud_labels_the_groups_pools():
    pools = (make_pool("gpu", "gpu"), make_pool("gpu-fb2", "gpu", **STANDBY))
    assert pool_group_labels(gpu_plan(*pools)) == {"gpu": {GKE_COMPUTE_CLASS_LABEL: "w-gpu"},
                                                   "gpu-fb2": {GKE_COMPUTE_CLASS_LABEL: "w-gpu"}}
    eks = gpu_plan(*pools, platform="eks-gpu", cloud="aws")
    assert pool_group_labels(eks)["gpu-fb2"] == {EKS_CAPACITY_GROUP_LABEL: "w-gpu"}


def test_the_group_is_one_flavor_holding_both_pools_quota_and_selecting_the_class():
    plan = gpu_plan(make_pool("gpu", "gpu"), make_pool("gpu-fb2", "gpu", **STANDBY))
    [flavor] = flavor_plans(plan, capacities(plan))
    assert flavor.name == "w-gpu" and flavor.group_pools == ("gpu", "gpu-fb2") and not flavor.selects_one_pool
    assert flavor.capacity.accelerators == 16  # 2 pools x 2 nodes x 4 GPUs
    spec = resource_flavor_spec(flavor, {})
    assert spec["nodeLabels"] == {GKE_COMPUTE_CLASS_LABEL: "w-gpu"}
    assert {taint["key"] for taint in spec["tolerations"]} == {"nvidia.com/gpu"}
    # Kueue admits two 8-GPU jobs to the group (its quota is both pools), where a flavor per pool held one each.
    queue = Queue(cluster_queue_spec("w", [flavor]))
    job = PodSet(count=2, requests={"nvidia.com/gpu": 4})
    assert queue.admit(job) == "w-gpu" and queue.admit(job) == "w-gpu" and queue.admit(job) is None


# --- the plan's per-step triggers, one source with the objects ---

def test_a_group_step_moves_on_no_capacity_after_the_node_provisioning_timeout():
    assert step_triggers(2, spot_before=False, grouped=True) == ("no-capacity",)
    assert step_wait_minutes(2, grouped=True) == NODE_PROVISION_TIMEOUT_MINUTES == 15
    assert step_triggers(3, spot_before=True, grouped=True) == ("no-capacity", "preempted")
    # Another accelerator's step is still Kueue's: quota.
    assert step_triggers(3, spot_before=False) == ("quota-full", "pods-not-ready")
    assert f"{NODE_PROVISION_TIMEOUT_MINUTES} min" in TRIGGER_TEXT["no-capacity"]


# --- GKE ComputeClass: the pinned schema and the docs' manifest shape ---

COMPUTE_CLASS = ("cloud.google.com/v1", "ComputeClass")


def compute_class(spec: dict) -> dict:
    return {"apiVersion": COMPUTE_CLASS[0], "kind": COMPUTE_CLASS[1], "metadata": {"name": "w-gpu"}, "spec": spec}


def test_the_rendered_compute_class_is_valid_for_the_pinned_schema():
    spec = compute_class_spec(["w-gpu", "w-gpu-fb2"])
    assert custom_resource_problems(compute_class(spec), crds()[COMPUTE_CLASS], Report()) == []


def test_the_compute_class_matches_the_documented_manually_created_node_pools_shape():
    """Field by field against the docs' shape for a class over existing node pools (CRD reference: priorities[] of
    `nodepools: [NAME, ...]`; nodePoolAutoCreation.enabled; whenUnsatisfiable ScaleUpAnyway | DoNotScaleUp)."""
    documented = yaml.safe_load("""
    priorities:
    - nodepools: [pool-a]
    - nodepools: [pool-b]
    nodePoolAutoCreation:
      enabled: false
    whenUnsatisfiable: DoNotScaleUp
    """)
    assert compute_class_spec(["pool-a", "pool-b"]) == documented


@pytest.mark.parametrize("breach", [
    {"priorities": [{"nodepool": ["a"]}], "whenUnsatisfiable": "DoNotScaleUp"},  # misspelt field
    {"priorities": [{"nodepools": ["a"]}], "whenUnsatisfiable": "Never"},  # not a documented value
    {"priorities": [{"nodepools": ["a"]}]},  # whenUnsatisfiable is required
])
def test_the_pinned_schema_catches_a_breach(breach):
    assert custom_resource_problems(compute_class(breach), crds()[COMPUTE_CLASS], Report())


# --- EKS: the priority expander's configuration ---

def test_the_expander_configuration_has_the_readmes_shape_and_orders_each_group():
    """expander/priority/readme.md: ConfigMap cluster-autoscaler-priority-expander, data.priorities a YAML map of
    positive integers (highest wins) to lists of regexes."""
    config = expander_priorities([["w-gpu-ng", "w-gpu-fb2-ng"], ["v-gpu-ng", "v-gpu-fb3-ng"]])
    assert PRIORITY_CONFIGMAP == "cluster-autoscaler-priority-expander"
    assert all(isinstance(key, int) and key > 0 for key in config)
    assert list(config) == sorted(config, reverse=True)
    assert config[100] == [asg_name_pattern("w-gpu-ng"), asg_name_pattern("v-gpu-ng")]
    assert config[90] == [asg_name_pattern("w-gpu-fb2-ng"), asg_name_pattern("v-gpu-fb3-ng")]
    assert config[1] == [".*"]
    rendered = yaml.safe_dump(dict(config))  # as the chart writes data.priorities
    assert yaml.safe_load(rendered) == config


def test_an_asg_pattern_matches_its_node_groups_asg_only():
    pattern = asg_name_pattern("w-gpu-ng")
    assert re.search(pattern, "eks-w-gpu-ng-8ec2d1e8-7b06-f2f7-3e17-9a0b2f1c3d4e")
    assert not re.search(pattern, "eks-w-gpu-ng-fb2-8ec2d1e8-7b06-f2f7-3e17-9a0b2f1c3d4e")
    assert not re.search(asg_name_pattern("w-gpu"), "eks-w-gpu-fb2-ng-8ec2d1e8-7b06-f2f7-3e17-9a0b2f1c3d4e")


def test_the_chart_values_turn_the_priority_expander_on_only_with_groups():
    values = autoscaler_values("c", "us-east-1", "1.33", (("w-gpu-ng", "w-gpu-fb2-ng"),))
    assert values["extraArgs"]["expander"] == "priority,least-waste"
    assert set(values["expanderPriorities"]) == {"100", "90", "1"}  # Helm values: string keys, the chart's `int`
    assert autoscaler_values("c", "us-east-1", "1.33")["extraArgs"]["expander"] == "least-waste"
    assert "expanderPriorities" not in autoscaler_values("c", "us-east-1", "1.33")


# --- the documented autoscaler behaviour with and without the group ---

ASG = "-8ec2d1e8-7b06-f2f7-3e17-9a0b2f1c3d4e"


def test_with_the_group_a_job_lands_on_the_next_pool_when_the_first_has_no_capacity():
    pools = [Pool(f"eks-w-gpu-ng{ASG}", {EKS_CAPACITY_GROUP_LABEL: "w-gpu"}, has_capacity=False),
             Pool(f"eks-w-gpu-fb2-ng{ASG}", {EKS_CAPACITY_GROUP_LABEL: "w-gpu"})]
    model = Autoscaler(pools, expander=expander_priorities([["w-gpu-ng", "w-gpu-fb2-ng"]]))
    assert model.scale_up({EKS_CAPACITY_GROUP_LABEL: "w-gpu"}) == f"eks-w-gpu-fb2-ng{ASG}"
    assert model.tried == [f"eks-w-gpu-ng{ASG}", f"eks-w-gpu-fb2-ng{ASG}"]


def test_without_the_group_a_job_admitted_to_the_empty_pool_stays_pending():
    """The breach the group fixes: a flavor per pool pins the job to its pool's label, so no autoscaler can move
    it when that pool has no capacity."""
    pools = [Pool("w-gpu", {"cloud.google.com/gke-nodepool": "w-gpu"}, has_capacity=False),
             Pool("w-gpu-fb2", {"cloud.google.com/gke-nodepool": "w-gpu-fb2"})]
    assert Autoscaler(pools).scale_up({"cloud.google.com/gke-nodepool": "w-gpu"}) is None


def test_a_compute_class_tries_its_priorities_in_order_and_never_outside_them():
    pools = [Pool("a", {GKE_COMPUTE_CLASS_LABEL: "c"}, has_capacity=False), Pool("b", {GKE_COMPUTE_CLASS_LABEL: "c"}),
             Pool("other", {GKE_COMPUTE_CLASS_LABEL: "c"})]
    classes = {"c": [p["nodepools"] for p in compute_class_spec(["a", "b"])["priorities"]]}
    model = Autoscaler(pools, compute_classes=classes)
    assert model.scale_up({GKE_COMPUTE_CLASS_LABEL: "c"}) == "b" and model.tried == ["a", "b"]
    pools[1].has_capacity = False
    assert Autoscaler(pools, compute_classes=classes).scale_up({GKE_COMPUTE_CLASS_LABEL: "c"}) is None


def test_the_chain_marks_only_the_planned_steps_group_as_no_capacity():
    """accelfit/planner/fleet/chain.py with_triggers: steps in the planned step's group move on no-capacity; a step
    after a step of another accelerator is Kueue's (quota) even if it were grouped."""
    from accelfit.planner.fleet.chain import with_triggers
    from accelfit.planner.fleet.model import FallbackStep

    def step(rank, accelerator="x", pricing="on-demand"):
        return FallbackStep(rank=rank, option="o", accelerator=accelerator, count=8, pricing=pricing,
                            pool=f"p{rank}", monthly_usd=1, total_usd=1)

    steps = with_triggers([step(1), step(2, pricing="spot"), step(3, "y")], frozenset({1, 2}))
    assert [s.moves_when for s in steps] == [(), ("no-capacity",), ("quota-full", "pods-not-ready", "preempted")]
    assert [s.wait_minutes for s in steps] == [None, NODE_PROVISION_TIMEOUT_MINUTES, 30]
    assert with_triggers([step(1), step(2)])[1].moves_when == ("quota-full", "pods-not-ready")


def test_the_pinned_chart_renders_the_expander_configmap_from_these_values():
    """kubernetes/autoscaler cluster-autoscaler chart 9.59.0 (the pinned chart): templates/
    priority-expander-configmap.yaml renders ConfigMap cluster-autoscaler-priority-expander when extraArgs has
    `expander`, expanderPriorities is set and `priority` is one of the comma-separated expanders
    (_helpers.tpl priorityExpanderEnabled: splitList "," then has "priority"); each key goes through `int`, so
    the values' string keys must be integers; templates/role.yaml then lets the autoscaler list and watch it."""
    values = autoscaler_values("c", "us-east-1", "1.33", (("w-gpu-ng", "w-gpu-fb2-ng"),))
    assert "expander" in values["extraArgs"] and values["expanderPriorities"]
    assert "priority" in values["extraArgs"]["expander"].split(",")
    rendered = {int(key): patterns for key, patterns in values["expanderPriorities"].items()}
    assert rendered == expander_priorities([["w-gpu-ng", "w-gpu-fb2-ng"]])
    assert all(isinstance(pattern, str) for patterns in rendered.values() for pattern in patterns)


def test_a_same_type_step_the_autoscaler_cannot_move_to_says_why_in_the_plan():
    """The plan must not suggest a capacity fallback that does not happen: a TPU standby of the planned type is
    moved to on quota, and its note says why (chain.ungrouped_reasons)."""
    from accelfit.planner.fleet.capacity_groups import why_not_grouped
    from accelfit.planner.fleet.chain import ungrouped_reasons

    tpu = make_plan("tpu", make_pool("tpu-0", "tpu")).model_copy(update={"platform": Platform("gke-tpu"),
                                                                         "cloud": PlanCloud("gcp")})
    standby = make_pool("tpu-0-fb2", "tpu", **STANDBY)
    assert "TPU slice" in ungrouped_reasons(tpu, [standby])[2]
    gpu = gpu_plan(make_pool("gpu", "gpu"))
    assert ungrouped_reasons(gpu, [make_pool("gpu-fb2", "gpu", **STANDBY)]) == {}
    assert "Capacity Block" in why_not_grouped(
        gpu_plan(platform="eks-gpu", cloud="aws"),
        make_pool("gpu-fb2", "gpu", fallback_rank=2, reservation="cr-1", capacity_block=True))
    assert "no cluster autoscaler" in why_not_grouped(gpu_plan(platform="baremetal-gpu"), make_pool("g", "gpu"))
