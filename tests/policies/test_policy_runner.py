"""The in-process runner: config applied as the engine applies it, and the known-bad stack's results."""

from __future__ import annotations

import pytest
from bad_stack import ADVISORY_IN_PROD, EXPECTED, bad_resources, over_budget
from policy_resources import config, gke_gpu_pool

from policies.accelfit_policies import all_policies
from policies.runner import mandatory, policy_info_of, reconcile_config, run_policies


def levels(env: str) -> dict[str, str]:
    return {name: entry.level for name, entry in reconcile_config(policy_info_of(all_policies()), config(env)).items()}


def test_the_pack_has_at_least_twenty_rules_with_unique_names():
    names = [policy.name for policy in all_policies()]
    assert len(names) >= 20 and len(set(names)) == len(names)


def test_reconcile_order_all_then_policy_entry_and_schema_defaults():
    info = {"a": ("advisory", {"limit": {"type": "integer", "default": 3}}), "b": ("mandatory", {})}
    result = reconcile_config(info, {"all": "mandatory", "a": {"limit": 5}, "b": "disabled"})
    assert (result["a"].level, result["a"].properties) == ("mandatory", {"limit": 5})
    assert result["b"].level == "disabled"
    assert reconcile_config(info, {})["a"].properties == {"limit": 3}


def test_reconcile_refuses_unknown_policies_settings_and_types():
    info = {"a": ("advisory", {"limit": {"type": "integer"}})}
    for bad in ({"typo": "advisory"}, {"a": {"limti": 1}}, {"a": {"limit": "many"}}, {"a": "loud"}):
        with pytest.raises(ValueError):
            reconcile_config(info, bad)


def test_environment_files_load_advisory_in_dev_and_mandatory_in_prod():
    dev, prod = levels("dev"), levels("prod")
    assert set(dev.values()) <= {"advisory", "disabled"}
    assert prod["stack-monthly-budget"] == prod["no-public-ips-on-accelerators"] == "mandatory"
    assert prod["gke-gpu-driver-pinned"] == prod["deletion-protection"] == "mandatory"
    assert prod["spot-outside-prod"] == "disabled" and dev["spot-outside-prod"] == "advisory"
    assert levels("staging")["stack-monthly-budget"] == "mandatory"


def test_known_bad_stack_under_prod_config_is_mandatory():
    found = run_policies(bad_resources(), config("prod"), price_resources=over_budget)
    reported = {(violation.policy, violation.name) for violation in mandatory(found)}
    assert reported >= EXPECTED
    assert {(v.policy, v.name) for v in found if v.level == "advisory"} >= ADVISORY_IN_PROD
    budget = next(v for v in found if v.policy == "stack-monthly-budget")
    assert "999999 USD/month" in budget.message and "allowed 450000" in budget.message


def test_known_bad_stack_under_dev_config_is_only_advisory():
    found = run_policies(bad_resources(), config("dev"), price_resources=over_budget)
    assert found and mandatory(found) == []
    assert ("no-public-ips-on-accelerators", "llm-train-gpu-pool") in {(v.policy, v.name) for v in found}


def test_messages_print_whole_numbers_though_the_wire_sends_floats():
    found = run_policies([gke_gpu_pool()], {"bounded-autoscaling": {"maxNodesPerPool": 2}})
    [message] = [v.message for v in found if v.policy == "bounded-autoscaling"]
    assert "4 nodes" in message and "4.0" not in message


def test_unknown_preview_values_become_an_advisory_not_a_crash():
    from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE

    pool = gke_gpu_pool()
    pool["props"]["networkConfig"]["enablePrivateNodes"] = UNKNOWN_BOOLEAN_VALUE
    found = run_policies([pool], config("prod"))
    [cannot] = [v for v in found if v.policy == "no-public-ips-on-accelerators"]
    assert cannot.level == "advisory" and "during preview" in cannot.message


def test_disabled_policies_do_not_run():
    found = run_policies(bad_resources(), {"all": "disabled"}, price_resources=over_budget)
    assert found == []


def _every_golden_resource() -> list[dict]:
    from policy_resources import GOLDEN_FILES, golden

    return [resource for path in GOLDEN_FILES if path.suffix == ".json" for resource in golden(path)]


def test_no_policy_writes_to_props_so_the_runner_may_share_one_proxy_per_resource(monkeypatch):
    """The runner builds one unknown-checking proxy per resource for all policies (the server builds one per
    policy); that is only the same when no policy writes through it."""
    from pulumi_policy import proxy

    writes: list[str] = []
    monkeypatch.setattr(proxy._DictProxy, "__setitem__", lambda self, key, value: writes.append(key))
    resources = [*bad_resources(), *_every_golden_resource()]
    assert len(resources) > 50
    found = run_policies(resources, config("prod"), price_resources=over_budget)
    assert found and writes == []


def test_shared_proxies_report_what_proxies_of_ones_own_report():
    """The same violations as running each policy alone, over proxies no other policy has seen."""
    resources = [*bad_resources(), *_every_golden_resource()]
    policies = all_policies(over_budget)
    shared = run_policies(resources, config("prod"), policies=policies)
    prod = config("prod")

    def own_config(name: str) -> dict:
        return {key: value for key, value in prod.items() if key in ("all", name)}

    alone = [violation for policy in policies
             for violation in run_policies(resources, own_config(policy.name), policies=[policy])]
    assert shared and sorted(map(repr, shared)) == sorted(map(repr, alone))
