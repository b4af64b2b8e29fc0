"""The ways teams buy accelerators (issue 25): reservations the team holds, GCP DWS flex-start and AWS Capacity
Blocks for ML, planned and priced from sourced data, and where each cannot be bought."""

from __future__ import annotations

import pytest

from accelfit.catalog.loader import load_catalog
from accelfit.clouds.aws_capacity_blocks import capacity_block_rules
from accelfit.clouds.gcp_flex_start import flex_start_rejection, flex_start_rules
from accelfit.planner import plan_fleet
from accelfit.planner.choose import NoFeasiblePlan
from accelfit.planner.planner import Environment, plan, search
from accelfit.pricing.capacity_blocks import BlockTooLong, block_for
from accelfit.spec import WorkloadSpec

CATALOG = load_catalog()


def training(pricing, deadline_days: float = 5, tokens: str = "50B", **placement) -> WorkloadSpec:
    return WorkloadSpec.model_validate(dict(
        name="buy", kind="training", framework="pytorch", model={"parameters": "7B"},
        training={"tokens": tokens, "deadline_days": deadline_days},
        placement={"orchestration": "kubernetes", **placement}, budget={"pricing": pricing}))


GCP_RESERVATION = {"name": "h100-res", "zone": "us-central1-a", "instance_type": "a3-highgpu-8g", "count": 4}


# ---- sourced rules, each with the breach it catches ---------------------------------------------------------------

def test_capacity_blocks_are_sold_in_day_steps_to_14_days_then_week_steps_to_182():
    rules = capacity_block_rules()["purchase"]
    assert (rules["daily_step_max_days"], rules["weekly_step_days"], rules["max_days"]) == (14, 7, 182)
    assert [block_for(hours).days for hours in (0.5, 24, 24.5, 14 * 24, 14 * 24 + 1, 28 * 24 + 1, 182 * 24)] == [
        1, 1, 2, 14, 21, 35, 182]
    with pytest.raises(BlockTooLong, match="longest Capacity Block is 182 days"):
        block_for(182 * 24 + 1)


def test_flex_start_rules_catch_an_excluded_family_a_service_and_a_run_over_seven_days():
    assert flex_start_rules()["max_run_days"] == 7
    assert flex_start_rejection("a3-high", False, 7 * 24) is None
    assert "a4x" in flex_start_rejection("a4x", False, 1)
    assert "a service needs capacity that stays" in flex_start_rejection("a3-high", True, None)
    assert "runs at most 7 days" in flex_start_rejection("a3-high", False, 7 * 24 + 1)


# ---- reservations ------------------------------------------------------------------------------------------------

def test_a_plan_on_a_held_reservation_costs_nothing_for_its_machines_and_states_their_worth():
    spec = training(["reservation", "on-demand"], clouds=["gcp"], reservations=[GCP_RESERVATION])
    chosen = plan(spec, CATALOG)
    assert chosen.pricing == "reservation" and chosen.zones == ("us-central1-a",)
    (gpu,) = [pool for pool in chosen.node_pools if pool.role == "gpu"]
    assert gpu.reservation == "h100-res" and gpu.max_nodes <= 4 and gpu.zones == ("us-central1-a",)
    compute = next(line for line in chosen.estimate.breakdown if line.item == "compute")
    assert "already paid (a sunk cost)" in compute.note and "on-demand equivalent" in compute.note
    # Only the nodes' boot disks bill.
    assert compute.monthly_usd < 50
    assert any(reason.startswith("Pricing: reservation, the cheapest of budget.pricing [reservation, on-demand]")
               for reason in chosen.reasons)


def test_a_reservation_too_small_for_the_job_is_rejected_for_capacity_and_another_tier_plans():
    small = {**GCP_RESERVATION, "count": 1}
    spec = training(["reservation", "on-demand"], deadline_days=1, clouds=["gcp"], reservations=[small])
    chosen = plan(spec, CATALOG)
    assert chosen.pricing == "on-demand"


def test_reservation_pricing_needs_a_reservation_and_a_vm_platform_cannot_consume_one():
    with pytest.raises(ValueError, match=r"placement\.reservations lists none"):
        training("reservation")
    spec = training("reservation", clouds=["gcp"], reservations=[GCP_RESERVATION])
    vm_spec = spec.model_copy(update={"placement": spec.placement.model_copy(update={"orchestration": "vms"})})
    found = search(vm_spec, CATALOG, Environment())
    assert not found.offers
    assert any(rejection.rule == "buying-model" and "node pool" in rejection.reason for rejection in found.rejected)


# ---- flex-start and Capacity Blocks -------------------------------------------------------------------------------

def test_flex_start_is_gcp_only_and_never_longer_than_seven_days():
    found = search(training("flex-start", deadline_days=30, clouds=["gcp"], accelerators=["h100"]), CATALOG,
                   Environment())
    assert any(rejection.rule == "buying-model" and "flex-start capacity runs at most 7 days" in rejection.reason
               for rejection in found.rejected)
    aws = search(training("flex-start", clouds=["aws"]), CATALOG, Environment())
    assert not aws.offers and all("GCP's way to buy capacity" in rejection.reason
                                  for rejection in aws.rejected if rejection.rule == "buying-model")


def test_flex_start_sizing_grows_the_node_count_until_the_run_fits_in_seven_days():
    """Issue 33: flex-start's 7-day limit is a constraint on the search, not a filter after it. On demand this run
    takes one node for about 8.5 days; on flex-start it plans more nodes and fits inside the limit, where before the
    one-node size was sized first and then refused."""
    on_demand = plan(training("on-demand", deadline_days=30, clouds=["gcp"], regions=["us-central1"],
                              accelerators=["h100"]), CATALOG)
    assert on_demand.accelerator.nodes == 1 and on_demand.estimate.hours > 7 * 24
    flex = plan(training("flex-start", deadline_days=30, clouds=["gcp"], regions=["us-central1"],
                         accelerators=["h100"]), CATALOG)
    assert flex.pricing == "flex-start" and flex.accelerator.nodes == 2
    assert flex.estimate.hours <= flex_start_rules()["max_run_days"] * 24
    (gpu,) = [pool for pool in flex.node_pools if pool.role == "gpu"]
    assert gpu.flex_start and gpu.max_nodes == 2
    # A run no size can fit in 7 days is still refused, saying so.
    found = search(training("flex-start", deadline_days=300, tokens="5000T", clouds=["gcp"], regions=["us-central1"],
                            accelerators=["h100"]), CATALOG, Environment())
    assert any(rejection.machine == "a3-highgpu-8g" and "at its largest size" in rejection.reason
               and "flex-start capacity runs at most 7 days" in rejection.reason for rejection in found.rejected)


def test_a_capacity_block_plan_is_priced_for_the_whole_block_and_says_to_buy_it_first():
    chosen = plan(training("capacity-block", clouds=["aws"], accelerators=["h100"]), CATALOG)
    assert chosen.pricing == "capacity-block"
    (gpu,) = [pool for pool in chosen.node_pools if pool.role == "gpu"]
    assert gpu.capacity_block and gpu.reservation is None and not gpu.compact_placement
    compute = next(line for line in chosen.estimate.breakdown if line.item == "compute")
    assert "paid up front" in compute.note and "-day block" in compute.note
    assert any("buy the Capacity Block this plan prices" in warning for warning in chosen.warnings)


BLOCK_OF_4 = {"name": "cr-0123456789abcdef0", "zone": "us-east-1a", "instance_type": "p5.48xlarge", "count": 4,
              "capacity_block": True}


def test_a_bought_capacity_block_sizes_within_the_instances_it_holds():
    """Issue 33: a node group asking for 8 instances of a 4-instance block gets 4 and the job never starts. The
    block's count caps the search as a held reservation's does; a run 4 nodes cannot finish in time is refused,
    naming the block and its count."""
    fits = plan(training("capacity-block", deadline_days=10, tokens="200B", clouds=["aws"], accelerators=["h100"],
                         reservations=[BLOCK_OF_4]), CATALOG)
    (gpu,) = [pool for pool in fits.node_pools if pool.role == "gpu"]
    assert gpu.reservation == BLOCK_OF_4["name"] and gpu.capacity_block
    assert gpu.max_nodes == fits.accelerator.nodes == 4
    with pytest.raises(NoFeasiblePlan) as failure:  # before the fix: 8 nodes in the block of 4
        plan(training("capacity-block", deadline_days=5, tokens="200B", clouds=["aws"], accelerators=["h100"],
                      reservations=[BLOCK_OF_4]), CATALOG)
    (reason,) = [rejection.reason for rejection in failure.value.rejected
                 if rejection.rule == "deadline" and "p5.48xlarge" in rejection.option]
    assert "at its largest size (4 × p5.48xlarge)" in reason
    assert f"Capacity Block {BLOCK_OF_4['name']} holds 4 × p5.48xlarge" in reason


def test_a_service_is_never_planned_on_flex_start_or_a_capacity_block():
    serving = WorkloadSpec.model_validate(dict(
        name="serve", kind="inference", framework="pytorch", model={"parameters": "8B"},
        inference={"requests_per_second": 5, "latency_p99_ms": 20000}, budget={"pricing": "capacity-block"}))
    with pytest.raises(NoFeasiblePlan) as failure:
        plan(serving, CATALOG)
    assert any("a service needs capacity that stays" in rejection.reason for rejection in failure.value.rejected)


def test_a4_is_never_said_to_be_sold_a_way_no_plan_can_choose():
    """GCP sells a4-highgpu-8g as reservation, flex-start or spot, never on demand: the rejection says how each
    of those could be planned here, and that the catalog prices none of them (so no plan can choose them)."""
    found = search(training("on-demand", clouds=["gcp"], accelerators=["b200"]), CATALOG, Environment())
    (reason, *_) = [rejection.reason for rejection in found.rejected if rejection.rule == "not-sold"]
    assert "sold as reservation, flex-start, spot" in reason
    assert "reservation: list the reservation you hold in placement.reservations" in reason
    assert "flex-start: the catalog has no flex-start price for it" in reason
    assert "spot: the catalog has no spot price for it" in reason
    # And with its reservation listed, A4 plans.
    held = {"name": "b200-res", "zone": "us-central1-b", "instance_type": "a4-highgpu-8g", "count": 2}
    chosen = plan(training("reservation", clouds=["gcp"], reservations=[held]), CATALOG)
    assert chosen.option.split("/")[4] == "a4-highgpu-8g" and chosen.pricing == "reservation"
    assert any("no on-demand price to state its worth" in reason for reason in chosen.reasons)


# ---- the chain ---------------------------------------------------------------------------------------------------

def test_the_chain_orders_reservation_then_flex_start_then_on_demand_where_budget_pricing_lists_them():
    spec = training(["reservation", "flex-start", "on-demand"], clouds=["gcp"], regions=["us-central1"],
                    accelerators=["h100"], reservations=[GCP_RESERVATION])
    planned, _ = plan_fleet([spec], CATALOG, [Environment()], None, fleet_name=None)
    member = planned.workloads[0]
    same_type = [step.pricing for step in member.fallback if step.accelerator == "h100-80gb"]
    assert same_type == ["reservation", "flex-start", "on-demand"]
    # Spot is not in budget.pricing: no spot step, and the plan says why.
    assert any(reason.startswith("spot h100-80gb: budget.pricing [reservation, flex-start, on-demand] does not list it")
               for reason in member.fallback_omitted)
    standby = {pool.fallback_rank: pool for pool in member.plan.node_pools if pool.fallback_rank}
    assert standby[2].flex_start and standby[2].initial_nodes == 0 and not standby[2].reservation
    assert not standby[3].flex_start and not standby[3].spot


def test_the_gcp_plan_check_refuses_a_flex_start_pool_that_breaks_the_sourced_rules():
    from accelfit.cloudrules.gcp.validation import plan_problems

    spec = training("flex-start", clouds=["gcp"], regions=["us-central1"], accelerators=["h100"])
    chosen = plan(spec, CATALOG)
    assert plan_problems(chosen, CATALOG) == []
    pools = tuple(pool.model_copy(update={"initial_nodes": 1, "reservation": "held-1", "compact_placement": True})
                  if pool.flex_start else pool for pool in chosen.node_pools)
    found = plan_problems(chosen.model_copy(update={"node_pools": pools}), CATALOG)
    messages = [str(problem) for problem in found]
    assert any("flex_start" in message and "neither spot nor reserved" in message for message in messages)
    assert any("initial_nodes" in message and "starts empty" in message for message in messages)
    assert any("compact_placement" in message and "queued provisioning takes no compact placement" in message
               for message in messages)


def test_a_queued_flex_start_pool_gets_no_compact_placement():
    """Issue 33: xpk never sets COMPACT on a flex-start GPU pool, and Cluster Toolkit's gke-node-pool refuses COMPACT
    with queued provisioning on GPUs (data/flex_start.yaml compact_placement). The on-demand pool of the same run
    keeps its compact placement."""
    from accelfit.planner.fleet.provisioning import provisioning_class

    def gpu_pool(pricing):
        chosen = plan(training(pricing, deadline_days=5, clouds=["gcp"], regions=["us-central1"],
                               accelerators=["h100"]), CATALOG)
        (gpu,) = [pool for pool in chosen.node_pools if pool.role == "gpu"]
        return chosen, gpu

    chosen, flex = gpu_pool("flex-start")
    assert flex.max_nodes > 1 and provisioning_class(chosen, flex) is not None and not flex.compact_placement
    _, on_demand = gpu_pool("on-demand")
    assert on_demand.max_nodes > 1 and on_demand.compact_placement
