"""The serving section is described once, after the fallback chain, each step from the offer the chain sized it
from (issue 35): not described at plan time, thrown away and described again from an offer found by splitting the
step's option id."""

from __future__ import annotations

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, plan_fleet
from accelfit.planner.serving import layout as layout_module
from accelfit.planner.fleet.chain import fallback_chain
from accelfit.planner.lock import plan_with_lock
from accelfit.planner.planner import search
from tests.planner.fleet_specs import gpu_serving

SPEC = gpu_serving(pricing=["on-demand", "spot"])  # a standby step of the same l4 type on the other tier


def test_serving_is_described_once_per_workload_over_its_whole_route(monkeypatch):
    calls = []
    real = layout_module.serving_section

    def counting(spec, steps, team=None):
        calls.append(steps)
        return real(spec, steps, team)

    # Patched where it is defined: the planner imports it when a spec serves (issue 39), from this module.
    monkeypatch.setattr(layout_module, "serving_section", counting)
    fleet, _ = plan_fleet([SPEC], load_catalog(), Environment("dev"), None, fleet_name=None)
    [steps] = calls
    member = fleet.workloads[0]
    standby = [step for step in member.fallback[1:] if step.pool]
    assert standby, "not vacuous: the chain has a standby step"
    assert [step.rank for step in steps] == [1] + [step.rank for step in standby]
    by_rank = {step.rank: step for step in member.fallback}
    for step in steps:  # each serving step is described from the offer of its chain step, on that step's tier
        assert step.offer.accelerator.name == by_rank[step.rank].accelerator
        assert step.offer.pricing in by_rank[step.rank].option.rsplit("/", 1)[1]
    assert [pool.pricing for pool in member.plan.serving.pools] == [by_rank[step.rank].option.rsplit("/", 1)[1]
                                                                   for step in steps]


def test_a_plan_before_its_chain_has_no_serving_section_and_the_chain_carries_each_steps_offer():
    catalog, environment = load_catalog(), Environment("dev")
    found = search(SPEC, catalog, environment)
    plan, _ = plan_with_lock(SPEC, catalog, environment, None, found=found)
    assert plan.serving is None
    chain = fallback_chain(SPEC, catalog, environment, plan, found, None, 1, 0, own_cluster=True)
    assert [rank for rank, _ in chain.offers] == [step.rank for step in chain.steps]
    assert chain.offer_at(1).pricing == plan.pricing
