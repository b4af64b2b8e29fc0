"""The policy pack's node rules (accelerator-pools-tainted, bounded-autoscaling, training-pools-scale-to-zero,
the ownership and environment labels, no-public-ips-on-accelerators) read the third cloud's node resource through
the reader its record names (`Cloud.node_reader`: tests/clouds/fake_cloud.py:node_group_of), as they read GKE pools
and EKS node groups (issue 35). Its node, as its builder records it, passes them; each breach of one is flagged on
its node by the real pack (as tests/policies/* drive it) and, where a policy setting can make one, by the real CLI.
Before the node reader these rules skipped every resource type but GKE's and EKS's, so each breach below passed."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accelfit.catalog import load_catalog
from accelfit.cli.main import main
from accelfit.planner.planner import plan
from accelfit.spec import WorkloadSpec
from policies.accelfit_policies.nodes import node_group
from policies.accelfit_policies.view import ResourceView
from policies.runner import run_policies
from tests.clouds import fake_cloud
from tests.clouds.test_third_cloud import STACK, _project

ROOT = Path(__file__).parents[2]


def _config(env: str) -> dict[str, Any]:
    return json.loads((ROOT / "policies" / "config" / f"{env}.json").read_text())


def _resources(environment: str = "staging") -> list[dict[str, Any]]:
    """The fake stack's workload planned on it and built under mocks by its builder, as the pack's resources."""
    from accelfit.preview.recorder import record
    from components.build import build
    from components.common import Ownership

    spec = WorkloadSpec.model_validate(dict(
        name="third", kind="training", framework="pytorch", model={"parameters": "7B"},
        training={"tokens": "20B", "deadline_days": 10},
        placement={"orchestration": "kubernetes", "clouds": [fake_cloud.CLOUD.name]}))
    catalog = load_catalog()
    chosen = plan(spec, catalog)
    ownership = Ownership(team="ml", cost_center="cc-1", environment=environment, workload="third")
    recording = record(lambda: build(chosen, ownership, catalog), project="third", stack=environment)
    return [{"type": r.type, "name": r.name, "urn": r.urn, "props": r.inputs, "protect": r.protect,
             "parent": r.parent} for r in recording.resources if r.custom]


def _with_node(resources: list[dict[str, Any]], edit: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    changed = copy.deepcopy(resources)
    edit(next(r for r in changed if r["type"] == fake_cloud.NODE_TYPE)["props"])
    return changed


def _found(resources: list[dict[str, Any]], env: str = "staging") -> list[tuple[str, str, str, str]]:
    return [(v.policy, v.level, v.name, v.message) for v in run_policies(resources, _config(env))]


def test_the_pack_reads_its_node_through_its_record(third_cloud):
    resources = _resources()
    (node,) = [r for r in resources if r["type"] == fake_cloud.NODE_TYPE]
    group = node_group(ResourceView(node["type"], node["name"], node["props"]))
    assert group is not None
    assert group.labels["accelfit.io/role"] == "training" and group.tags["team"] == "ml"
    assert [taint["key"] for taint in group.taints] == ["nvidia.com/gpu"] and group.private_setting() == (True, True)
    assert node_group(ResourceView("kubernetes:core/v1:Namespace", "ns", {})) is None


def test_its_node_as_built_passes_the_node_rules(third_cloud):
    """Tainted, bounded, scaling to zero, labelled, private: only the advisory spot rule speaks (it is on demand)."""
    assert [(policy, name) for policy, _, name, _ in _found(_resources())] == [
        ("spot-outside-prod", "third-gpu")]


def _unbounded(props: dict[str, Any]) -> None:
    props["nodes"] = 40


def _untainted(props: dict[str, Any]) -> None:
    props["taints"] = []


def _prefer_only(props: dict[str, Any]) -> None:
    props["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "PREFER_NO_SCHEDULE"}]


def _unowned(props: dict[str, Any]) -> None:
    del props["tags"]["team"]


def _prod_labelled(props: dict[str, Any]) -> None:
    props["tags"]["environment"] = "prod"


def _public(props: dict[str, Any]) -> None:
    props["privateNodes"] = False


def _kept_warm(props: dict[str, Any]) -> None:
    props["minNodes"] = 1


BREACHES = [
    (_unbounded, "bounded-autoscaling", "mandatory",
     "GpuNode 'third-gpu' may scale to 40 nodes; allowed 32. Fix: lower the pool's max nodes"),
    (_untainted, "accelerator-pools-tainted", "advisory",
     "GpuNode 'third-gpu' has GPU nodes without the nvidia.com/gpu NoSchedule taint (taints: none)"),
    (_prefer_only, "accelerator-pools-tainted", "advisory", "(taints: nvidia.com/gpu:PREFER_NO_SCHEDULE)"),
    (_unowned, "required-ownership-labels", "advisory",
     "GpuNode 'third-gpu' lacks ownership label(s) team in tags"),
    (_prod_labelled, "environment-label-matches-stack", "advisory",
     "GpuNode 'third-gpu' is labelled environment=prod in a staging stack"),
    (_public, "no-public-ips-on-accelerators", "mandatory",
     "GpuNode 'third-gpu' gives its accelerator nodes public IPs (privateNodes is False); allowed: private nodes "
     "only. Fix: set privateNodes: true."),
    (_kept_warm, "training-pools-scale-to-zero", "advisory",
     "GpuNode 'third-gpu' is a training pool with 1 nodes minimum; allowed 0. Fix: set the minimum to 0 (minNodes)"),
]


@pytest.mark.parametrize(("edit", "policy", "level", "message"), BREACHES, ids=[row[1] + row[0].__name__
                                                                                 for row in BREACHES])
def test_each_breach_on_its_node_is_flagged(third_cloud, edit, policy, level, message):
    found = [row for row in _found(_with_node(_resources(), edit)) if row[0] == policy]
    assert [(found_policy, found_level, name) for found_policy, found_level, name, _ in found] == [
        (policy, level, "third-gpu")]
    assert message in found[0][3]


def test_its_breaches_fail_the_preview_through_the_cli(third_cloud, tmp_path, capsys, monkeypatch):
    """`accelfit preview --stack` with an environment that asks for a label its node lacks (mandatory) and another
    taint key: exit 1, both named on its node."""
    project = _project(tmp_path)
    path = project / "policies" / "config" / "staging.json"
    config = json.loads(path.read_text())
    config["required-ownership-labels"] = {"enforcementLevel": "mandatory",
                                           "requiredKeys": ["team", "cost-center", "environment", "workload",
                                                            "owner"]}
    config["accelerator-pools-tainted"] = {"gpuTaintKey": "example.com/gpu"}
    path.write_text(json.dumps(config))
    monkeypatch.chdir(project)
    assert main(["preview", "--stack", STACK, "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    found = {(v["policy"], v["resource"], v["level"]) for v in document["policies"]["violations"]}
    assert {("required-ownership-labels", "third-gpu", "mandatory"),
            ("accelerator-pools-tainted", "third-gpu", "advisory")} <= found
