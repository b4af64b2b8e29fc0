"""The environment's policy limits over the whole fleet (max-accelerators, bounded-autoscaling, the stack budget):
planned pools that exceed them together are no feasible fleet; standby pools are added only while they fit."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, NoFeasiblePlan, plan_fleet
from accelfit.planner.constraints import PolicyConstraints
from accelfit.planner.fleet.chain import Chain
from accelfit.planner.fleet.policy_limits import fit_standby, planned_accelerators, pool_accelerators
from tests.planner.fleet_specs import gpu_serving, jax_pretrain

CATALOG = load_catalog()
SOURCE = "policies/config/test.json"


def fleet(**limits):
    environment = Environment("test", constraints=PolicyConstraints(source=SOURCE, **limits))
    # Serving lists two pricing models: the chain steps only through those budget.pricing lists.
    both = ["spot", "on-demand"]
    planned, _ = plan_fleet([jax_pretrain("pretrain"), gpu_serving("chat-a", pricing=both),
                             gpu_serving("chat-b", pricing=both)], CATALOG,
                            environment, None, fleet_name="ml")
    return planned


def accelerators(planned) -> int:
    return sum(pool_accelerators(pool) for member in planned.workloads for pool in member.plan.node_pools)


def standby_ranks(member) -> set[int]:
    return {pool.fallback_rank for pool in member.plan.node_pools if pool.fallback_rank}


def test_unlimited_fleet_keeps_every_standby_step():
    planned = fleet()
    assert all(step.pool for member in planned.workloads for step in member.fallback)
    assert accelerators(planned) > 60  # the limits below bind


def test_standby_steps_are_added_by_rank_then_stack_order_only_while_the_fleet_fits():
    unlimited = fleet()
    planned_only = sum(planned_accelerators(member.plan) for member in unlimited.workloads)
    steps = {(member.name, step.rank): sum(pool_accelerators(pool) for pool in member.plan.node_pools
                                           if pool.fallback_rank == step.rank)
             for member in unlimited.workloads for step in member.fallback if step.rank > 1}
    # Room for pretrain's rank 2, not chat-a's rank 2 (so not chat-b's either), then pretrain's rank 3.
    limit = planned_only + steps[("pretrain", 2)] + steps[("pretrain", 3)]
    assert steps[("pretrain", 2)] + steps[("chat-a", 2)] > limit - planned_only
    planned = fleet(max_accelerators=limit)
    assert accelerators(planned) <= limit
    by_name = {member.name: member for member in planned.workloads}
    assert standby_ranks(by_name["pretrain"]) == {2, 3}
    assert standby_ranks(by_name["chat-a"]) == standby_ranks(by_name["chat-b"]) == set()
    for name in ("chat-a", "chat-b"):
        [step] = [step for step in by_name[name].fallback if step.rank == 2]
        assert step.pool is None
        assert "listed only" in step.note and "max-accelerators" in step.note and SOURCE in step.note
        assert str(limit) in step.note
        # Kueue and the preview see only pools that exist: the step no longer names one, nor costs at full scale.
        assert by_name[name].standby_full_scale_monthly_usd == 0
        assert by_name[name].full_scale_monthly_usd < unlimited.workload(name).full_scale_monthly_usd
    assert planned.full_scale_monthly_usd < unlimited.full_scale_monthly_usd
    assert planned.monthly_usd == unlimited.monthly_usd  # standby pools scale from 0: nothing as planned


def test_planned_pools_over_the_limit_are_no_feasible_fleet_naming_the_file_and_counts():
    unlimited = fleet()
    counts = {member.name: planned_accelerators(member.plan) for member in unlimited.workloads}
    limit = sum(counts.values()) - 1
    assert all(count <= limit for count in counts.values())  # each workload alone fits
    with pytest.raises(NoFeasiblePlan) as failure:
        fleet(max_accelerators=limit)
    message = failure.value.message
    assert failure.value.binding == "policy:max-accelerators"
    assert SOURCE in message and f"allows {limit}" in message and "raise maxAccelerators" in message
    for name, count in counts.items():
        assert f"{name} {count}" in message


def test_no_pool_planned_or_standby_exceeds_bounded_autoscaling():
    # Each standby step is sized and checked by the planner's own policy rules (policy_rejections), so a step
    # whose pools would exceed maxNodesPerPool never becomes a standby pool.
    planned = fleet(max_nodes_per_pool=6)
    pools = [pool for member in planned.workloads for pool in member.plan.node_pools if pool.role != "system"]
    assert any(pool.fallback_rank for pool in pools)
    assert all(pool.max_nodes <= 6 for pool in pools)


def test_the_fleet_check_lists_a_standby_step_over_bounded_autoscaling_only():
    unlimited = fleet()
    chain = fallback_chain_of(unlimited, "pretrain")
    rank3 = [pool for pool in chain.standby_pools if pool.fallback_rank == 3]
    limit = max(pool.max_nodes for pool in rank3) - 1
    [fitted] = fit_standby([unlimited.workload("pretrain").plan], [chain],
                           PolicyConstraints(source=SOURCE, max_nodes_per_pool=limit), 0.0)
    assert {pool.fallback_rank for pool in fitted.standby_pools} == {2}
    [step] = [step for step in fitted.steps if step.rank == 3]
    assert step.pool is None and "bounded-autoscaling" in step.note and f"allows {limit}" in step.note


def fallback_chain_of(planned, name):
    member = planned.workload(name)
    standby = tuple(pool for pool in member.plan.node_pools if pool.fallback_rank)
    return Chain(member.fallback, member.fallback_omitted, standby, member.standby_full_scale_monthly_usd,
                 tuple((rank, 0.0) for rank in sorted({pool.fallback_rank for pool in standby})))


def test_a_budget_at_full_scale_bounds_the_standby_pools_and_the_plan_says_when_the_fleet_is_over():
    unlimited = fleet()
    limit = unlimited.full_scale_monthly_usd - 1
    planned = fleet(max_monthly_usd=limit, budget_figure="full_scale_monthly_usd")
    assert planned.full_scale_monthly_usd <= limit
    assert any(step.pool is None and "stack-monthly-budget" in step.note
               for member in planned.workloads for step in member.fallback)
    over = fleet(max_monthly_usd=unlimited.monthly_usd - 1)
    [warning] = over.warnings
    assert "stack-monthly-budget" in warning and SOURCE in warning and "whole stack" in warning


def test_a_one_workload_stack_is_called_the_stack_in_its_limit_messages():
    # The same check bounds a single form's standby pools (its fleet of one); its messages say "the stack", not
    # "the fleet" (a fleet's keep saying "the fleet").
    unlimited = fleet()
    chain = fallback_chain_of(unlimited, "pretrain")
    planned = planned_accelerators(unlimited.workload("pretrain").plan)
    limits = PolicyConstraints(source=SOURCE, max_accelerators=planned)
    [alone] = fit_standby([unlimited.workload("pretrain").plan], [chain], limits, 0.0)
    notes = [step.note for step in alone.steps if step.rank >= 2 and step.pool is None]
    assert notes and all(f"the stack already scales to {planned};" in note for note in notes)
    assert not any("the fleet" in note for note in notes)
    with_others = fit_standby([member.plan for member in unlimited.workloads],
                              [fallback_chain_of(unlimited, member.name) for member in unlimited.workloads],
                              PolicyConstraints(source=SOURCE, max_accelerators=accelerators_planned(unlimited)),
                              0.0)
    assert any("the fleet already scales to" in step.note for chain in with_others for step in chain.steps)


def accelerators_planned(planned) -> int:
    return sum(planned_accelerators(member.plan) for member in planned.workloads)
