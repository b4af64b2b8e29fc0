"""Kubernetes objects a first `pulumi up` must get past the API server with (issue 24), asserted on the recorded
resources: what the chart renders from our values merged with its defaults, and what the queues admit."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from accelfit.preview.recorder import record
from components.build import build

sys.path[:0] = [str(Path(__file__).parents[1] / "gcp"), str(Path(__file__).parents[1] / "aws")]
import gcp_plans  # noqa: E402

# The exporter container's securityContext in the chart's defaults: NVIDIA/dcgm-exporter deployment/values.yaml at
# chart 4.8.2 (tag 4.5.3-4.8.2, commit 691c92762eb551313c825f6efe4ceeee20982801); templates/daemonset.yaml renders
# it as the container's securityContext with toYaml.
DCGM_CHART_SECURITY_CONTEXT = {"runAsNonRoot": False, "runAsUser": 0,
                               "capabilities": {"add": ["SYS_ADMIN"], "drop": ["ALL"]},
                               "allowPrivilegeEscalation": False}


def helm_merge(defaults: Any, values: Any) -> Any:
    """Helm's coalescing of user values over chart defaults: maps merge key by key, anything else replaces, and a
    null removes the default's key."""
    if not (isinstance(defaults, dict) and isinstance(values, dict)):
        return copy.deepcopy(values)
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = helm_merge(defaults.get(key), value)
    return merged


def security_context_errors(context: dict[str, Any]) -> list[str]:
    """kubernetes/kubernetes pkg/apis/core/validation/validation.go, ValidateSecurityContext."""
    errors = []
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            errors.append("cannot set `allowPrivilegeEscalation` to false and `privileged` to true")
        if "CAP_SYS_ADMIN" in (context.get("capabilities") or {}).get("add", []):
            errors.append("cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN")
    return errors


@pytest.fixture(scope="module")
def gke_h100():
    plan = gcp_plans.gke_h100_training()
    return record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})


def test_merged_dcgm_exporter_security_context_passes_the_api_server_and_stays_privileged(gke_h100):
    values = gke_h100.named("llm-train-k8s-telemetry-dcgm-exporter").inputs["values"]
    merged = helm_merge(DCGM_CHART_SECURITY_CONTEXT, values["securityContext"])
    assert security_context_errors(merged) == []
    # Still what Google's reference exporter runs as on GKE (the GPUs' device files need it).
    assert merged["privileged"] is True and merged["runAsUser"] == 0


def test_the_rule_catches_the_bare_privileged_override():
    merged = helm_merge(DCGM_CHART_SECURITY_CONTEXT, {"privileged": True, "runAsNonRoot": False, "runAsUser": 0})
    assert security_context_errors(merged) == [
        "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"]
