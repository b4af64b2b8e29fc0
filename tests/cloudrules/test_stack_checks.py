"""`accelfit check` runs the cloud rules on a stack's plan (accelfit/cloudrules/stack_checks.py) before anything is
created: a breach exits 2 there, naming the field, instead of first surfacing in `preview` or `pulumi up`."""

from __future__ import annotations

from pathlib import Path

import pytest

import accelfit.stack_plan as fleet_stack
from accelfit.catalog import load_catalog
from accelfit.cli.main import main
from accelfit.cloudrules import shared_cluster
from accelfit.cloudrules.stack_checks import fleet_problems
from tests.stackrules.stack_copies import project as copied_project

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(copied_project(tmp_path))  # every shipped stack and the policy config
    return tmp_path


def _out_of_region(fleet):
    """The fleet with its first workload's plan moved to a zone of another region (what GCP refuses)."""
    member = fleet.workloads[0]
    plan = member.plan.model_copy(update={"zones": ("europe-west4-a",)})
    return fleet.model_copy(update={"workloads": (member.model_copy(update={"plan": plan}), *fleet.workloads[1:])})


@pytest.mark.parametrize("stack", ["dev", "example-gcp-fleet", "example-aws-h100-training", "example-onprem-h100",
                                   "example-hybrid-onprem-gke"])
def test_every_shipped_stack_meets_the_cloud_rules(stack, project, capsys):
    assert main(["check", f"stacks/Pulumi.{stack}.yaml"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(("stack", "field"), [("dev", "zones[0]"), ("example-gcp-fleet", "workloads[0].zones[0]")])
def test_check_refuses_a_plan_that_breaks_a_cloud_rule(stack, field, project, capsys, monkeypatch):
    import accelfit.planner as planner

    planned = planner.plan_fleet  # the stack rules run on what the planner returns, inside plan_stack_fleet
    monkeypatch.setattr(planner, "plan_fleet",
                        lambda *args, **kwargs: (lambda fleet, locks: (_out_of_region(fleet), locks))(
                            *planned(*args, **kwargs)))
    code = main(["check", f"stacks/Pulumi.{stack}.yaml"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{field}" in err and "zone is not in the plan's region" in err and "Traceback" not in err


def test_check_refuses_a_shared_cluster_over_its_pool_limit(project, capsys, monkeypatch):
    rules = shared_cluster.shared_cluster_rules()
    tight = rules.model_copy(update={"node_pools_per_cluster": tuple(
        row.model_copy(update={"max_pools": 2}) for row in rules.node_pools_per_cluster)})
    monkeypatch.setattr(shared_cluster, "shared_cluster_rules", lambda: tight)
    code = main(["check", "stacks/Pulumi.example-gcp-fleet.yaml"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "would hold" in err and "2 node pools per GKE cluster is the limit" in err


def test_single_form_problems_name_the_plan_field_a_fleets_the_workload():
    from accelfit.stackfile import load_stack_file

    catalog = load_catalog()
    stack = load_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml", "dev", ROOT)
    fleet, _ = fleet_stack.plan_stack_fleet(stack, catalog)
    assert fleet_problems(fleet, catalog, single=True) == []
    broken = _out_of_region(fleet)
    assert [item.field for item in fleet_problems(broken, catalog, single=True)] == ["zones[0]"]
    assert [item.field for item in fleet_problems(broken, catalog, single=False)] == ["workloads[0].zones[0]"]
