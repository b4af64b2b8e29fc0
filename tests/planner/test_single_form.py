"""A single-workload stack is a fleet of one (issue 23): planned by plan_fleet in a cluster of its own, named after
the workload, with the fallback chain and standby pools a fleet workload gets, bounded the same way, and never
a standby pool that would outgrow the cluster's pods range (fixed when a GKE cluster is created)."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.stack_plan import plan_stack_fleet, single_view
from accelfit.planner.fleet.stack import within_own_network
from accelfit.planner.fleet.chain import Chain
from accelfit.stackfile import load_stack

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def l4_serving():
    """The shipped L4 serving stack with budget.pricing [spot, on-demand]: the chain steps only through the pricing
    models the spec lists, so this gives it a second tier to fall back to (a standby pool)."""
    import dataclasses

    from accelfit.spec import Pricing

    stack = load_stack("example-gcp-l4-inference", ROOT)
    workloads = tuple(dataclasses.replace(loaded, spec=loaded.spec.model_copy(update={
        "budget": loaded.spec.budget.model_copy(update={"pricing": (Pricing.spot, Pricing.on_demand)})}))
        for loaded in stack.workloads)
    return plan_stack_fleet(dataclasses.replace(stack, workloads=workloads), load_catalog())


def test_the_single_form_is_a_fleet_of_one_in_its_own_cluster(l4_serving):
    fleet, locks = l4_serving
    (member,) = fleet.workloads
    assert fleet.name == member.name == "chat-serve" and fleet.clusters == () and member.cluster is None
    assert member.placement.startswith("its own cluster chat-serve")
    plan, lock = single_view(fleet, locks)
    assert plan.workload == "chat-serve" and lock is locks["chat-serve"]


def test_the_single_form_gets_standby_pools_in_its_own_cluster(l4_serving):
    fleet, _ = l4_serving
    (member,) = fleet.workloads
    standby = [pool for pool in member.plan.node_pools if pool.fallback_rank]
    assert [pool.name for pool in standby] == ["gpu-fb2"]
    assert standby[0].min_nodes == 0 and not standby[0].spot  # planned on spot, standby on demand
    assert [step.pool for step in member.fallback][:2] == ["gpu", "gpu-fb2"]


def test_the_shown_plan_counts_standby_pools_at_full_scale_only(l4_serving):
    fleet, _ = l4_serving
    (member,) = fleet.workloads
    shown = member.shown_plan()
    line = next(line for line in shown.estimate.breakdown if line.item == "standby")
    assert line.monthly_usd == 0.0 and line.full_scale_monthly_usd == member.standby_full_scale_monthly_usd > 0
    assert shown.estimate.monthly_usd == member.plan.estimate.monthly_usd
    assert shown.estimate.full_scale_monthly_usd == pytest.approx(member.full_scale_monthly_usd, abs=0.02)


def test_standby_pools_that_would_outgrow_the_pods_range_are_listed_only(l4_serving):
    fleet, _ = l4_serving
    (member,) = fleet.workloads
    standby = tuple(pool for pool in member.plan.node_pools if pool.fallback_rank)
    planned = member.plan.model_copy(update={
        "node_pools": tuple(pool for pool in member.plan.node_pools if not pool.fallback_rank),
        "network": member.plan.network.model_copy(update={"pods_cidr": "10.4.0.0/22"})})  # 4 nodes' worth
    chain = Chain(member.fallback, (), standby, member.standby_full_scale_monthly_usd,
                  ((2, member.standby_full_scale_monthly_usd),))
    kept = within_own_network(planned, chain)
    assert kept.standby_pools == () and kept.standby_full_scale_monthly_usd == 0.0
    step = next(step for step in kept.steps if step.rank == 2)
    assert step.pool is None and "pods range 10.4.0.0/22" in step.note
    roomy = planned.model_copy(update={"network": member.plan.network})
    assert within_own_network(roomy, chain) is chain
