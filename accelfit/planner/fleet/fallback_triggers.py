"""What moves a job from one step of its fallback chain to the next, and how long it waits first: the one source of
the numbers the plan prints and the Kueue objects carry (components.kubernetes.kueue_config renders them).

How Kueue picks a step (kubernetes-sigs/kueue v0.19.2 @8eab68778fc1b52affe165fdf5af29d1e9b4f3cb):
- site/content/en/docs/concepts/cluster_queue.md, "Flavors and borrowing semantics": Kueue goes through the
  ClusterQueue's flavors in order and admits a job's pod set into the first whose unused quota fits it; with
  flavorFungibility TryNextFlavor it also passes over a flavor it could only get by borrowing or preempting.
  A step is therefore taken when every step before it has its quota held by admitted jobs: quota, not capacity.
- site/content/en/docs/tasks/manage/setup_wait_for_pods_ready.md: with waitForPodsReady, a job admitted whose pods
  are not all ready within `timeout` is evicted and requeued, after a backoff of backoffBaseSeconds doubling up to
  backoffMaxSeconds; `recoveryTimeout` does the same for a running job that loses a pod (a reclaimed Spot VM).
  The requeued job is assigned again from the first flavor with room (pkg/scheduler/scheduler.go: the flavor scan
  progress is dropped when the queue's usage changes, which an eviction does), so missing capacity frees the
  pool's quota and nodes for the next attempt rather than sending the job down the chain by itself.
- site/content/en/docs/concepts/admission_check/_index.md and provisioning_request.md: a flavor with a
  ProvisioningRequest admission check (GKE queued provisioning, accelfit.planner.fleet.provisioning) reserves the job's
  quota, then admits it only when the cloud has provisioned all its nodes; while it waits, that quota is held, so
  the next job goes down the chain ("quota-full"). A failed request releases the quota and is retried
  (retryStrategy below), and after the last retry Kueue deactivates the job.

Steps of the same accelerator on other capacity tiers (accelfit.planner.fleet.capacity_groups) are one Kueue flavor over
their pools, and the cloud's autoscaler moves a job between them when a pool gets no capacity ("no-capacity"):
- GKE ComputeClass priorities: when GKE cannot create nodes for a priority (a stockout or quota error) it tries the
  next at once (https://cloud.google.com/kubernetes-engine/docs/troubleshooting/troubleshoot-custom-compute-classes);
- Cluster Autoscaler priority expander (EKS): a scale-up that fails is backed off and the next node group is tried;
  nodes that never register are given up after --max-node-provision-time, 15 min by default (kubernetes/autoscaler
  cluster-autoscaler/FAQ.md "How does scale-up work?" and its parameters table). 15 min is therefore the longest a
  job waits on a step of its group before the autoscaler tries the next.
"""

from __future__ import annotations

from typing import Literal

# Kueue's documented default (setup_wait_for_pods_ready.md: "timeout ... defaulting to 30 minutes"); long enough for
# GKE/EKS to add accelerator nodes and pull a training image, short enough that a job does not hold quota on
# capacity that is not coming.
PODS_READY_TIMEOUT_MINUTES = 30
# A running job that lost a pod (Spot VM reclaimed, node failure) gets this long for a replacement pod.
PODS_RECOVERY_TIMEOUT_MINUTES = 30
# Requeue backoff after an eviction for PodsReadyTimeout: Kueue's defaults (60 s doubling, at most 3600 s); no limit
# on the count, so a job is never deactivated for waiting on capacity (backoffLimitCount: null = endless requeue).
REQUEUE_BACKOFF_BASE_SECONDS = 60
REQUEUE_BACKOFF_MAX_SECONDS = 3600
# ProvisioningRequest retries (queued provisioning): the defaults of ProvisioningRequestConfig.retryStrategy
# (apis/kueue/v1beta2/provisioningrequestconfig_types.go: backoffLimitCount 3, backoffBaseSeconds 60,
# backoffMaxSeconds 1800), stated here so plan and objects say the same.
PROVISIONING_RETRY_LIMIT = 3
PROVISIONING_BACKOFF_BASE_SECONDS = 60
PROVISIONING_BACKOFF_MAX_SECONDS = 1800

# Cluster Autoscaler --max-node-provision-time default (FAQ.md parameters table: 15m0s): the bound on a group step's
# wait, on GKE too (GKE runs the Cluster Autoscaler; a refused node moves on at once, a node that never registers at
# this timeout).
NODE_PROVISION_TIMEOUT_MINUTES = 15
# Backoff of a node group whose scale-up failed (FAQ.md: initial-node-group-backoff-duration 5m0s, doubling to
# max-node-group-backoff-duration 30m0s): how long a pool that had no capacity is skipped before it is tried again.
NODE_GROUP_BACKOFF_MINUTES = 5
NODE_GROUP_BACKOFF_MAX_MINUTES = 30

Trigger = Literal["no-capacity", "quota-full", "pods-not-ready", "preempted"]
TRIGGER_TEXT = {
    "no-capacity": ("the cloud had no capacity for the step before it (same accelerator, other tier): the autoscaler "
                    "tries this pool next (GKE ComputeClass priorities / Cluster Autoscaler priority expander), at "
                    f"once on a stockout, after {NODE_PROVISION_TIMEOUT_MINUTES} min for nodes that never register; "
                    f"the failed pool is skipped for {NODE_GROUP_BACKOFF_MINUTES}-{NODE_GROUP_BACKOFF_MAX_MINUTES} "
                    "min"),
    "quota-full": ("every step before it has its quota held by admitted jobs (or, on a queued-provisioning step, "
                   "by jobs waiting for their nodes)"),
    "pods-not-ready": (f"a job admitted to a step before it has not all pods ready after {PODS_READY_TIMEOUT_MINUTES} "
                       "min: evicted and requeued, then assigned again from the first step with room"),
    "preempted": "a job on a spot step lost a pod: evicted after the recovery timeout and requeued",
}


def step_triggers(rank: int, spot_before: bool, grouped: bool = False) -> tuple[Trigger, ...]:
    """What sends a job to the step at `rank` (1 = the planned pool: none). `spot_before`: a step before it runs on
    spot capacity. `grouped`: the step is in the planned step's capacity group (one Kueue flavor, the autoscaler
    chooses the pool), so missing capacity moves a job there; quota does not (the flavor's quota is the group's)."""
    if rank <= 1:
        return ()
    if grouped:
        return ("no-capacity", "preempted") if spot_before else ("no-capacity",)
    triggers: list[Trigger] = ["quota-full", "pods-not-ready"]
    if spot_before:
        triggers.append("preempted")
    return tuple(triggers)


def step_wait_minutes(rank: int, grouped: bool = False) -> int | None:
    """The longest a job waits on an earlier step for capacity: for a grouped step the autoscaler's node
    provisioning timeout, else until Kueue evicts it and requeues it (the step it is then assigned follows quota, as
    above); None for the planned step."""
    if rank <= 1:
        return None
    return NODE_PROVISION_TIMEOUT_MINUTES if grouped else PODS_READY_TIMEOUT_MINUTES


def describe(triggers: tuple[str, ...]) -> str:
    return "; ".join(TRIGGER_TEXT[trigger] for trigger in triggers)
