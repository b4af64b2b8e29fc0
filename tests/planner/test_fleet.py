"""plan_fleet: each workload's own plan, placement into shared clusters, fallback chains with standby pools, and
the fleet's cost figures (shared items once, workloads' figures adding up to the fleet's)."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, plan, plan_fleet
from accelfit.planner.constraints import PolicyConstraints
from accelfit.planner.fleet.costs import SHARED_ITEMS
from accelfit.planner.lock import Selection
from tests.planner.fleet_specs import gpu_serving, jax_pretrain, kernels_finetune, spec

CATALOG = load_catalog()
STAGING = Environment(name="staging")


def fleet(*specs, environment=STAGING, selections=None):
    return plan_fleet(list(specs), CATALOG, environment, selections, fleet_name="ml")


# ---- each workload keeps its own plan ----------------------------------------------------------------------------

def test_each_workload_gets_the_plan_it_would_get_alone():
    planned, locks = fleet(jax_pretrain(), gpu_serving())
    for member, member_spec in zip(planned.workloads, (jax_pretrain(), gpu_serving()), strict=True):
        alone = plan(member_spec, CATALOG, STAGING)
        assert member.plan.option == alone.option
        assert member.plan.reasons == alone.reasons and member.plan.alternatives == alone.alternatives
        assert member.plan.node_pools[:len(alone.node_pools)] == alone.node_pools
        assert locks[member_spec.name].state == "none"


# ---- placement ---------------------------------------------------------------------------------------------------

def test_two_gcp_workloads_in_one_region_share_one_cluster():
    planned, _ = fleet(jax_pretrain(), gpu_serving())
    assert [cluster.name for cluster in planned.clusters] == ["ml"]
    cluster = planned.clusters[0]
    assert cluster.workloads == ("pretrain", "chat-serve") and cluster.platform == "gke"
    assert {member.cluster for member in planned.workloads} == {"ml"}
    assert "GKE control plane" in cluster.shared and "system node pool" in cluster.shared
    assert "shares it with chat-serve" in planned.workload("pretrain").placement


def test_a_gcp_and_an_aws_workload_make_two_clusters_the_first_named_after_the_fleet():
    planned, _ = fleet(jax_pretrain(), gpu_serving(cloud="aws", region="us-east-1", accelerators=("a10g",)))
    assert [(c.name, c.cloud.value, c.region, c.workloads) for c in planned.clusters] == [
        ("ml", "gcp", "us-central1", ("pretrain",)), ("ml-2", "aws", "us-east-1", ("chat-serve",))]
    assert planned.clusters[1].platform == "eks"
    assert all(cluster.saves_monthly_usd == 0 for cluster in planned.clusters)


def test_tpu_vms_are_built_alone_and_the_plan_says_why():
    planned, _ = fleet(jax_pretrain(orchestration="vms"), gpu_serving())
    pretrain = planned.workload("pretrain")
    assert pretrain.plan.platform.value == "tpu-vm" and pretrain.cluster is None
    assert pretrain.placement.startswith("alone: TPU VMs")
    assert [cluster.workloads for cluster in planned.clusters] == [("chat-serve",)]


def test_a_different_gpudirect_layout_gets_its_own_cluster_in_the_region():
    from accelfit.planner.fleet.clusters import place

    first, _ = fleet(gpu_serving())
    serving = first.workloads[0].plan
    gpudirect = serving.model_copy(update={"workload": "big-train", "network": serving.network.model_copy(
        update={"extra_networks": 8})})
    placement = place([serving, gpudirect], "ml")
    assert placement.cluster_names == ["ml", "ml-2"]
    assert "a cluster has one network layout" in placement.why[1] and "8 extra VPC networks" in placement.why[1]


# ---- fallback chains ---------------------------------------------------------------------------------------------

def test_fallback_chain_is_planned_pool_then_other_tiers_then_the_next_accelerator():
    planned, _ = fleet(jax_pretrain(), gpu_serving())
    steps = planned.workload("pretrain").fallback
    assert [step.rank for step in steps] == list(range(1, len(steps) + 1))
    assert (steps[0].option, steps[0].pool) == (planned.workload("pretrain").plan.option, "tpu-0")
    assert [(step.accelerator, step.pricing) for step in steps[:2]] == [("tpu-v6e", "spot"), ("tpu-v6e", "on-demand")]
    assert steps[2].accelerator != "tpu-v6e" and "next-best eligible accelerator" in steps[2].note
    # A reservation is a tier budget.pricing [spot, on-demand] does not list: left out, and said why.
    assert any(reason.startswith("reservation, flex-start tpu-v6e: budget.pricing [spot, on-demand] does not list them")
               for reason in planned.workload("pretrain").fallback_omitted)


def test_the_chain_steps_only_through_the_pricing_models_the_spec_lists():
    """budget.pricing names the ways the team buys capacity: an on-demand-only spec gets no spot standby step."""
    planned, _ = fleet(gpu_serving())
    member = planned.workloads[0]
    assert {step.pricing for step in member.fallback if step.accelerator == member.plan.accelerator.name} == {
        "on-demand"}
    assert any(reason.startswith("reservation, flex-start, spot l4: budget.pricing [on-demand] does not list them")
               for reason in member.fallback_omitted)


def test_a_tier_the_environment_policy_forbids_is_left_out_with_the_reason():
    spot_only = PolicyConstraints(source="policies/config/dev.json", spot_only=True)
    planned, _ = fleet(kernels_finetune(), environment=Environment(name="dev", constraints=spot_only))
    member = planned.workloads[0]
    assert all(step.pricing == "spot" for step in member.fallback)
    assert any(reason.startswith("on-demand") and "spot-outside-prod" in reason for reason in member.fallback_omitted)


def test_a_tier_the_catalog_does_not_sell_is_left_out():
    # The catalog has no committed rate for A2-ultra (A100 80GB) machines.
    planned, _ = fleet(gpu_serving(accelerators=("a100-80gb",), pricing=["on-demand", "committed-1y"]))
    omitted = planned.workloads[0].fallback_omitted
    assert any(reason.startswith("reservation a100-80gb: the catalog sells no committed capacity") for reason in omitted)


def test_a_custom_cuda_kernel_workload_never_falls_back_to_a_tpu():
    planned, _ = fleet(kernels_finetune(), jax_pretrain())
    member = planned.workload("ft-kernels")
    assert len(member.fallback) >= 2
    assert all(not step.accelerator.startswith("tpu") for step in member.fallback)
    assert all(pool.role != "tpu" for pool in member.plan.node_pools)


def test_serving_on_pytorch_may_fall_back_across_gpu_and_tpu_when_eligible():
    planned, _ = fleet(gpu_serving(accelerators=()))
    member = planned.workloads[0]
    kinds = {step.accelerator.startswith("tpu") for step in member.fallback}
    assert kinds == {True, False}
    crossing = next(step for step in member.fallback if step.rank > 1
                    and step.accelerator.startswith("tpu") != member.plan.accelerator.name.startswith("tpu"))
    assert "eligible for both: pytorch, portability none, no custom kernels" in crossing.note


def test_standby_pools_scale_from_zero_with_the_planned_pools_rules():
    planned, _ = fleet(jax_pretrain(), gpu_serving())
    for member in planned.workloads:
        standby = [pool for pool in member.plan.node_pools if pool.fallback_rank > 0]
        assert {step.pool for step in member.fallback if step.rank > 1} <= {pool.name for pool in standby}
        for pool in standby:
            assert (pool.min_nodes, pool.initial_nodes) == (0, 0) and pool.name.endswith(f"-fb{pool.fallback_rank}")
            assert pool.labels["accelfit.io/fallback-rank"] == str(pool.fallback_rank)
            if pool.role == "tpu" and pool.tpu_slice:  # multi-host slice: 0 or all hosts, as planned pools
                hosts = CATALOG.tpu_slice(pool.tpu_slice).hosts
                assert pool.max_nodes == hosts if member.plan.kind == "training" else pool.max_nodes >= 1
        names = [pool.name for pool in member.plan.node_pools]
        assert len(names) == len(set(names))


def test_standby_pool_zones_come_from_availability_data():
    planned, _ = fleet(jax_pretrain(), gpu_serving())
    for member in planned.workloads:
        for pool in member.plan.node_pools:
            if pool.fallback_rank and pool.tpu_slice:
                listed = CATALOG.available_zones(pool.accelerator)
                assert set(pool.zones) <= set(listed)
            elif pool.fallback_rank:
                assert set(pool.zones) <= set(CATALOG.offered_zones("gcp", pool.machine_type, "us-central1") or ())
    assert set(planned.clusters[0].zones) >= {zone for member in planned.workloads
                                              for pool in member.plan.node_pools for zone in pool.zones}


def test_a_step_outside_the_cluster_is_listed_only_with_why():
    planned, _ = fleet(jax_pretrain(orchestration="vms"))
    steps = planned.workloads[0].fallback
    assert all(step.pool is None for step in steps[1:])
    assert all("listed only" in step.note for step in steps[1:])
    assert not any(pool.fallback_rank for pool in planned.workloads[0].plan.node_pools)



def test_a_step_that_needs_a_network_layout_the_cluster_lacks_is_listed_only():
    big = spec(name="pretrain", kind="training", framework="jax", model={"parameters": "8B"},
               training={"tokens": "300B", "deadline_days": 7},
               placement={"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["tpu-v6e", "h100-80gb"]},
               budget={"pricing": ["spot", "on-demand"]})
    planned, _ = fleet(big)
    member = planned.workloads[0]
    gpu = next(step for step in member.fallback if step.accelerator == "h100-80gb")
    assert planned.clusters[0].network.extra_networks == 0
    assert gpu.pool is None and "needs GPUDirect" in gpu.note and "plain network" in gpu.note
    assert not any(pool.gpudirect != "none" for pool in member.plan.node_pools)

# ---- cost --------------------------------------------------------------------------------------------------------

def _own(member) -> float:
    shared = member.cluster is not None
    return sum(line.monthly_usd for line in member.plan.estimate.breakdown if not (shared and line.item in SHARED_ITEMS))


def test_fleet_cost_is_the_workloads_own_plus_the_shared_items_once():
    planned, _ = fleet(jax_pretrain(), gpu_serving(), gpu_serving(name="chat-aws", cloud="aws", region="us-east-1",
                                                                   accelerators=("a10g",)))
    expected = sum(_own(member) for member in planned.workloads) + sum(c.shared_monthly_usd for c in planned.clusters)
    assert planned.monthly_usd == pytest.approx(expected, abs=0.02)
    assert planned.monthly_usd == pytest.approx(sum(member.monthly_usd for member in planned.workloads), abs=0.05)
    assert planned.full_scale_monthly_usd == pytest.approx(
        sum(member.full_scale_monthly_usd for member in planned.workloads), abs=0.05)
    assert planned.run_total_usd == pytest.approx(planned.workload("pretrain").run_total_usd, abs=0.02)


def test_savings_are_the_separate_plans_shared_lines_minus_the_shared_items_once():
    planned, _ = fleet(jax_pretrain(), gpu_serving())
    separate = sum(line.monthly_usd for spec in (jax_pretrain(), gpu_serving())
                   for line in plan(spec, CATALOG, STAGING).estimate.breakdown if line.item in SHARED_ITEMS)
    cluster = planned.clusters[0]
    assert cluster.saves_monthly_usd == pytest.approx(separate - cluster.shared_monthly_usd, abs=0.02)
    assert cluster.saves_monthly_usd > 0 and planned.saves_monthly_usd == cluster.saves_monthly_usd


def test_a_cluster_of_one_costs_exactly_its_single_plan():
    planned, _ = fleet(gpu_serving())
    alone = plan(gpu_serving(), CATALOG, STAGING)
    member = planned.workloads[0]
    assert member.monthly_usd == pytest.approx(alone.estimate.monthly_usd, abs=0.02)
    assert planned.clusters[0].breakdown == tuple(line for line in alone.estimate.breakdown
                                                  if line.item in SHARED_ITEMS)


def test_full_scale_counts_the_standby_pools_at_their_maximum():
    planned, _ = fleet(gpu_serving(pricing=["spot", "on-demand"]))
    member = planned.workloads[0]
    assert member.standby_full_scale_monthly_usd > 0
    assert member.full_scale_monthly_usd == pytest.approx(
        member.plan.estimate.full_scale_monthly_usd + member.standby_full_scale_monthly_usd, abs=0.02)


def test_a_step_in_the_cluster_costs_its_own_lines_plus_the_same_share():
    planned, _ = fleet(jax_pretrain(), gpu_serving(pricing=["spot", "on-demand"]))
    member = planned.workload("chat-serve")
    assert member.fallback[0].monthly_usd == member.monthly_usd and member.plan.pricing == "spot"
    share = planned.clusters[0].shared_monthly_usd / 2
    on_demand = member.fallback[1]
    assert on_demand.pricing == "on-demand" and share < member.monthly_usd < on_demand.monthly_usd


# ---- locks -------------------------------------------------------------------------------------------------------

def test_each_workload_is_locked_on_its_own():
    import datetime as dt

    first, _ = fleet(jax_pretrain(), gpu_serving())
    locked = {name: Selection.from_plan(first.workload(name).plan, dt.date(2026, 11, 23))
              for name in ("chat-serve",)}
    _planned, locks = fleet(jax_pretrain(), gpu_serving(), selections=locked)
    assert locks["chat-serve"].state == "used" and locks["pretrain"].state == "none"


# ---- what the build side reads -----------------------------------------------------------------------------------

def test_the_shared_cluster_has_one_system_pool_in_every_members_system_zone():
    planned, _ = fleet(jax_pretrain(), gpu_serving())
    cluster = planned.clusters[0]
    systems = [pool for member in planned.workloads for pool in member.plan.node_pools if pool.role == "system"]
    assert cluster.system_pool.role == "system" and cluster.system_pool.fallback_rank == 0
    assert set(cluster.system_pool.zones) == {zone for pool in systems for zone in pool.zones}


def test_eligible_accelerators_follow_the_planners_rules():
    planned, _ = fleet(kernels_finetune(), jax_pretrain(), gpu_serving(accelerators=()))
    in_cluster = {pool.accelerator for member in planned.workloads for pool in member.plan.node_pools
                  if pool.accelerator}
    kernels = planned.workload("ft-kernels").eligible_accelerators
    assert kernels and not any(name.startswith("tpu") for name in kernels)
    assert set(planned.workload("chat-serve").eligible_accelerators) <= in_cluster
    assert any(name.startswith("tpu") for name in planned.workload("pretrain").eligible_accelerators)


def test_a_fleet_over_the_stack_budget_is_warned_even_when_each_workload_fits():
    budget = PolicyConstraints(source="policies/config/staging.json", max_monthly_usd=45000)
    environment = Environment(name="staging", constraints=budget)
    planned, _ = fleet(gpu_serving(), gpu_serving(name="chat-two"), environment=environment)
    assert all(member.plan.estimate.monthly_usd <= 45000 for member in planned.workloads)
    assert planned.monthly_usd > 45000
    assert len(planned.warnings) == 1 and "stack-monthly-budget" in planned.warnings[0]
    within, _ = fleet(gpu_serving(), environment=environment)
    assert within.warnings == ()


def test_a_workload_without_a_plan_is_named_in_the_error():
    from accelfit.planner import NoFeasiblePlan
    from accelfit.planner.lock import LockRequired

    impossible = gpu_serving(name="too-cheap").model_copy(update={"budget": gpu_serving().budget.model_copy(
        update={"max_monthly_usd": 10})})
    with pytest.raises(NoFeasiblePlan, match=r"^workload too-cheap: no option fits budget\.max_monthly_usd"):
        fleet(jax_pretrain(), impossible)
    with pytest.raises(LockRequired, match=r"^workload pretrain: no selection is locked") as failure:
        plan_fleet([jax_pretrain()], CATALOG, STAGING, None, fleet_name="ml", require_lock=True,
                   stack="example-gcp-fleet")
    # The fix names the stack, ready to paste.
    assert "run `accelfit lock --stack example-gcp-fleet` and commit" in failure.value.message


def test_a_committed_only_plan_keeps_its_chain_on_the_commitment():
    """budget.pricing committed-1y alone: no on-demand or spot step (the spec buys neither), and no other
    accelerator (a standby runs on capacity bought when used, which the spec does not list)."""
    document = jax_pretrain().model_dump(mode="json", exclude_none=True)
    committed = spec(**{**document, "training": {**document["training"], "deadline_days": 4},
                        "budget": {"pricing": "committed-1y"}})
    planned, _ = fleet(committed)
    member = planned.workloads[0]
    steps = member.fallback
    assert steps[0].pricing == "reservation" and steps[0].option.endswith("/committed-1y")
    assert [step.pricing for step in steps] == ["reservation"]
    assert any(reason.startswith("flex-start, on-demand, spot tpu-v") and "does not list them" in reason
               for reason in member.fallback_omitted)


def test_a_committed_plan_with_on_demand_listed_falls_back_to_on_demand_capacity():
    document = jax_pretrain().model_dump(mode="json", exclude_none=True)
    committed = spec(**{**document, "training": {**document["training"], "deadline_days": 4},
                        "budget": {"pricing": ["committed-1y", "on-demand"]}})
    planned, _ = fleet(committed)
    steps = planned.workloads[0].fallback
    # Another accelerator is a standby on capacity bought when used, never a second commitment.
    assert all(step.pricing == "on-demand" for step in steps[1:])


def test_the_shared_pods_range_holds_every_node_the_members_pools_can_reach():
    from accelfit.planner.fleet.stack import with_standby_pools
    from accelfit.planner.limits import pods_cidr_for

    planned, _ = fleet(jax_pretrain(), gpu_serving())
    cluster = planned.clusters[0]
    nodes = sum(pool.max_nodes for member in planned.workloads for pool in member.plan.node_pools
                if pool.role != "system")
    assert cluster.network.pods_cidr == pods_cidr_for(nodes, "10.64.0.0/14")
    larger = [member.model_copy(update={"plan": member.plan.model_copy(update={"node_pools": tuple(
        pool.model_copy(update={"max_nodes": 900}) for pool in member.plan.node_pools)})})
        for member in planned.workloads]
    assert with_standby_pools(cluster, larger).network.pods_cidr != "10.64.0.0/14"  # 900 nodes x pools > 1,024
