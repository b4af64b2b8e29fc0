"""`accelfit:teamNamespaces`: the namespaces a single-form stack's pods run in (each gets a Namespace, a LocalQueue and
its workload identity binding). The one validator for the setting: `accelfit check` (the stack rules) and the
Kubernetes layer (components/kubernetes/namespaces.py) both call `team_namespaces`.

A namespace the stack creates must be one it may own and delete:
- a DNS label (RFC 1123: lowercase letters, digits and '-', at most 63, starting and ending alphanumeric), the
  rule for Namespace names (https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names);
- not `default` nor a `kube-` name: Kubernetes starts every cluster with default, kube-node-lease, kube-public and
  kube-system, and reserves the `kube-` prefix for its system namespaces
  (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/, "Initial namespaces"); a Namespace
  resource for one fails to create, or a destroy deletes it with everything in it (issue 36);
- not a namespace accelfit's own add-ons are installed into (ADDON_NAMESPACES: the pinned charts' namespaces,
  components/kubernetes/data/charts.yaml, and KEDA's), which the layer already creates.
"""

from __future__ import annotations

import re
from typing import Any

from accelfit.errors import InputError, Problem, problem, short_repr

DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
RESERVED_PREFIX = "kube-"
RESERVED_NAMESPACES = frozenset({"default"})
# The namespaces the Kubernetes layer installs its add-ons into (a test keeps this equal to the charts' data and the
# serving add-ons' constants).
ADDON_NAMESPACES = frozenset({"gpu-operator", "kueue-system", "gpu-monitoring", "monitoring", "jobset-system",
                              "lws-system", "keda"})
EXAMPLE = "teamNamespaces: [research, applied]"


def namespace_problem(name: Any) -> str | None:
    """Why `name` cannot be a namespace the stack creates, or None."""
    if not isinstance(name, str) or not DNS_LABEL.match(name):
        return "not a Kubernetes namespace name (lowercase letters, digits and '-', at most 63 characters, " \
               "starting and ending with a letter or digit)"
    if name in RESERVED_NAMESPACES or name.startswith(RESERVED_PREFIX):
        return "a namespace Kubernetes creates and owns (default, kube-*): the stack would create or delete it"
    if name in ADDON_NAMESPACES:
        return "the namespace of one of accelfit's add-ons, which the stack already creates"
    return None


def team_namespace_problems(value: Any, field: str, source: str | None) -> list[Problem]:
    """Every problem with the setting's value (None: not set, fine)."""
    if value is None:
        return []
    if not isinstance(value, list) or not value:
        return [problem(source, field, "must be a non-empty list of namespaces", f"e.g. {EXAMPLE}", short_repr(value))]
    problems = []
    for index, name in enumerate(value):
        why = namespace_problem(name)
        if why:
            problems.append(problem(source, f"{field}[{index}]", why, f"use a namespace of your team's own, e.g. "
                                    f"{EXAMPLE}", name if isinstance(name, str) and len(name) <= 80 else
                                    short_repr(name)))
    return problems


def team_namespaces(value: Any, default: str, field: str, source: str | None) -> tuple[str, ...]:
    """The namespaces that get a LocalQueue: the setting's (unique, in order), else `default` (the workload's own
    namespace). Raises InputError naming every bad entry."""
    problems = team_namespace_problems(value, field, source)
    if problems:
        raise InputError(problems)
    return (default,) if value is None else tuple(dict.fromkeys(value))


def serving_namespace_problem(namespaces: tuple[str, ...], workload: str, field: str,
                              source: str | None) -> Problem | None:
    """An EKS model server runs in its workload's namespace, where its Pod Identity association is
    (components/aws/workload_identity.py): the first team namespace must be that one."""
    if namespaces and namespaces[0] != workload:
        return problem(source, field, f"the model server on EKS runs in namespace {workload}, where its Pod "
                       "Identity association is", f"remove teamNamespaces or list {workload} first")
    return None


def fleet_namespaces_problem(field: str, source: str | None) -> Problem:
    """The fleet form names each workload's namespace after the workload: the setting has nothing to set there."""
    return problem(source, field, "a fleet gives each workload its own namespace, named after it, so this setting "
                   "would change nothing", "remove teamNamespaces from the fleet stack")
