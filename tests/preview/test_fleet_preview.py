"""A fleet stack previewed end to end (issue 17): one cluster holding every workload's pools, a ClusterQueue per
workload in the fleet's cohort, cost per workload and for the fleet agreeing with the fleet plan, budgets for both."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from accelfit.preview.run import preview_stack

from test_cost_agreement import fleet_figures_agree
from test_preview_stack import GOLDEN, ROOT

STACK = "example-gcp-fleet"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def document():
    return preview_stack(STACK, ROOT).document


def of_type(document, kind):
    return [item for item in document["resources"] if item["type"] == kind]


def test_example_fleet_preview_document_is_stable(document):
    rendered = json.dumps(document, indent=2, sort_keys=True) + "\n"
    golden = GOLDEN / f"preview-{STACK}.json"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN"):
        golden.write_text(rendered)
    assert rendered == golden.read_text()


def test_two_workloads_tpu_and_gpu_preview_as_one_gke_cluster(document):
    assert document["form"] == "fleet" and document["fleet"] == "ml-platform"
    [cluster] = of_type(document, "gcp:container/cluster:Cluster")
    assert cluster["inputs"]["name"] == "ml-platform-gke" and cluster["workload"] == "ml-platform-shared"
    assert len(of_type(document, "gcp:compute/routerNat:RouterNat")) == 1
    assert len(of_type(document, "gcp:compute/network:Network")) == 1
    pools = {item["inputs"]["name"]: item for item in of_type(document, "gcp:container/nodePool:NodePool")}
    kinds = {name: ("tpu" if "placementPolicy" in item["inputs"] or "ct" in item["inputs"]["nodeConfig"]
                    ["machineType"] else "gpu" if item["inputs"]["nodeConfig"].get("guestAccelerators") else "system")
             for name, item in pools.items()}
    assert {pools[name]["workload"] for name, kind in kinds.items() if kind == "tpu"} == {"jax-pretrain"}
    assert {pools[name]["workload"] for name, kind in kinds.items() if kind == "gpu"} == {"chat-serve"}
    assert [name for name, kind in kinds.items() if kind == "system"] == ["ml-platform-gke-system"]
    assert {item["inputs"]["cluster"] for item in pools.values()} == {"ml-platform-gke-cluster-id"}
    standby = [item for item in pools.values()
               if item["inputs"]["nodeConfig"]["labels"].get("accelfit.io/fallback-rank", "0") != "0"]
    assert standby and all(item["inputs"]["initialNodeCount"] == 0 and item["monthly_usd"] == 0
                           and item["full_scale_monthly_usd"] > 0 for item in standby)


def test_flavors_queues_in_one_cohort_and_local_queues(document):
    plan = document["plan"]
    flavors = {item["inputs"]["metadata"]["name"] for item in of_type(document, KUEUE + "ResourceFlavor")}
    # A flavor per pool, except a capacity group's later pools (steps moved to on no-capacity): held by the group's
    # flavor, which keeps its first pool's name.
    grouped = {f"{member['name']}-{step['pool']}" for member in plan["workloads"] for step in member["fallback"]
               if "no-capacity" in step["moves_when"]}
    pools = {f"{member['name']}-{pool['name']}" for member in plan["workloads"]
             for pool in member["plan"]["node_pools"] if pool["role"] != "system"}
    assert flavors == pools - grouped
    queues = {item["inputs"]["metadata"]["name"]: item for item in of_type(document, KUEUE + "ClusterQueue")}
    assert set(queues) == {"jax-pretrain", "chat-serve"}
    assert {item["inputs"]["spec"]["cohortName"] for item in queues.values()} == {"ml-platform"}
    for member in plan["workloads"]:
        [group] = queues[member["name"]]["inputs"]["spec"]["resourceGroups"]
        own = [flavor["name"] for flavor in group["flavors"] if flavor["name"].startswith(member["name"] + "-")]
        # Its jobs land on its planned pool first, then its standby pools in the fallback chain's order.
        chain = [f"{member['name']}-{step['pool']}" for step in member["fallback"]
                 if step["pool"] and "no-capacity" not in step["moves_when"]]
        assert own[:len(chain)] == chain
        assert group["flavors"][0]["name"] == chain[0]
        assert queues[member["name"]]["workload"] == member["name"]
    local = {item["inputs"]["metadata"]["namespace"]: item["inputs"]["spec"]["clusterQueue"]
             for item in of_type(document, KUEUE + "LocalQueue")}
    assert local == {"jax-pretrain": "jax-pretrain", "chat-serve": "chat-serve"}


def test_shared_items_created_once(document):
    once = ("gcp:container/cluster:Cluster", "gcp:compute/routerNat:RouterNat", "pulumi:providers:kubernetes",
            "gcp:serviceaccount/account:Account")
    accounts = [item["name"] for item in of_type(document, "gcp:serviceaccount/account:Account")]
    assert accounts.count("ml-platform-nodes-sa") == 1
    charts = [item["inputs"]["chart"] for item in of_type(document, "kubernetes:helm.sh/v3:Release")]
    assert len(charts) == len(set(charts))
    for kind in once[:3]:
        assert len(of_type(document, kind)) == 1, kind


def test_cost_per_workload_and_for_the_fleet_agree_with_the_plan(document):
    fleet_figures_agree(document)
    cost = document["cost"]
    shared = cost["shared"]["ml-platform"]
    own = {name: sum(item["monthly_usd"] for item in document["resources"] if item.get("workload") == name)
           for name in ("jax-pretrain", "chat-serve")}
    for name, figures in cost["workloads"].items():
        assert figures["monthly_usd"] == pytest.approx(own[name] + shared["monthly_usd"] / 2, abs=0.05)
    budget = {line["source"]: line for line in document["budget"]["lines"]}
    assert any(source.startswith("policy stack-monthly-budget") for source in budget)
    assert budget["spec budget.max_monthly_usd of workload chat-serve"]["actual_usd"] == \
        cost["workloads"]["chat-serve"]["monthly_usd"]


def fleet_project(tmp_path: Path, specs: list[dict], environment: str = "staging", **config) -> Path:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    stack = {"gcp:project": "acme-ml-dev", "gcp:region": "us-central1", "aws:region": "us-east-1",
             "accelfit:environment": environment, "accelfit:team": "research-llm", "accelfit:costCenter": "cc-1",
             "accelfit:fleet": "fleet", "accelfit:workloads": specs,
             "accelfit:eksPublicAccessCidrs": ["203.0.113.0/24"],
             "accelfit:eksAdminPrincipals": ["arn:aws:iam::111122223333:role/accelfit-deploy"], **config}
    (tmp_path / "stacks" / "Pulumi.fleet.yaml").write_text(yaml.safe_dump({"config": stack}))
    return tmp_path


def serving(name: str, cloud: str, region: str, accelerator: str, budget: float = 25000,
            pricing: object = "on-demand") -> dict:
    return {"name": name, "kind": "inference", "framework": "pytorch", "model": {"parameters": "8B"},
            "inference": {"requests_per_second": 4, "latency_p99_ms": 15000},
            "placement": {"clouds": [cloud], "regions": [region], "accelerators": [accelerator]},
            "budget": {"max_monthly_usd": budget, "pricing": pricing}}


FINE_TUNE_AWS = {"name": "ft-7b", "kind": "fine-tuning", "framework": "pytorch", "model": {"parameters": "7B"},
                 "training": {"tokens": "5B", "deadline_days": 3}, "data": {"dataset_tb": 1},
                 "placement": {"clouds": ["aws"], "regions": ["us-east-1"]},
                 "budget": {"pricing": ["spot", "on-demand"]}}


def test_aws_two_workload_fleet_shares_one_eks_cluster(tmp_path):
    project = fleet_project(tmp_path, [FINE_TUNE_AWS, serving("chat-a", "aws", "us-east-1", "l4")])
    document = preview_stack("fleet", project).document
    assert len(of_type(document, "aws:eks/cluster:Cluster")) == 1
    groups = {item["name"]: item["workload"] for item in of_type(document, "aws:eks/nodeGroup:NodeGroup")}
    assert {"ft-7b", "chat-a", "fleet-shared"} <= set(groups.values())
    queues = {item["inputs"]["metadata"]["name"]: item["inputs"]["spec"]["cohortName"]
              for item in of_type(document, KUEUE + "ClusterQueue")}
    assert queues == {"ft-7b": "fleet", "chat-a": "fleet"}
    # The training workload's pools scale to zero after its run: the Cluster Autoscaler is a shared item of the
    # cluster, and the workload's pools are priced with it (for the run's hours, as the fleet plan prices them).
    [autoscaler] = [item for item in of_type(document, "kubernetes:helm.sh/v3:Release")
                    if "autoscaler" in item["inputs"]["chart"]]
    assert autoscaler["workload"] == "fleet-shared"
    training_pool = next(item for item in of_type(document, "aws:eks/nodeGroup:NodeGroup")
                         if item["workload"] == "ft-7b" and item["inputs"]["labels"].get(
                             "accelfit.io/fallback-rank", "0") == "0")
    assert "scaled to zero" in training_pool["cost_basis"]
    assert training_pool["monthly_usd"] < training_pool["full_scale_monthly_usd"]
    fleet_figures_agree(document)


def test_a_workload_over_its_spec_budget_is_named(tmp_path):
    project = fleet_project(tmp_path, [serving("chat-a", "gcp", "us-central1", "l4"),
                                       serving("chat-b", "gcp", "us-central1", "l4", budget=100)])
    from accelfit.planner import NoFeasiblePlan

    # The planner refuses a plan over the spec's budget, naming the workload.
    with pytest.raises(NoFeasiblePlan, match="chat-b"):
        preview_stack("fleet", project)


def test_a_fleet_over_the_policy_budget_fails_the_preview(tmp_path):
    project = fleet_project(tmp_path, [serving("chat-a", "gcp", "us-central1", "l4"),
                                       serving("chat-b", "gcp", "us-central1", "l4")], environment="staging")
    config_path = project / "policies" / "config" / "staging.json"
    config = json.loads(config_path.read_text())
    config["stack-monthly-budget"]["maxMonthlyUsd"] = 1000
    config_path.write_text(json.dumps(config))
    from accelfit.planner import NoFeasiblePlan

    try:
        result = preview_stack("fleet", project)
    except NoFeasiblePlan as failure:  # the planner already respects the environment's budget per workload
        assert "stack-monthly-budget" in failure.message
        return
    assert result.mandatory_violations >= 1
    assert any(v["policy"] == "stack-monthly-budget" for v in result.document["policies"]["violations"])


def test_each_workload_over_its_spec_budget_is_a_violation_naming_it():
    from accelfit.preview.fleet_costs import FleetCosts
    from accelfit.pricing.figures import CostFigures as Figures
    from accelfit.preview.fleet_document import fleet_budget_lines, workload_budget_violations
    from accelfit.spec import WorkloadSpec

    class Stack:
        environment = "prod"
        specs = (WorkloadSpec.model_validate(serving("chat-a", "gcp", "us-central1", "l4", budget=1000)),
                 WorkloadSpec.model_validate(serving("chat-b", "gcp", "us-central1", "l4", budget=5000)))

    class Member:
        def __init__(self, name):
            self.name = name

    class Fleet:
        workloads = (Member("chat-a"), Member("chat-b"))

    costs = FleetCosts(workloads={"chat-a": Figures(1500.0, 2000.0, None), "chat-b": Figures(900.0, 900.0, None)},
                       own={}, shared={}, fleet=Figures(2400.0, 2900.0, None))
    policies = {"stack-monthly-budget": {"enforcementLevel": "mandatory", "maxMonthlyUsd": 2000}}
    lines = fleet_budget_lines(Stack(), Fleet(), costs, policies)
    fleet_line, a_line, b_line = lines
    assert fleet_line["actual_usd"] == 2400.0 and not fleet_line["within"] and "workload" not in fleet_line
    assert (a_line["workload"], a_line["within"], a_line["level"]) == ("chat-a", False, "mandatory")
    assert b_line["within"]
    [violation] = workload_budget_violations(lines)
    assert violation["resource"] == "(workload chat-a)" and violation["level"] == "mandatory"
    assert "$1,500" in violation["message"] and "$1,000" in violation["message"]


def test_the_example_stack_header_says_what_the_fleet_plan_builds(document):
    header = " ".join(line.lstrip("# ") for line in (ROOT / "stacks" / f"Pulumi.{STACK}.yaml").read_text()
                      .splitlines() if line.startswith("#"))
    plan = document["plan"]
    [cluster] = plan["clusters"]
    assert f"share one GKE cluster, {cluster['name']}" in header and cluster["region"] in header
    for member in plan["workloads"]:
        chosen = member["plan"]
        assert f"{member['name']} on {chosen['platform']}" in header
        for pool in chosen["node_pools"]:
            if pool["role"] != "system":
                assert f"pool{'s' if pool.get('fallback_rank') else ''} {pool['name']}" in header or \
                    f"{pool['name']} (" in header, pool["name"]
    queues = {item["inputs"]["metadata"]["name"]: item["inputs"]["spec"]
              for item in of_type(document, KUEUE + "ClusterQueue")}
    borrowed = {name: [flavor["name"] for flavor in spec["resourceGroups"][0]["flavors"]
                       if not flavor["name"].startswith(name + "-")] for name, spec in queues.items()}
    assert borrowed["chat-serve"] == [] and borrowed["jax-pretrain"] and \
        all(name.startswith("chat-serve-gpu") for name in borrowed["jax-pretrain"])


TPU_VM_PRETRAIN = {"name": "vm-pretrain", "kind": "training", "framework": "jax", "model": {"parameters": "1B"},
                   "training": {"tokens": "20B", "deadline_days": 3}, "data": {"dataset_tb": 0.5},
                   "placement": {"clouds": ["gcp"], "regions": ["us-central1"], "orchestration": "vms"},
                   "budget": {"pricing": "on-demand"}}


def test_a_tpu_vm_workload_is_built_alone_and_priced_as_its_own(tmp_path):
    project = fleet_project(tmp_path, [serving("chat-a", "gcp", "us-central1", "l4"), TPU_VM_PRETRAIN])
    document = preview_stack("fleet", project).document
    members = {member["name"]: member for member in document["plan"]["workloads"]}
    assert members["vm-pretrain"]["cluster"] is None and members["chat-a"]["cluster"] == "fleet"
    [vm] = of_type(document, "gcp:tpu/v2Vm:V2Vm")
    assert vm["workload"] == "vm-pretrain" and vm["name"].startswith("vm-pretrain-")
    # Built alone: its own network and NAT, attributed to it (not to the shared cluster).
    nats = {item["name"]: item["workload"] for item in of_type(document, "gcp:compute/routerNat:RouterNat")}
    assert nats == {"fleet-net-nat": "fleet-shared", "vm-pretrain-net-nat": "vm-pretrain"}
    assert document["cost"]["workloads"]["vm-pretrain"]["cluster"] is None
    assert "fleet" in document["cost"]["shared"] and list(document["cost"]["shared"]["fleet"]["workloads"]) == \
        ["chat-a"]
    fleet_figures_agree(document)


def label_of(resource: dict) -> str | None:
    inputs = resource["inputs"]
    for labels in (inputs.get("labels"), inputs.get("resourceLabels"), inputs.get("tags"),
                   (inputs.get("nodeConfig") or {}).get("resourceLabels")):
        if isinstance(labels, dict) and labels.get("workload"):
            return labels["workload"]
    return ((inputs.get("metadata") or {}).get("labels") or {}).get("accelfit.io/workload")


def test_every_labelled_resource_is_attributed_to_the_workload_its_label_names(document):
    labelled = [(item["name"], label_of(item), item["workload"]) for item in document["resources"]
                if item["custom"] and label_of(item)]
    assert len(labelled) > 20
    assert [row for row in labelled if row[1] != row[2]] == []
    assert {row[2] for row in labelled} == {"jax-pretrain", "chat-serve", "ml-platform-shared"}


def test_team_namespaces_are_refused_in_the_fleet_form_before_anything_is_created(tmp_path, capsys, monkeypatch):
    from accelfit.cli.main import main

    project = fleet_project(tmp_path, [serving("chat-a", "gcp", "us-central1", "l4")],
                            **{"accelfit:teamNamespaces": ["research"]})
    monkeypatch.chdir(project)
    assert main(["preview", "--stack", "fleet"]) == 2
    err = capsys.readouterr().err
    assert "accelfit:teamNamespaces" in err and "its own namespace" in err and "Traceback" not in err


def test_the_program_exports_the_fleet_and_each_workload(document):
    # The stack outputs `pulumi up` prints: the root stack of the process holds what the program exported last.
    import pulumi

    preview_stack(STACK, ROOT)
    outputs = pulumi.runtime.get_root_resource().outputs
    fleet, workloads = outputs["fleet"], outputs["workloads"]
    assert fleet["name"] == "ml-platform" and fleet["clusters"] == ["ml-platform"]
    assert fleet["monthly_usd"] == document["plan"]["monthly_usd"]
    assert set(workloads) == {"jax-pretrain", "chat-serve"}
    member = next(item for item in document["plan"]["workloads"] if item["name"] == "chat-serve")
    assert workloads["chat-serve"]["option"] == member["plan"]["option"]
    assert workloads["chat-serve"]["cluster"] == "ml-platform"
    assert workloads["chat-serve"]["monthly_usd"] == member["monthly_usd"]
