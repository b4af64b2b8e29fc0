"""MultiKueue for a hybrid workload: the manager's objects as recorded under mocks, validated against the pinned Kueue
CRDs (CEL included), and driven through a model of MultiKueue's documented dispatch (multikueue_model): a job goes to
the first worker, in the MultiKueueConfig's order, whose ClusterQueue has quota; the owned cluster first, the cloud
overflow when the owned quota is full."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from accelfit.catalog import load_catalog
from accelfit.errors import InputError
from accelfit.preview.recorder import record
from components.fleet import own_cluster
from components.kubernetes.build import plan_layer
from components.kubernetes.multikueue import (
    ManagerWorker,
    MultiKueueManager,
    MultiKueueManagerArgs,
    MultiKueueWorkerAccess,
    WorkerAccessArgs,
    worker_access,
)
from accelfit.planner.fleet.overflow import DISPATCH_ROUND_MINUTES
from components.kubernetes.multikueue_objects import (
    INCREMENTAL_DISPATCHER,
    MULTIKUEUE_CONTROLLER,
    WorkerQuota,
    kubeconfig_text,
    worker_quotas,
)
from tests.components.kubernetes.kueue_model import PodSet, Queue
from tests.components.kubernetes.multikueue_model import ROUND_MINUTES, Manager, Worker

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parent / "gcp"), str(HERE.parent / "baremetal"), str(HERE.parents[1] / "checks")]
import gcp_plans  # noqa: E402
import metal_stack  # noqa: E402
from k8s_schemas import document_report  # noqa: E402

WORKLOAD = "lab-finetune"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"


def worker_layers():
    """The two workers' own Kueue layers as the stacks render them: two owned HGX H100 servers (16 GPUs) and a GKE
    cluster of 4 x a3-highgpu-8g (32 H100), both for the same workload (same queue name and namespace)."""
    catalog = load_catalog()
    inventory = metal_stack.make_inventory(2)
    owned = metal_stack.plan_for(inventory, WORKLOAD)
    cloud = gcp_plans.gke_h100_training().model_copy(update={"workload": WORKLOAD})
    owned_layer = plan_layer(own_cluster(owned, metal_stack.ownership(owned)), catalog, inventory)
    cloud_layer = plan_layer(own_cluster(cloud, gcp_plans.ownership(cloud)), catalog)
    return owned_layer, cloud_layer


@pytest.fixture(scope="module")
def layers():
    return worker_layers()


def quotas_of(layers) -> list[WorkerQuota]:
    owned_layer, cloud_layer = layers
    return [WorkerQuota("lab-rack-a", "owned", worker_quotas(owned_layer.queues[0].spec())),
            WorkerQuota("gke-us-central1", "overflow", worker_quotas(cloud_layer.queues[0].spec()))]


def record_manager(workers: list[WorkerQuota], namespaces=(WORKLOAD,)):
    import pulumi_kubernetes as k8s

    caught: list[InputError] = []

    def program() -> None:
        provider = k8s.Provider("manager", kubeconfig="mock")
        try:
            MultiKueueManager("hybrid", MultiKueueManagerArgs(
                queue=WORKLOAD, namespaces=tuple(namespaces), provider=provider,
                workers=tuple(ManagerWorker(quota, f"kubeconfig of {quota.name}") for quota in workers),
                labels={"accelfit.io/workload": WORKLOAD}))
        except InputError as error:
            caught.append(error)

    return record(program), (caught[0] if caught else None)


def rows(recording) -> list[dict]:
    return [{"type": item.type, "name": item.name, "urn": item.urn, "inputs": item.inputs}
            for item in recording.resources]


def one(recording, kind: str) -> dict:
    [found] = [item.inputs for item in recording.resources if item.type == f"{KUEUE}:{kind}"]
    return found


@pytest.fixture(scope="module")
def manager(layers):
    recording, error = record_manager(quotas_of(layers))
    assert error is None
    return recording


def test_the_manager_objects_are_the_documented_setup(manager, layers):
    config = one(manager, "MultiKueueConfig")
    assert config["spec"] == {"clusters": ["lab-rack-a", "gke-us-central1"]}  # owned first
    check = one(manager, "AdmissionCheck")
    assert check["spec"]["controllerName"] == MULTIKUEUE_CONTROLLER
    assert check["spec"]["parameters"] == {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig",
                                           "name": config["metadata"]["name"]}
    queue = one(manager, "ClusterQueue")
    assert queue["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": check["metadata"]["name"]}]}
    clusters = [item.inputs for item in manager.resources if item.type == f"{KUEUE}:MultiKueueCluster"]
    secrets = {item.inputs["metadata"]["name"]: item.inputs for item in manager.resources
               if item.type == "kubernetes:core/v1:Secret"}
    for cluster in clusters:
        source = cluster["spec"]["clusterSource"]["kubeConfig"]
        assert source["locationType"] == "Secret"
        secret = secrets[source["location"]]
        assert secret["metadata"]["namespace"] == "kueue-system"  # where the Kueue controller reads it
        assert secret["stringData"] == "[secret]"  # the kubeconfig (key `kubeconfig`) never in plain text
        assert secret["type"] == "Opaque"
    # The manager's quota is the workers' total: 16 owned + 32 cloud GPUs.
    [group] = queue["spec"]["resourceGroups"]
    gpus = {item["name"]: item["nominalQuota"] for item in group["flavors"][0]["resources"]}["nvidia.com/gpu"]
    assert gpus == "48"


def test_the_manager_dispatches_one_worker_at_a_time_in_the_configs_order(manager):
    [release] = [item.inputs for item in manager.resources if item.type == "kubernetes:helm.sh/v3:Release"]
    configuration = yaml.safe_load(release["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert configuration["multiKueue"] == {"dispatcherName": INCREMENTAL_DISPATCHER,
                                           "incrementalDispatcherConfig": {"stepSize": 1}}
    assert configuration["integrations"]["frameworks"]  # the chart's own settings kept
    assert DISPATCH_ROUND_MINUTES == ROUND_MINUTES


def test_every_manager_object_validates_against_the_pinned_crds(manager):
    report = document_report(rows(manager), ["1.35"])
    assert report.problems == [], report.problems
    kinds = {row["inputs"].get("kind") for row in rows(manager)}
    assert {"MultiKueueCluster", "MultiKueueConfig", "AdmissionCheck", "ClusterQueue", "LocalQueue",
            "ResourceFlavor"} <= kinds
    assert report.validated >= 9


def test_the_crds_catch_a_breach_cel_included(manager):
    config = next(row for row in rows(manager) if row["inputs"].get("kind") == "MultiKueueConfig")
    twice = {**config, "inputs": {**config["inputs"], "spec": {"clusters": ["lab-rack-a", "lab-rack-a"]}}}
    assert any("must be unique" in text for text in document_report([twice], ["1.35"]).problems)
    cluster = next(row for row in rows(manager) if row["inputs"].get("kind") == "MultiKueueCluster")
    neither = {**cluster, "inputs": {**cluster["inputs"], "spec": {"clusterSource": {}}}}
    assert any("exactly one of the fields" in text for text in document_report([neither], ["1.35"]).problems)


def model_of(manager, layers) -> tuple[Manager, dict[str, Worker]]:
    configuration = yaml.safe_load(next(item.inputs for item in manager.resources if item.type ==
                                        "kubernetes:helm.sh/v3:Release")["values"]["managerConfig"][
                                            "controllerManagerConfigYaml"])["multiKueue"]
    locals_ = {(item.inputs["metadata"]["namespace"], item.inputs["metadata"]["name"]): item.inputs["spec"][
        "clusterQueue"] for item in manager.resources if item.type == f"{KUEUE}:LocalQueue"}
    model = Manager(queue=Queue(one(manager, "ClusterQueue")["spec"]), local_queues=locals_,
                    clusters=one(manager, "MultiKueueConfig")["spec"]["clusters"],
                    step_size=configuration["incrementalDispatcherConfig"]["stepSize"],
                    incremental=configuration["dispatcherName"] == INCREMENTAL_DISPATCHER)
    workers = {}
    for name, layer in zip(model.clusters, layers, strict=True):
        [queue] = layer.queues
        workers[name] = Worker(name, {queue.name: Queue(queue.spec())},
                               {(space, queue.name): queue.name for space in queue.namespaces})
    return model, workers


def eight_gpu_job() -> PodSet:
    return PodSet(count=1, requests={"nvidia.com/gpu": 8, "cpu": 32, "memory": "256Gi"})


def test_jobs_fill_the_owned_cluster_first_then_overflow_to_the_cloud(manager, layers):
    model, workers = model_of(manager, layers)
    placed = [model.dispatch(f"job-{index}", WORKLOAD, WORKLOAD, eight_gpu_job(), workers) for index in range(6)]
    # 16 owned GPUs: two 8-GPU jobs start there at once; the next ones wait one round, then go to the cloud.
    assert placed == [("lab-rack-a", 0), ("lab-rack-a", 0), ("gke-us-central1", ROUND_MINUTES),
                      ("gke-us-central1", ROUND_MINUTES), ("gke-us-central1", ROUND_MINUTES),
                      ("gke-us-central1", ROUND_MINUTES)]
    # 48 GPUs in all: the manager holds no quota for a seventh, so nothing more is dispatched.
    assert model.dispatch("job-6", WORKLOAD, WORKLOAD, eight_gpu_job(), workers) == (None, 0)


def test_with_the_all_at_once_dispatcher_a_job_could_start_in_the_cloud_while_owned_servers_idle(manager, layers):
    """Why the manager is configured Incremental: all at once, both workers race for every job (the model takes the
    config's order, the best case); the point is the configuration, asserted above, not luck."""
    model, workers = model_of(manager, layers)
    model.incremental = False
    assert model.dispatch("job-0", WORKLOAD, WORKLOAD, eight_gpu_job(), workers) == ("lab-rack-a", 0)


def test_a_worker_without_the_jobs_local_queue_never_admits_it(manager, layers):
    model, workers = model_of(manager, layers)
    workers["lab-rack-a"].local_queues = {}  # the namespace/LocalQueue not mirrored on the owned cluster
    assert model.dispatch("job-0", WORKLOAD, WORKLOAD, eight_gpu_job(), workers) == ("gke-us-central1",
                                                                                     ROUND_MINUTES)


def test_more_owned_servers_keep_more_jobs_at_home(layers):
    """The rendered quota drives dispatch: with 4 owned servers (32 GPUs) four jobs stay on-prem, not two."""
    catalog = load_catalog()
    inventory = metal_stack.make_inventory(4)
    owned = metal_stack.plan_for(inventory, WORKLOAD)
    bigger = (plan_layer(own_cluster(owned, metal_stack.ownership(owned)), catalog, inventory), layers[1])
    recording, error = record_manager(quotas_of(bigger))
    assert error is None
    model, workers = model_of(recording, bigger)
    placed = [model.dispatch(f"job-{index}", WORKLOAD, WORKLOAD, eight_gpu_job(), workers)[0] for index in range(5)]
    assert placed == ["lab-rack-a"] * 4 + ["gke-us-central1"]


@pytest.mark.parametrize(("workers", "field", "words"), [
    ([WorkerQuota("gke", "overflow", {"nvidia.com/gpu": "8"}), WorkerQuota("lab", "owned", {"nvidia.com/gpu": "8"})],
     "workers[0].role", "list the owned cluster first"),
    ([WorkerQuota("lab", "owned", {"nvidia.com/gpu": "8"}), WorkerQuota("lab", "overflow", {"nvidia.com/gpu": "8"})],
     "workers", "name each worker cluster once"),
    ([WorkerQuota("Lab_A", "owned", {"nvidia.com/gpu": "8"})], "workers[0].name", "lower-case letters"),
    ([WorkerQuota("lab", "owned", {"nvidia.com/gpu": "0"})], "workers[0].quotas", "give the worker's ClusterQueue"),
    ([], "workers", "list the owned cluster, then the cloud"),
])
def test_bad_workers_are_refused_before_anything_is_created(workers, field, words):
    recording, error = record_manager(workers)
    assert error is not None
    assert [item.type for item in recording.resources] == ["pulumi:providers:kubernetes"]  # the test's own provider
    assert any(item.field == field and words in item.fix for item in error.problems), error.render()


def test_worker_access_is_the_documented_service_account_and_role():
    import pulumi_kubernetes as k8s

    made: dict = {}

    def program() -> None:
        access = MultiKueueWorkerAccess("onprem-mk", WorkerAccessArgs(
            cluster="lab-rack-a", server="https://10.20.0.5:6443", provider=k8s.Provider("worker", kubeconfig="m")))
        made["access"] = access

    recording = record(program)
    rules = {(tuple(rule["apiGroups"]), tuple(rule["resources"])) for rule in worker_access()["rules"]}
    [role] = [item.inputs for item in recording.resources if item.type == "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"]
    assert {(tuple(rule["apiGroups"]), tuple(rule["resources"])) for rule in role["rules"]} == rules
    assert (("kueue.x-k8s.io",), ("workloads",)) in rules and (("batch",), ("jobs",)) in rules
    [token] = [item.inputs for item in recording.resources if item.type == "kubernetes:core/v1:Secret"]
    assert token["type"] == "kubernetes.io/service-account-token"
    assert token["metadata"]["annotations"] == {"kubernetes.io/service-account.name": "multikueue-sa"}
    # The token Secret waits for its service account (a token Secret without one breaks the provider:
    # pulumi/pulumi-kubernetes#4396).
    [account] = [item for item in recording.resources if item.type == "kubernetes:core/v1:ServiceAccount"]
    [secret] = [item for item in recording.resources if item.type == "kubernetes:core/v1:Secret"]
    assert account.urn in secret.dependencies


def test_the_kubeconfig_carries_a_token_not_an_exec_plugin():
    config = yaml.safe_load(kubeconfig_text("lab-rack-a", "https://10.20.0.5:6443", "Q0E=", "tok"))
    assert config["users"][0]["user"] == {"token": "tok"}
    assert config["clusters"][0]["cluster"] == {"certificate-authority-data": "Q0E=", "server": "https://10.20.0.5:6443"}
    assert config["current-context"] == "lab-rack-a"
