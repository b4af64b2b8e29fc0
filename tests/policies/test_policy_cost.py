"""Cost rules, each called directly with the args the analyzer builds (one passing and one failing case)."""

from __future__ import annotations

from types import SimpleNamespace

from policy_resources import aws, edit, gke_gpu_pool, gke_system_pool, resource_args, stack_args, tpu_vm, violations

from policies.accelfit_policies import cost


def fake_pricing(total: float):
    """A stand-in for accelfit.pricing, so the budget rule is tested on its own."""
    def price(resources, catalog):
        rows = tuple(SimpleNamespace(name=r["name"], monthly_usd=total / len(resources)) for r in resources)
        return SimpleNamespace(monthly_usd=total, resources=rows)
    return price


def test_budget_passes_under_the_limit():
    policy = cost.budget_policy(price_resources=fake_pricing(900.0))
    assert violations(policy, stack_args([gke_gpu_pool()], {"maxMonthlyUsd": 1000})) == []


def test_budget_fails_over_the_limit_with_whole_numbers_and_the_fix():
    policy = cost.budget_policy(price_resources=fake_pricing(12345.0))
    [message] = violations(policy, stack_args([gke_gpu_pool()], {"maxMonthlyUsd": 1000.0}))
    assert "12345 USD/month" in message and "allowed 1000 USD/month" in message and "over by 11345" in message
    assert "llm-train-gpu-pool" in message and "Fix:" in message and ".0 " not in message


def test_budget_without_a_limit_does_not_apply():
    assert violations(cost.budget_policy(price_resources=fake_pricing(1e9)), stack_args([gke_gpu_pool()])) == []


def test_budget_uses_accelfit_pricing_by_default():
    # 4 x a3-highgpu-8g all month is far above 1000 USD; the real pricing must see the pool.
    [message] = violations(cost.budget_policy(), stack_args([gke_gpu_pool()], {"maxMonthlyUsd": 1000}))
    assert "llm-train-gpu-pool" in message


def test_budget_fails_closed_when_pricing_breaks():
    def broken(resources, catalog):
        raise KeyError("nodeConfig")
    [message] = violations(cost.budget_policy(price_resources=broken), stack_args([gke_gpu_pool()],
                                                                                  {"maxMonthlyUsd": 10}))
    assert "could not be computed" in message


def test_allow_list_passes_an_allowed_alias():
    args = resource_args(gke_gpu_pool(), {"allowedAccelerators": ["H100"]})
    assert violations(cost.allow_list_policy(), args) == []


def test_allow_list_fails_with_actual_and_allowed():
    [message] = violations(cost.allow_list_policy(), resource_args(tpu_vm(), {"allowedAccelerators": ["l4", "t4"]}))
    assert "tpu-v5p" in message and "l4, t4" in message and "jax-pretrain-slice-0-vm" in message


def test_max_accelerators_counts_the_pool_at_its_maximum():
    pool = gke_gpu_pool()  # 4 nodes x 8 H100
    assert violations(cost.max_accelerators_policy(), stack_args([pool], {"maxAccelerators": 32})) == []
    [message] = violations(cost.max_accelerators_policy(), stack_args([pool, tpu_vm()], {"maxAccelerators": 32}))
    assert "96 accelerators" in message and "allowed 32" in message and "llm-train-gpu-pool 32" in message


def test_spot_passes_for_spot_pools_and_ignores_system_pools():
    spot = edit(gke_gpu_pool(), lambda p: p["nodeConfig"].update(spot=True))
    assert violations(cost.spot_policy(), resource_args(spot)) == []
    assert violations(cost.spot_policy(), resource_args(gke_system_pool())) == []


def test_spot_fails_for_on_demand_accelerators():
    [message] = violations(cost.spot_policy(), resource_args(aws("llm-pretrain-pool-gpu-ng")))
    assert "h100-80gb" in message and "on-demand" in message and "spot" in message


def test_spot_exempts_a_named_reservation_unless_configured_not_to():
    reserved = edit(gke_gpu_pool(), lambda p: p["nodeConfig"].update(
        reservationAffinity={"consumeReservationType": "SPECIFIC_RESERVATION"}))
    assert violations(cost.spot_policy(), resource_args(reserved)) == []
    assert violations(cost.spot_policy(), resource_args(reserved, {"allowReserved": False}))


def test_bounded_autoscaling_passes_within_the_limit():
    assert violations(cost.autoscaling_policy(), resource_args(gke_gpu_pool(), {"maxNodesPerPool": 4})) == []


def test_bounded_autoscaling_fails_over_the_limit_and_without_a_max():
    [over] = violations(cost.autoscaling_policy(), resource_args(aws("llm-pretrain-pool-gpu-ng"),
                                                                 {"maxNodesPerPool": 4}))
    assert "7 nodes" in over and "allowed 4" in over
    unbounded = edit(gke_gpu_pool(), lambda p: p.update(autoscaling={"totalMinNodeCount": 0}))
    [missing] = violations(cost.autoscaling_policy(), resource_args(unbounded))
    assert "no maximum" in missing


def test_scale_to_zero_passes_for_a_training_group_with_min_zero():
    assert violations(cost.scale_to_zero_policy(), resource_args(aws("llm-pretrain-pool-gpu-ng"))) == []


def test_scale_to_zero_fails_for_a_training_group_that_keeps_nodes():
    group = edit(aws("llm-pretrain-pool-gpu-ng"), lambda p: p["scalingConfig"].update(minSize=2))
    [message] = violations(cost.scale_to_zero_policy(), resource_args(group))
    assert "2 nodes minimum" in message and "allowed 0" in message
