"""The hybrid example stack (stacks/Pulumi.example-hybrid-onprem-gke.yaml): owned servers first, a GKE overflow
cluster through Kueue MultiKueue. Its recorded objects are driven through the model of MultiKueue's documented
dispatch; placement.overflow.hours_per_month reaches the recorded pool and moves the price in plan and preview
alike; bad hybrid settings are exit 2 naming the file, the field and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from accelfit.cli.main import main
from accelfit.preview.run import preview_stack
from accelfit.pricing.rates import OVERFLOW_HOURS_LABEL
from test_preview_stack import ROOT, with_secrets_set
from tests.components.kubernetes.kueue_model import PodSet, Queue
from tests.components.kubernetes.multikueue_model import ROUND_MINUTES, Manager, Worker
from tests.stackrules.stack_copies import project as copied_project

STACK = "example-hybrid-onprem-gke"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


def document_with(change=None) -> dict:
    """The stack's preview document, with `change(workload)` applied to its spec first."""
    project = with_secrets_set(STACK)
    if change is not None:
        path = project / "stacks" / f"Pulumi.{STACK}.yaml"
        data = yaml.safe_load(path.read_text())
        change(data["config"]["accelfit:workload"])
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    return preview_stack(STACK, project).document


@pytest.fixture(scope="module")
def document() -> dict:
    return document_with()


def rows(document: dict, kind: str) -> list[dict]:
    return [row for row in document["resources"] if row["type"] == KUEUE + kind]


def test_the_stack_builds_the_documented_multikueue_setup(document):
    [config] = rows(document, "MultiKueueConfig")
    assert config["inputs"]["spec"]["clusters"] == ["lab-rack-a", "lab-finetune-overflow"]  # owned first
    [check] = rows(document, "AdmissionCheck")
    assert check["inputs"]["spec"]["controllerName"] == "kueue.x-k8s.io/multikueue"
    clusters = {row["inputs"]["metadata"]["name"]: row["inputs"]["spec"]["clusterSource"]["kubeConfig"]
                for row in rows(document, "MultiKueueCluster")}
    secrets = {row["inputs"]["metadata"]["name"]: row["inputs"] for row in document["resources"]
               if row["type"] == "kubernetes:core/v1:Secret" and row["inputs"].get("type") == "Opaque"}
    for source in clusters.values():
        assert secrets[source["location"]]["metadata"]["namespace"] == "kueue-system"
    # Each worker: the manager's service account, its role and its token Secret.
    tokens = [row for row in document["resources"] if row["type"] == "kubernetes:core/v1:Secret"
              and row["inputs"].get("type") == "kubernetes.io/service-account-token"]
    assert {row["parent"] for row in tokens} == {"lab-finetune-multikueue-owned", "lab-finetune-multikueue-overflow"}
    overflow = document["plan"]["overflow"]
    assert (overflow["owned_worker"], overflow["worker"], overflow["wait_minutes"]) == (
        "lab-rack-a", "lab-finetune-overflow", ROUND_MINUTES)


def test_the_overflow_pool_scales_from_zero_and_carries_its_hours(document):
    pools = [row["inputs"] for row in document["resources"] if row["type"] == "gcp:container/nodePool:NodePool"
             and OVERFLOW_HOURS_LABEL in (row["inputs"]["nodeConfig"].get("labels") or {})]
    assert pools and all(pool["autoscaling"]["totalMinNodeCount"] == 0 and pool["initialNodeCount"] == 0
                         for pool in pools)
    assert {pool["nodeConfig"]["labels"][OVERFLOW_HOURS_LABEL] for pool in pools} == {"120"}


def model(document: dict) -> tuple[Manager, dict[str, Worker]]:
    """The recorded objects as the dispatch model reads them: the manager's (under its component) and each worker's
    Kueue layer (its ClusterQueue and LocalQueues)."""
    manager_parent = "lab-finetune-multikueue"
    [release] = [row["inputs"]["values"] for row in document["resources"]
                 if row["type"] == "kubernetes:helm.sh/v3:Release" and row["parent"] == manager_parent]
    dispatcher = yaml.safe_load(release["managerConfig"]["controllerManagerConfigYaml"])["multiKueue"]
    [queue] = [row["inputs"]["spec"] for row in rows(document, "ClusterQueue") if row["parent"] == manager_parent]
    [config] = rows(document, "MultiKueueConfig")

    def local_queues(parent: str) -> dict[tuple[str, str], str]:
        return {(row["inputs"]["metadata"]["namespace"], row["inputs"]["metadata"]["name"]):
                row["inputs"]["spec"]["clusterQueue"] for row in rows(document, "LocalQueue") if row["parent"] == parent}

    manager = Manager(Queue(queue), local_queues(manager_parent), config["inputs"]["spec"]["clusters"],
                      dispatcher["incrementalDispatcherConfig"]["stepSize"],
                      dispatcher["dispatcherName"] == "kueue.x-k8s.io/multikueue-dispatcher-incremental")
    workers = {}
    for name, layer in (("lab-rack-a", "lab-finetune-k8s-kueue"), ("lab-finetune-overflow",
                                                                 "lab-finetune-overflow-k8s-kueue")):
        queues = {row["inputs"]["metadata"]["name"]: Queue(row["inputs"]["spec"])
                  for row in rows(document, "ClusterQueue") if row["parent"] == layer}
        workers[name] = Worker(name, queues, local_queues(layer))
    return manager, workers


def test_jobs_go_to_the_owned_cluster_first_and_overflow_to_gke_when_its_quota_is_full(document):
    manager, workers = model(document)
    job = PodSet(count=1, requests={"nvidia.com/gpu": 8, "cpu": 16, "memory": "128Gi"})
    placed = [manager.dispatch(f"job-{index}", "lab-finetune", "lab-finetune", job, workers) for index in range(8)]
    # 4 owned servers x 8 GPUs: four jobs start on-prem at once; the next four overflow after one round.
    assert placed == [("lab-rack-a", 0)] * 4 + [("lab-finetune-overflow", ROUND_MINUTES)] * 4
    # Both workers full: the manager's quota (their total) holds no more, so a ninth job is not dispatched.
    assert manager.dispatch("job-8", "lab-finetune", "lab-finetune", job, workers) == (None, 0)


def test_the_overflow_hours_move_the_price_in_plan_and_preview(document):
    def doubled(workload: dict) -> None:
        workload["placement"]["overflow"]["hours_per_month"] = 240

    changed = document_with(doubled)
    before = {line["item"]: line for line in document["plan"]["estimate"]["breakdown"]}
    after = {line["item"]: line for line in changed["plan"]["estimate"]["breakdown"]}
    pool_hourly = before["overflow-compute"]["full_scale_monthly_usd"] / 730
    assert after["overflow-compute"]["monthly_usd"] == pytest.approx(240 * pool_hourly, abs=0.01)
    assert before["overflow-compute"]["monthly_usd"] == pytest.approx(120 * pool_hourly, abs=0.01)
    grown = 120 * pool_hourly
    assert changed["plan"]["estimate"]["monthly_usd"] == pytest.approx(
        document["plan"]["estimate"]["monthly_usd"] + grown, abs=0.05)
    for doc in (document, changed):  # what the plan prices, the preview prices from the recorded pools
        assert doc["cost"]["monthly_usd"] == pytest.approx(doc["plan"]["estimate"]["monthly_usd"], abs=0.05)
        assert doc["cost"]["run_total_usd"] == pytest.approx(doc["plan"]["estimate"]["run_total_usd"], abs=0.05)
    labels = {row["inputs"]["nodeConfig"]["labels"].get(OVERFLOW_HOURS_LABEL) for row in changed["resources"]
              if row["type"] == "gcp:container/nodePool:NodePool"}
    assert "240" in labels


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(copied_project(tmp_path))  # every shipped stack and the policy config
    return tmp_path


@pytest.mark.parametrize(("change", "field", "fix"), [
    (lambda w: w["placement"].update(deployment="any", clouds=["gcp"]), "placement.overflow",
     "set deployment: dedicated or remove overflow"),
    (lambda w: w["placement"]["overflow"].update(region="us-east-1"), "placement.overflow",
     "give a region of gcp or change cloud"),
    (lambda w: w["placement"]["overflow"].update(hours_per_month=800), "placement.overflow.hours_per_month", "730"),
    (lambda w: w["placement"]["overflow"].update(hours_per_month=0), "placement.overflow.hours_per_month", "0"),
    (lambda w: w["placement"]["overflow"].update(cloud="azure"), "placement.overflow.cloud", "gcp"),
    (lambda w: w["placement"]["overflow"].update(spare=1), "placement.overflow.spare", ""),
])
def test_bad_hybrid_settings_are_exit_2_naming_file_field_and_fix(project, capsys, change, field, fix):
    path = project / "stacks" / f"Pulumi.{STACK}.yaml"
    data = yaml.safe_load(path.read_text())
    change(data["config"]["accelfit:workload"])
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    code = main(["plan", "--stack", STACK])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"Pulumi.{STACK}.yaml" in err and field in err and fix in err and "Traceback" not in err


def test_a_missing_manager_kubeconfig_is_exit_2_before_anything_is_created():
    """`pulumi up` reads the program: without accelfit:managerKubeconfig it stops naming the key and the command."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "components" / "baremetal"))
    import metal_stack

    recording, error = metal_stack.record_stack(STACK)
    assert error is not None
    assert any(problem.field == "accelfit:managerKubeconfig" and "pulumi config set --secret" in problem.fix
               for problem in error.problems), error.render()
    assert not [row for row in recording.resources if not row.type.startswith("pulumi:providers:")]


def test_an_eks_overflow_builds_the_cluster_its_manager_reaches_and_prices_as_planned():
    # overflow.cloud aws: an EKS cluster whose GPU node group scales from 0 and carries its hours, a MultiKueue
    # worker the manager reaches at the EKS endpoint (aws.eks.Cluster endpoint), and plan = preview.
    project = with_secrets_set(STACK)
    path = project / "stacks" / f"Pulumi.{STACK}.yaml"
    data = yaml.safe_load(path.read_text())
    for key in ("gcp:project", "gcp:region"):
        data["config"].pop(key, None)
    data["config"]["aws:region"] = "us-east-1"
    data["config"]["accelfit:eksPublicAccessCidrs"] = ["203.0.113.0/24"]
    data["config"]["accelfit:workload"]["placement"]["overflow"].update(cloud="aws", region="us-east-1")
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    document = preview_stack(STACK, project).document
    groups = {row["name"]: row["inputs"] for row in document["resources"] if row["type"] == "aws:eks/nodeGroup:NodeGroup"}
    [gpu] = [inputs for inputs in groups.values() if OVERFLOW_HOURS_LABEL in (inputs.get("labels") or {})]
    assert gpu["labels"][OVERFLOW_HOURS_LABEL] == "120" and gpu["scalingConfig"]["minSize"] == 0
    assert document["plan"]["overflow"]["plan"]["platform"] == "eks-gpu"
    assert {row["inputs"]["metadata"]["name"] for row in rows(document, "MultiKueueCluster")} == {
        "lab-rack-a", "lab-finetune-overflow"}
    [config] = rows(document, "MultiKueueConfig")
    assert config["inputs"]["spec"]["clusters"] == ["lab-rack-a", "lab-finetune-overflow"]  # owned first
    for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd"):
        assert document["cost"][figure] == pytest.approx(document["plan"]["estimate"][figure], abs=0.05), figure


def test_check_asks_for_the_overflow_clouds_project_as_preview_does(project, capsys):
    """The overflow cluster is built in GCP although the workload's plan is owned: `check` says so before `preview`."""
    path = project / "stacks" / f"Pulumi.{STACK}.yaml"
    data = yaml.safe_load(path.read_text())
    del data["config"]["gcp:project"]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    for command in (["check", f"stacks/Pulumi.{STACK}.yaml"], ["preview", "--stack", STACK]):
        code = main(command)
        err = capsys.readouterr().err
        assert code == 2 and "gcp:project" in err and "Traceback" not in err, (command, err)


def test_accelfit_lock_pins_the_overflow_cluster_too_and_the_stack_builds_the_locked_one(capsys, monkeypatch):
    # `accelfit lock` writes the overflow's option beside the owned one; the preview then builds the overflow
    # cluster's pool from the lock (here hand-moved to another H100 machine), says a fresh plan would differ, and
    # prices what it builds; a lock that names no overflow cluster is refused where a lock is required.
    from accelfit.catalog import load_catalog
    from accelfit.planner.lock import LockRequired
    from accelfit.stack_plan import plan_stack_fleet
    from accelfit.stackfile import load_stack

    project = with_secrets_set(STACK)
    path = project / "stacks" / f"Pulumi.{STACK}.yaml"
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", STACK]) == 0
    capsys.readouterr()
    data = yaml.safe_load(path.read_text())
    locked = data["config"]["accelfit:selection"]
    assert locked["overflow"] == "gke-gpu/gcp/us-central1/h100-80gb/a3-highgpu-8g/x4/on-demand"

    path.write_text(path.read_text().replace("a3-highgpu-8g/x4/on-demand", "a3-megagpu-8g/x4/on-demand"))
    document = preview_stack(STACK, project).document
    machines = {row["inputs"]["nodeConfig"]["machineType"] for row in document["resources"]
                if row["type"] == "gcp:container/nodePool:NodePool"
                and OVERFLOW_HOURS_LABEL in row["inputs"]["nodeConfig"]["labels"]}
    assert machines == {"a3-megagpu-8g"}
    assert any(reason.startswith("Overflow lock: built the locked selection; a fresh plan would choose "
                                 "gke-gpu/gcp/us-central1/h100-80gb/a3-highgpu-8g") for reason in document["plan"]["reasons"])
    assert document["cost"]["monthly_usd"] == pytest.approx(document["plan"]["estimate"]["monthly_usd"], abs=0.05)

    del data["config"]["accelfit:selection"]["overflow"]  # a lock written before overflows were locked
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(LockRequired, match="the overflow cluster: no selection is locked"):
        plan_stack_fleet(load_stack(STACK, project), load_catalog(), require_lock=True)
    assert main(["lock", "--stack", STACK]) == 0  # not kept: the lock gains the overflow
    assert "locked baremetal-gpu" in capsys.readouterr().out
    assert yaml.safe_load(path.read_text())["config"]["accelfit:selection"]["overflow"].startswith("gke-gpu/")


def test_a_locked_overflow_that_is_no_option_id_is_exit_2(capsys, monkeypatch):
    project = with_secrets_set(STACK)
    path = project / "stacks" / f"Pulumi.{STACK}.yaml"
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", STACK]) == 0
    path.write_text(path.read_text().replace('overflow: "gke-gpu/', 'overflow: "gke-gpu-'))
    capsys.readouterr()
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "accelfit:selection.overflow" in err and "not an option id" in err and "Traceback" not in err


def test_the_fleet_form_of_a_hybrid_stack_builds_the_same_overflow(document):
    # The same workload as a fleet of one (accelfit:workloads): the MultiKueue objects and the price are the single
    # form's, and the fleet's figures are the preview's.
    project = with_secrets_set(STACK)
    path = project / "stacks" / f"Pulumi.{STACK}.yaml"
    data = yaml.safe_load(path.read_text())
    data["config"]["accelfit:workloads"] = [data["config"].pop("accelfit:workload")]
    data["config"].pop("accelfit:selection", None)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    fleet = preview_stack(STACK, project).document
    assert fleet["form"] == "fleet"
    for kind in ("MultiKueueCluster", "MultiKueueConfig", "AdmissionCheck"):
        assert len(rows(fleet, kind)) == len(rows(document, kind)) >= 1, kind
    assert fleet["cost"]["monthly_usd"] == pytest.approx(document["cost"]["monthly_usd"], abs=0.05)
    assert fleet["cost"]["monthly_usd"] == pytest.approx(fleet["plan"]["monthly_usd"], abs=0.05)
