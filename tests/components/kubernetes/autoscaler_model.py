"""A small model of the documented scale-up choice of the two autoscalers accelfit configures, driven by the objects a
stack renders (node pools / node groups with their labels, the ComputeClass, the priority expander's configuration).

What it models, and from where:
- Which pools can take a pending pod: those whose node labels match the pod's nodeSelector (kubernetes/autoscaler
  cluster-autoscaler/FAQ.md "Does CA respect node affinity when selecting node groups to scale up?": only node groups
  satisfying nodeSelector are considered). After Kueue admits a job to a flavor, the pod's nodeSelector is the
  flavor's nodeLabels.
- GKE ComputeClass: the pools are tried in the class's `priorities` order; when GKE cannot create nodes for one
  (stockout, quota) it moves to the next at once (About custom ComputeClasses, "Choose your fallback compute
  priorities"; Troubleshoot custom ComputeClasses). `whenUnsatisfiable: DoNotScaleUp`: no pool outside the class.
- Cluster Autoscaler priority expander (EKS): among the options, the highest priority whose regex matches the node
  group (its Auto Scaling group's name) wins; unmatched groups only when nothing matches
  (expander/priority/readme.md). A group whose scale-up failed is backed off and left out of the options
  (FAQ.md: initial-node-group-backoff-duration), so the next iteration takes the next priority.
No part of the autoscalers' code is copied; this is the documented decision only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Pool:
    name: str  # GKE node pool name / EKS Auto Scaling group name
    labels: Mapping[str, str]
    has_capacity: bool = True


@dataclass
class Autoscaler:
    pools: Sequence[Pool]
    compute_classes: Mapping[str, Sequence[Sequence[str]]] = field(default_factory=dict)
    """GKE: class name -> its priorities' node pool lists, in order (rendered ComputeClass spec)."""
    expander: Mapping[int, Sequence[str]] | None = None
    """EKS: the priority expander's configuration (priority -> regexes), None = no priority expander."""
    backed_off: set[str] = field(default_factory=set)
    tried: list[str] = field(default_factory=list)

    def options(self, node_selector: Mapping[str, str]) -> list[Pool]:
        return [pool for pool in self.pools if pool.name not in self.backed_off
                and all(pool.labels.get(key) == value for key, value in node_selector.items())]

    def choose(self, node_selector: Mapping[str, str]) -> Pool | None:
        options = self.options(node_selector)
        if not options:
            return None
        class_name = node_selector.get("cloud.google.com/compute-class")
        if class_name in self.compute_classes:
            for names in self.compute_classes[class_name]:
                picked = [pool for pool in options if pool.name in names]
                if picked:
                    return picked[0]
            return None  # DoNotScaleUp: nothing outside the class's priorities
        if self.expander:
            for priority in sorted(self.expander, reverse=True):
                matched = [pool for pool in options
                           if any(re.search(pattern, pool.name) for pattern in self.expander[priority])]
                if matched:
                    return matched[0]
        return options[0]

    def scale_up(self, node_selector: Mapping[str, str]) -> str | None:
        """Loop scale-up attempts until a pool with capacity gets the node or no option is left; the pool's name."""
        while True:
            pool = self.choose(node_selector)
            if pool is None:
                return None
            self.tried.append(pool.name)
            if pool.has_capacity:
                return pool.name
            self.backed_off.add(pool.name)  # failed scale-up: backed off, the next option is tried
