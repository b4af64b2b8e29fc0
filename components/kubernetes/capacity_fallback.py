"""The cloud autoscalers' own fallback between the pools of a capacity group (accelfit.planner.fleet.capacity_groups):
the objects that make a job move to the next pool of its accelerator when the cloud has no capacity for the one before.

- GKE: one custom ComputeClass per group, its `priorities` the group's manually created node pools in chain order.
  Fields, from https://cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass and "About custom
  ComputeClasses" (https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes):
  `priorities[].nodepools` names existing node pools; `nodePoolAutoCreation.enabled: false` keeps GKE from creating
  pools of its own (the group is exactly the plan's pools); `whenUnsatisfiable: DoNotScaleUp` leaves pods Pending
  when no priority can be met rather than scaling up nodes outside the class (ScaleUpAnyway) — an accelerator job
  has nowhere else to run, and Kueue's waitForPodsReady then requeues it. The pinned field set is
  tests/checks/data/crds/cloud.google.com_computeclasses_v1.yaml.
- EKS: the Cluster Autoscaler's priority expander. kubernetes/autoscaler cluster-autoscaler/expander/priority/readme.md
  @01653c9c: a ConfigMap `cluster-autoscaler-priority-expander` (in the autoscaler's namespace) whose `priorities`
  maps a number (highest wins) to regexes of node group names; groups no regex matches are chosen at random. The
  pinned chart renders it from `expanderPriorities` when `extraArgs.expander` names `priority`
  (cluster-autoscaler/charts/cluster-autoscaler/templates/priority-expander-configmap.yaml, chart 9.59.0);
  `priority,least-waste` keeps least-waste for ties (FAQ.md "What are Expanders?": a list of expanders, each
  passing its choice to the next, from 1.23.0). The node group's name here is its Auto Scaling group's: EKS names a
  managed node group's ASG `eks-<node group name>-<uuid>`, which the regex matches exactly.

Pure data here (no Pulumi); the resources are made by components.kubernetes.layer and eks_addons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

COMPUTE_CLASS_API = "cloud.google.com/v1"
COMPUTE_CLASS_KIND = "ComputeClass"
WHEN_UNSATISFIABLE = "DoNotScaleUp"
PRIORITY_EXPANDER = "priority,least-waste"
PRIORITY_CONFIGMAP = "cluster-autoscaler-priority-expander"
# The expander's numbers: the first pool of every group gets TOP, each next one STEP less; every other node group
# matches the catch-all at BASE (so the choice between them stays least-waste's, as before groups existed).
TOP_PRIORITY = 100
PRIORITY_STEP = 10
BASE_PRIORITY = 1
# EKS managed node group Auto Scaling groups: eks-<node group name>-<uuid> (the suffix is a UUID, so a pool named
# gpu does not also match gpu-fb2's group).
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def compute_class_spec(node_pools: Sequence[Any]) -> dict[str, Any]:
    """A ComputeClass whose priorities are `node_pools` (GKE node pool names, in the chain's order)."""
    return {
        "priorities": [{"nodepools": [pool]} for pool in node_pools],
        "nodePoolAutoCreation": {"enabled": False},
        "whenUnsatisfiable": WHEN_UNSATISFIABLE,
    }


def asg_name_pattern(node_group_name: str) -> str:
    return f"^eks-{re.escape(node_group_name)}-{_UUID}$"


def expander_priorities(groups: Sequence[Sequence[str]]) -> dict[int, list[str]]:
    """The priority expander's configuration (the chart's expanderPriorities): each group's node groups by chain
    position, position 0 highest; a number holds the node groups of every group at that position (a pending pod's
    options are only its own group's, selected by the group label, so groups never compete)."""
    by_priority: dict[int, list[str]] = {}
    for names in groups:
        for position, name in enumerate(names):
            priority = TOP_PRIORITY - PRIORITY_STEP * position
            if priority <= BASE_PRIORITY:
                raise ValueError(f"capacity group of {len(names)} node groups exceeds the expander's priority range")
            by_priority.setdefault(priority, []).append(asg_name_pattern(name))
    if by_priority:
        by_priority[BASE_PRIORITY] = [".*"]
    return dict(sorted(by_priority.items(), reverse=True))
