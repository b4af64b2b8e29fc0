"""The namespaces a workload's pods run in (its LocalQueues are there), from stack config. Read by the cloud stacks
(their Workload Identity binds these namespaces' service account) and by the Kubernetes layer alike; the setting's
one validator is accelfit.stackrules.namespaces, which `accelfit check` runs too."""

from __future__ import annotations

import pulumi

from accelfit.planner.model import Plan
from accelfit.stackrules.namespaces import team_namespaces as checked_namespaces


def team_namespaces(plan: Plan) -> tuple[str, ...]:
    """Namespaces that get a LocalQueue: `accelfit:teamNamespaces` (a list), else the workload's namespace
    (where the workload's service account lives)."""
    return checked_namespaces(pulumi.Config().get_object("teamNamespaces"), plan.workload,
                              f"config.{pulumi.get_project()}:teamNamespaces", "stack")
