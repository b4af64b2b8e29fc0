"""A small model of how Kueue assigns a flavor to a job, as its documentation states it, driven by the rendered
ClusterQueue spec (not by the planner's intentions).

kubernetes-sigs/kueue v0.19.2 @8eab68778fc1b52affe165fdf5af29d1e9b4f3cb:
- site/content/en/docs/concepts/cluster_queue.md, "Flavors and borrowing semantics": the flavors of the relevant
  resource group are tried in order; a pod set fits a flavor when, for each resource, its requests are at most the
  flavor's unused nominalQuota; otherwise the next flavor is evaluated. A pod set gets one flavor per resource group.
- site/content/en/docs/tasks/manage/setup_wait_for_pods_ready.md: a job whose pods are not all ready within the
  timeout is evicted (its quota released) and requeued; it then goes through assignment again.
Borrowing, preemption and partial admission are left out: the queues here are checked without a cohort.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def quantity(value: str | int) -> float:
    text = str(value)
    for suffix, factor in _UNITS.items():
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


@dataclass(frozen=True)
class PodSet:
    """`count` pods, each requesting `requests` (resource -> quantity)."""

    count: int
    requests: Mapping[str, str | int]

    def total(self, resource: str) -> float:
        return self.count * quantity(self.requests.get(resource, 0))


@dataclass
class Queue:
    spec: Mapping
    usage: dict[tuple[str, str], float] = field(default_factory=dict)

    def flavors(self) -> list[tuple[str, dict[str, float]]]:
        [group] = self.spec["resourceGroups"]
        return [(flavor["name"], {item["name"]: quantity(item["nominalQuota"]) for item in flavor["resources"]})
                for flavor in group["flavors"]]

    def covered(self) -> list[str]:
        [group] = self.spec["resourceGroups"]
        return list(group["coveredResources"])

    def assign(self, pod_set: PodSet) -> str | None:
        """The first flavor whose unused quota fits the pod set; None = the job waits (not admissible now)."""
        requested = [resource for resource in pod_set.requests if quantity(pod_set.requests[resource])]
        if any(resource not in self.covered() for resource in requested):
            return None  # Kueue admits only when the queue covers every requested resource
        for name, quotas in self.flavors():
            if all(pod_set.total(resource) + self.usage.get((name, resource), 0) <= quotas[resource]
                   for resource in requested):
                return name
        return None

    def admit(self, pod_set: PodSet) -> str | None:
        flavor = self.assign(pod_set)
        if flavor is not None:
            for resource in pod_set.requests:
                key = (flavor, resource)
                self.usage[key] = self.usage.get(key, 0) + pod_set.total(resource)
        return flavor

    def evict(self, flavor: str, pod_set: PodSet) -> None:
        for resource in pod_set.requests:
            self.usage[(flavor, resource)] -= pod_set.total(resource)
