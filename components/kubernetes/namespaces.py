"""The namespaces a workload's pods run in (its LocalQueues are there), from stack config. Read by the cloud stacks
(their Workload Identity binds these namespaces' service account) and by the Kubernetes layer alike."""

from __future__ import annotations

import re

import pulumi

from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def team_namespaces(plan: Plan) -> tuple[str, ...]:
    """Namespaces that get a LocalQueue: `accelfit:teamNamespaces` (a list), else the workload's namespace
    (where the workload's service account lives)."""
    configured = pulumi.Config().get_object("teamNamespaces")
    if configured is None:
        return (plan.workload,)
    if not isinstance(configured, list) or not configured:
        raise InputError([problem("stack", "accelfit:teamNamespaces", "must be a non-empty list of namespaces",
                                  "e.g. teamNamespaces: [research, applied]", configured)])
    bad = [name for name in configured if not isinstance(name, str) or not _DNS_LABEL.match(name)]
    if bad:
        raise InputError([problem("stack", "accelfit:teamNamespaces", "not a Kubernetes namespace name",
                                  "use lowercase letters, digits and '-', at most 63 characters", bad)])
    return tuple(dict.fromkeys(configured))
