"""Helm values against the pinned charts' defaults (accelfit/chartvalues): Helm's merge, each API-server rule
catching a breach, the values schema, the data matching the pins, and every shipped stack's releases."""

from __future__ import annotations

import dataclasses

import pytest

from accelfit.chartvalues import check
from accelfit.chartvalues.api_rules import (
    parse_quantity,
    pod_security_context_problems,
    resource_problems,
    security_context_problems,
    toleration_problems,
)
from accelfit.chartvalues.check import (
    chart_defaults,
    merged_values,
    object_sites,
    release_problems,
    site_fragments,
    values_problems,
)
from accelfit.stackfile import load_stack
from k8s_schemas import definition_problems, stack_minors
from accelfit.chartvalues.merge import helm_merge
from stack_documents import ROOT, STACKS, stack_document


def test_helm_merge_merges_maps_replaces_lists_and_scalars_and_null_deletes():
    defaults = {"securityContext": {"allowPrivilegeEscalation": False, "runAsUser": 0, "capabilities": {"add": ["A"]}},
                "tolerations": [{"key": "a"}], "replicas": 1, "extra": "x"}
    merged = helm_merge(defaults, {"securityContext": {"privileged": True, "runAsUser": None,
                                                       "capabilities": {"add": ["B"]}},
                                   "tolerations": [{"key": "b"}], "replicas": 2, "extra": None})
    assert merged == {"securityContext": {"allowPrivilegeEscalation": False, "privileged": True,
                                          "capabilities": {"add": ["B"]}},
                      "tolerations": [{"key": "b"}], "replicas": 2}
    assert defaults["securityContext"]["runAsUser"] == 0, "the defaults are not modified"


# --- the API server's rules, each catching a breach ---

def test_privileged_with_privilege_escalation_off_is_refused():
    assert security_context_problems({"privileged": True, "allowPrivilegeEscalation": False}, "sc") == [
        "sc: Invalid value: cannot set `allowPrivilegeEscalation` to false and `privileged` to true"]
    assert security_context_problems({"privileged": True, "allowPrivilegeEscalation": True}, "sc") == []
    assert security_context_problems({"privileged": True}, "sc") == []


def test_cap_sys_admin_with_privilege_escalation_off_is_refused_literally():
    refused = {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}}
    assert "CAP_SYS_ADMIN" in security_context_problems(refused, "sc")[0]
    # The API server compares the literal string: SYS_ADMIN (the dcgm-exporter default) passes validation.
    assert security_context_problems({"allowPrivilegeEscalation": False,
                                      "capabilities": {"add": ["SYS_ADMIN"]}}, "sc") == []


def test_user_and_group_ids_must_be_valid():
    assert "runAsUser" in security_context_problems({"runAsUser": -1}, "sc")[0]
    assert "runAsGroup" in security_context_problems({"runAsGroup": 2**31}, "sc")[0]
    assert "fsGroup" in pod_security_context_problems({"fsGroup": -5}, "pod")[0]
    assert "supplementalGroups[1]" in pod_security_context_problems({"supplementalGroups": [1, -1]}, "pod")[0]
    assert pod_security_context_problems({"fsGroup": 2000, "runAsUser": 65532}, "pod") == []


def test_quantities_parse_as_kubernetes_writes_them():
    assert parse_quantity("100m") * 10 == 1 and parse_quantity("1Gi") == 2**30 and parse_quantity("1e3") == 1000
    assert parse_quantity("1.5") * 2 == 3 and parse_quantity(2) == 2
    assert parse_quantity("1GB") is None and parse_quantity("abc") is None


def test_a_request_above_its_limit_is_refused():
    assert resource_problems({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}, "r") == [
        "r.requests: Invalid value: must be less than or equal to cpu limit"]
    assert resource_problems({"requests": {"cpu": "500m", "memory": "1Gi"},
                              "limits": {"cpu": "1", "memory": "2Gi"}}, "r") == []


def test_extended_resources_need_an_equal_whole_limit():
    assert "Limit must be set" in resource_problems({"requests": {"nvidia.com/gpu": 1}}, "r")[0]
    assert "must be equal to nvidia.com/gpu limit" in resource_problems(
        {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 2}}, "r")[0]
    assert "must be an integer" in resource_problems({"limits": {"nvidia.com/gpu": "0.5"}}, "r")[0]
    assert resource_problems({"limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}}, "r") == []


def test_negative_malformed_and_lonely_hugepage_quantities_are_refused():
    assert "greater than or equal to 0" in resource_problems({"limits": {"memory": "-1Gi"}}, "r")[0]
    assert "regular expression" in resource_problems({"limits": {"memory": "1GB"}}, "r")[0]
    assert resource_problems({"limits": {"hugepages-2Mi": "1Gi"}}, "r") == ["r: Forbidden: HugePages require cpu or memory"]
    assert resource_problems({"limits": {"hugepages-2Mi": "1Gi", "memory": "2Gi"}}, "r") == []


def test_tolerations_follow_the_api_server_rules():
    assert toleration_problems([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], "t") == []
    assert "value must be empty" in toleration_problems([{"key": "k", "operator": "Exists", "value": "v"}], "t")[0]
    assert "operator must be Exists" in toleration_problems([{"operator": "Equal", "value": "v"}], "t")[0]
    assert "tolerationSeconds" in toleration_problems([{"key": "k", "effect": "NoSchedule",
                                                         "tolerationSeconds": 30}], "t")[0]
    assert "Unsupported value: 'NoScheduel'" in toleration_problems([{"key": "k", "effect": "NoScheduel"}], "t")[0]


def test_a_misspelt_field_in_a_merged_fragment_fails_the_openapi_definition():
    assert "'allowPriviledgeEscalation' was unexpected" in definition_problems(
        "io.k8s.api.core.v1.SecurityContext", {"privileged": True, "allowPriviledgeEscalation": True}, "1.35")[0]
    assert definition_problems("io.k8s.api.core.v1.Toleration[]", [{"key": "k", "operator": "Exists"}], "1.35") == []


# --- merged over the real chart defaults ---

def _release(chart: str, version: str, values: dict) -> dict:
    return {"type": check.RELEASE_TYPE, "name": "release", "urn": "urn:release",
            "inputs": {"chart": chart, "version": version, "values": values}}


def test_privileged_over_the_dcgm_exporter_default_is_caught_and_the_fixes_pass():
    """Issue #24 item 2: the chart's default securityContext has allowPrivilegeEscalation: false, which Helm keeps
    beside the release's privileged: true."""
    assert chart_defaults()[("dcgm-exporter", "4.8.2")].values["securityContext"]["allowPrivilegeEscalation"] is False
    problems = release_problems(_release("dcgm-exporter", "4.8.2", {"securityContext": {"privileged": True}}))
    assert len(problems) == 1 and "`privileged` to true" in problems[0].problem
    assert "deployment/templates/daemonset.yaml" in problems[0].source
    for fix in ({"privileged": True, "allowPrivilegeEscalation": True},
                {"privileged": True, "allowPrivilegeEscalation": None}):
        assert release_problems(_release("dcgm-exporter", "4.8.2", {"securityContext": fix})) == []


def test_a_breach_inside_a_conditional_object_counts_only_when_the_chart_builds_it():
    bad = {"kueueViz": {"backend": {"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}}}
    assert release_problems(_release("oci://registry.k8s.io/kueue/charts/kueue", "0.19.2", bad)) == []
    bad["kueueViz"]["enable"] = True
    assert "cpu limit" in release_problems(_release("oci://registry.k8s.io/kueue/charts/kueue", "0.19.2", bad))[0].problem


def test_a_chart_version_without_kept_defaults_is_reported():
    problems = release_problems(_release("dcgm-exporter", "9.9.9", {}))
    assert len(problems) == 1 and "no default values kept" in problems[0].problem


def test_the_values_schema_is_applied_when_a_chart_ships_one(monkeypatch):
    defaults = chart_defaults()[("dcgm-exporter", "4.8.2")]
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"serviceMonitor": {"type": "object", "properties": {"interval": {"type": "string"}}}}}
    with_schema = {**chart_defaults(), ("dcgm-exporter", "4.8.2"): dataclasses.replace(defaults, values_schema=schema)}
    monkeypatch.setattr(check, "chart_defaults", lambda: with_schema)
    problems = release_problems(_release("dcgm-exporter", "4.8.2", {"serviceMonitor": {"interval": 15}}))
    assert [p.object for p in problems] == ["values.schema.json"] and "serviceMonitor.interval" in problems[0].problem
    assert release_problems(_release("dcgm-exporter", "4.8.2", {"serviceMonitor": {"interval": "15s"}})) == []


def test_every_pinned_chart_has_its_defaults_and_object_sites_at_the_pinned_version():
    from components.kubernetes.charts import chart_pins

    kept = {defaults.key: defaults for defaults in chart_defaults().values()}
    for key, pin in chart_pins().items():
        assert key in kept, f"no default values kept for chart pin {key}"
        assert (kept[key].chart, kept[key].version) == (pin.chart, pin.version), key
        assert kept[key].source["commit"] in pin.source or kept[key].source["ref"] in pin.source, key
        assert object_sites().get(key), f"no object sites read for {key}"
        for site in object_sites()[key]:
            for path in ("container_security_context", "pod_security_context", "resources"):
                if site.get(path):
                    first = site[path].split(".")[0]
                    assert first in kept[key].values, (key, site[path])


# --- every shipped stack ---

@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_release_is_valid_over_its_chart_defaults(stack):
    # Includes issue #24 item 2 (dcgm-exporter's privileged securityContext over the chart's
    # allowPrivilegeEscalation: false), fixed in components/kubernetes/gpu_software.py.
    problems = values_problems(stack_document(stack)["resources"])
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_release_fragment_matches_the_kubernetes_schema(stack):
    """What each template copies from the merged values (security contexts, resources, tolerations, affinity)
    against the OpenAPI definition of every Kubernetes version the stack's cluster can run."""
    resources = stack_document(stack)["resources"]
    minors = stack_minors(resources, load_stack(stack, ROOT).get("accelfit:kubernetesVersion"))
    problems = []
    for row in resources:
        if row["type"] != check.RELEASE_TYPE:
            continue
        defaults = chart_defaults()[(row["inputs"]["chart"], str(row["inputs"]["version"]))]
        merged = merged_values(defaults, row["inputs"].get("values") or {})
        for site in object_sites()[defaults.key]:
            for path, definition, value in site_fragments(site, merged):
                problems += [f"{row['name']}: values.{path}: {text}" for minor in minors
                             for text in definition_problems(definition, value, minor)]
    assert problems == [], "\n".join(problems)
