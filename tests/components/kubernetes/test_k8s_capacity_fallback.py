"""What Kueue would do with the rendered objects, by a model of its documented flavor assignment (kueue_model):
multislice jobs are admissible, a job moves down the chain when the steps before are full, and a job whose pods do
not get nodes is evicted after the timeout the plan prints and assigned again from the first step with room."""

from __future__ import annotations

import yaml

from accelfit.planner.build import SLICE_SET_LABEL
from accelfit.planner.fleet.fallback_triggers import (
    PODS_READY_TIMEOUT_MINUTES,
    PODS_RECOVERY_TIMEOUT_MINUTES,
    REQUEUE_BACKOFF_BASE_SECONDS,
    REQUEUE_BACKOFF_MAX_SECONDS,
    TRIGGER_TEXT,
)
from components.kubernetes.charts import pin
from components.kubernetes.kueue_config import kueue_values, manager_configuration
from components.kubernetes.queues import (
    GKE_TPU_ACCELERATOR_LABEL,
    GKE_TPU_TOPOLOGY_LABEL,
    NodeCapacity,
    cluster_queue_spec,
    flavor_plans,
    resource_flavor_spec,
)
from tests.components.kubernetes.kueue_model import PodSet, Queue
from tests.components.kubernetes.test_k8s_queues import make_plan, make_pool

SLICE = dict(gke_accelerator="tpu-v6e-slice", tpu_topology="4x4", max_nodes=4, accelerators_per_node=4)


def slice_pool(name: str, slice_set: str | None, **fields):
    pool = make_pool(name, "tpu", **fields).model_copy(update=SLICE)
    if slice_set is None:
        return pool
    return pool.model_copy(update={"labels": {**pool.labels, SLICE_SET_LABEL: slice_set}})


def capacities(plan):
    return {pool.name: NodeCapacity(accelerators=pool.accelerators_per_node * pool.max_nodes,
                                    cpus=100 * pool.max_nodes, memory_gib=400 * pool.max_nodes)
            for pool in plan.node_pools}


def multislice_jobset(slices: int) -> PodSet:
    """xpk's multislice JobSet: one replicated job, a replica per slice, a pod per host of the slice, each pod
    asking for its host's chips (AI-Hypercomputer/xpk src/xpk/commands/workload.py @367c838): one pod set."""
    return PodSet(count=slices * SLICE["max_nodes"],
                  requests={"google.com/tpu": SLICE["accelerators_per_node"], "cpu": 8, "memory": "32Gi"})


def test_a_multislice_jobset_is_admissible_to_one_flavor_holding_all_slices():
    plan = make_plan("tpu", slice_pool("tpu-0", "tpu"), slice_pool("tpu-1", "tpu"))
    flavors = flavor_plans(plan, capacities(plan))
    assert [flavor.slice_pools for flavor in flavors] == [("tpu-0", "tpu-1")]
    queue = Queue(cluster_queue_spec("w", flavors))
    assert queue.assign(multislice_jobset(2)) == "w-tpu-0"
    # As xpk: the flavor selects on accelerator + topology (and the slice set), not on one pool's name.
    labels = resource_flavor_spec(flavors[0], {})["nodeLabels"]
    assert labels[GKE_TPU_ACCELERATOR_LABEL] == "tpu-v6e-slice" and labels[GKE_TPU_TOPOLOGY_LABEL] == "4x4"
    assert labels[SLICE_SET_LABEL] == "tpu" and "cloud.google.com/gke-nodepool" not in labels


def test_a_flavor_per_slice_pool_would_never_admit_the_multislice_job():
    """The breach the merge fixes: one slice's quota per flavor, and Kueue gives a pod set one flavor."""
    plan = make_plan("tpu", slice_pool("tpu-0", None), slice_pool("tpu-1", None))
    queue = Queue(cluster_queue_spec("w", flavor_plans(plan, capacities(plan))))
    assert queue.assign(multislice_jobset(2)) is None
    assert queue.assign(multislice_jobset(1)) == "w-tpu-0"


def test_a_standby_slice_set_stays_a_flavor_of_its_own_after_the_planned_set():
    plan = make_plan("tpu", slice_pool("tpu-0", "tpu"), slice_pool("tpu-1", "tpu"),
                     slice_pool("tpu-0-fb2", "tpu-fb2", spot=True, fallback_rank=2),
                     slice_pool("tpu-1-fb2", "tpu-fb2", spot=True, fallback_rank=2))
    flavors = flavor_plans(plan, capacities(plan))
    assert [flavor.name for flavor in flavors] == ["w-tpu-0", "w-tpu-0-fb2"]
    queue = Queue(cluster_queue_spec("w", flavors))
    assert queue.admit(multislice_jobset(2)) == "w-tpu-0"
    assert queue.admit(multislice_jobset(2)) == "w-tpu-0-fb2"  # quota-full: the planned set is held
    assert queue.admit(multislice_jobset(2)) is None  # both held: the job waits


def chain_queue():
    """A chain whose second step is another accelerator (its own Kueue flavor, moved to on quota); steps of the same
    accelerator on other tiers are one flavor instead (test_k8s_capacity_groups)."""
    plan = make_plan("gpu", make_pool("gpu", "gpu"),
                     make_pool("gpu-fb2", "gpu", spot=True, fallback_rank=2, ).model_copy(
                         update={"machine_type": "m2", "accelerator": "y"}))
    return Queue(cluster_queue_spec("w", flavor_plans(plan, capacities(plan))))


JOB = PodSet(count=2, requests={"nvidia.com/gpu": 4, "cpu": 8, "memory": "32Gi"})


def test_a_job_goes_to_the_next_step_when_the_steps_before_have_their_quota_held():
    queue = chain_queue()
    assert queue.admit(JOB) == "w-gpu"
    assert queue.admit(JOB) == "w-gpu-fb2"
    assert "quota held" in TRIGGER_TEXT["quota-full"]


def test_a_job_evicted_for_pods_not_ready_is_assigned_again_from_the_first_step_with_room():
    """Kueue's documented behaviour, and what the plan's 'pods-not-ready' says: eviction frees the step's quota,
    so the requeued job gets the first flavor with room again, unless another job took it meanwhile."""
    queue = chain_queue()
    flavor = queue.admit(JOB)
    queue.evict(flavor, JOB)  # pods not ready after the timeout
    assert queue.admit(JOB) == "w-gpu"
    assert "assigned again from the first step with room" in TRIGGER_TEXT["pods-not-ready"]
    queue.evict("w-gpu", JOB)
    assert queue.admit(PodSet(count=2, requests={"nvidia.com/gpu": 4})) == "w-gpu"  # another job took it
    assert queue.admit(JOB) == "w-gpu-fb2"


def test_the_kueue_configuration_carries_the_numbers_the_plan_prints():
    config = yaml.safe_load(kueue_values(pin("kueue"))["managerConfig"]["controllerManagerConfigYaml"])
    ready = config["waitForPodsReady"]
    assert ready["timeout"] == f"{PODS_READY_TIMEOUT_MINUTES}m"
    assert ready["recoveryTimeout"] == f"{PODS_RECOVERY_TIMEOUT_MINUTES}m"
    assert ready["requeuingStrategy"] == {"timestamp": "Eviction", "backoffBaseSeconds": REQUEUE_BACKOFF_BASE_SECONDS,
                                          "backoffMaxSeconds": REQUEUE_BACKOFF_MAX_SECONDS}
    assert str(PODS_READY_TIMEOUT_MINUTES) in TRIGGER_TEXT["pods-not-ready"]


def test_the_configuration_keeps_the_charts_own_settings():
    """Helm replaces the whole configuration string, so everything else must be the chart's default."""
    config = manager_configuration(pin("kueue"))
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2" and config["kind"] == "Configuration"
    assert "jobset.x-k8s.io/jobset" in config["integrations"]["frameworks"]
    assert config["leaderElection"]["leaderElect"] is True


def test_wait_for_pods_ready_fields_are_kueues():
    """Field names as Kueue's v1beta2 Configuration API spells them (apis/config/v1beta2/configuration_types.go
    WaitForPodsReady: timeout, blockAdmission, requeuingStrategy, recoveryTimeout; RequeuingStrategy: timestamp,
    backoffLimitCount, backoffBaseSeconds, backoffMaxSeconds at v0.19.2)."""
    ready = manager_configuration(pin("kueue"))["waitForPodsReady"]
    assert set(ready) <= {"timeout", "blockAdmission", "requeuingStrategy", "recoveryTimeout"}
    assert set(ready["requeuingStrategy"]) <= {"timestamp", "backoffLimitCount", "backoffBaseSeconds",
                                               "backoffMaxSeconds"}
    assert ready["requeuingStrategy"]["timestamp"] in ("Eviction", "Creation")


# ---- queued provisioning wired end to end: node pool, check, config, queue -----------------------------------------

def flex_start_h100_plan():
    from tests.components.gcp import gcp_plans

    plan = gcp_plans.gke_h100_training()
    # As the planner builds a flex-start pool: empty at start, and no compact placement on a queued GPU pool
    # (accelfit/clouds/data/flex_start.yaml compact_placement).
    pools = tuple(pool.model_copy(update={"buying": "flex-start", "initial_nodes": 0, "min_nodes": 0,
                                          "compact_placement": False})
                  if pool.role == "gpu" else pool for pool in plan.node_pools)
    return plan.model_copy(update={"node_pools": pools, "pricing": "flex-start"}), gcp_plans


def test_a_flex_start_training_plan_gets_a_queued_pool_its_check_and_the_queues_check():
    from accelfit.preview.recorder import record
    from components.build import build

    plan, gcp_plans = flex_start_h100_plan()
    recording = record(lambda: build(plan, gcp_plans.ownership(plan)), config={"gcp:project": gcp_plans.PROJECT})
    [pool] = [item for item in recording.of_type("gcp:container/nodePool:NodePool")
              if item.inputs.get("queuedProvisioning")]
    assert pool.inputs["queuedProvisioning"] == {"enabled": True}
    assert pool.inputs["nodeConfig"]["flexStart"] is True
    check = recording.named(f"{plan.workload}-k8s-kueue-accelfit-queued-provisioning")
    config = recording.named(f"{plan.workload}-k8s-kueue-accelfit-queued-provisioning-config")
    assert check.inputs["kind"] == "AdmissionCheck" and config.inputs["kind"] == "ProvisioningRequestConfig"
    assert check.inputs["spec"]["parameters"]["name"] == config.inputs["metadata"]["name"]
    assert config.inputs["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"
    queue = recording.named(f"{plan.workload}-k8s-kueue-cluster-queue").inputs["spec"]
    assert queue["admissionChecksStrategy"]["admissionChecks"] == [
        {"name": check.inputs["metadata"]["name"], "onFlavors": [f"{plan.workload}-gpu"]}]


def test_a_job_on_a_queued_step_holds_its_quota_while_it_waits_so_the_next_job_moves_down():
    """Kueue reserves quota before running the admission check (admission_check/_index.md), so a job waiting for
    its ProvisioningRequest holds the queued flavor's quota: the next job gets the next step (quota-full)."""
    plan = make_plan("gpu", make_pool("gpu", "gpu", flex_start=True),
                     make_pool("gpu-fb2", "gpu", spot=True, fallback_rank=2))
    flavors = flavor_plans(plan, capacities(plan))
    assert [flavor.provisioning_class for flavor in flavors] == ["queued-provisioning.gke.io", None]
    queue = Queue(cluster_queue_spec("w", flavors))
    assert queue.admit(JOB) == "w-gpu"  # quota reserved, ProvisioningRequest pending
    assert queue.admit(JOB) == "w-gpu-fb2"
    assert "waiting for their nodes" in TRIGGER_TEXT["quota-full"]
