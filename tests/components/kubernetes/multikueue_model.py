"""A small model of MultiKueue's documented dispatch, driven by the rendered objects (the manager's ClusterQueue,
MultiKueueConfig, LocalQueues and Kueue Configuration, and each worker's ClusterQueue and LocalQueues), not by the
planner's intentions.

kubernetes-sigs/kueue v0.19.2 @8eab68778fc1b52affe165fdf5af29d1e9b4f3cb site/content/en/docs/concepts/multikueue.md:
- "Job Flow": a job is dispatched only after its Workload gets a QuotaReservation in the manager's ClusterQueue;
  the dispatcher then copies it to the nominated workers; the first worker that admits it keeps it (the manager
  deletes the other copies).
- "Incremental": clusters are nominated in the order of MultiKueueConfig.spec.clusters, `stepSize` at a time; a round
  that admits nothing for 5 minutes nominates the next batch.
- A worker "acts like a standalone Kueue cluster": it admits by its own ClusterQueue's quota (kueue_model.Queue);
  setup_multikueue.md: the job's namespace and LocalQueue must exist on the worker too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tests.components.kubernetes.kueue_model import PodSet, Queue

ROUND_MINUTES = 5  # the Incremental dispatcher's fixed round


@dataclass
class Worker:
    name: str
    queues: Mapping[str, Queue]  # ClusterQueue name -> its model
    local_queues: Mapping[tuple[str, str], str]  # (namespace, LocalQueue) -> ClusterQueue name

    def admit(self, namespace: str, local_queue: str, pod_set: PodSet) -> str | None:
        """The flavor the worker admits the job into, or None (no such LocalQueue here, or no quota now)."""
        cluster_queue = self.local_queues.get((namespace, local_queue))
        return None if cluster_queue is None else self.queues[cluster_queue].admit(pod_set)


@dataclass
class Manager:
    queue: Queue  # the dispatching ClusterQueue
    local_queues: Mapping[tuple[str, str], str]
    clusters: Sequence[str]  # MultiKueueConfig spec.clusters, in order
    step_size: int
    incremental: bool
    log: list[tuple[str, str, int]] = field(default_factory=list)  # (job, worker, minutes waited)

    def dispatch(self, job: str, namespace: str, local_queue: str, pod_set: PodSet, workers: Mapping[str, Worker],
                 *, patience_rounds: int = 10) -> tuple[str | None, int]:
        """(the worker that admitted the job, minutes it waited), or (None, minutes) when no worker did."""
        if self.local_queues.get((namespace, local_queue)) is None or self.queue.admit(pod_set) is None:
            return None, 0  # no quota reservation on the manager: nothing is dispatched
        nominated = self.step_size if self.incremental else len(self.clusters)
        for round_index in range(patience_rounds):
            for name in self.clusters[:nominated]:
                if workers[name].admit(namespace, local_queue, pod_set) is not None:
                    waited = round_index * ROUND_MINUTES
                    self.log.append((job, name, waited))
                    return name, waited
            if nominated >= len(self.clusters):
                break
            nominated += self.step_size
        return None, patience_rounds * ROUND_MINUTES
