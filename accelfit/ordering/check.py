"""Check a preview document's resources against the ordering rules (data/ordering_rules.yaml).

A resource is ordered after another when the other is in the closure of its recorded dependencies (depends_on and
the resources whose outputs flow into its inputs) and of its provider: the engine creates nothing before its
provider, and a provider only once its inputs are known. Each rule kind below reads its parameters from the data
file; every breach names the rule, the resource, what it should wait for and the rule's source.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.yamlio import read_package_yaml

RULES_FILE = Path(__file__).parent / "data" / "ordering_rules.yaml"

Row = Mapping[str, Any]


@dataclass(frozen=True)
class OrderingRule:
    id: str
    kind: str
    summary: str
    source: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Breach:
    rule: str
    resource: str
    """The resource's name (its URN is in `urn`)."""
    urn: str
    problem: str
    source: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.resource}: {self.problem}"


@functools.cache
def ordering_rules() -> tuple[OrderingRule, ...]:
    data = read_package_yaml(RULES_FILE)
    common = {"id", "kind", "summary", "source", "verified"}
    return tuple(OrderingRule(id=row["id"], kind=row["kind"], summary=row["summary"], source=row["source"],
                              params={key: value for key, value in row.items() if key not in common})
                 for row in data["rules"])


class Graph:
    """The document's resources by URN, with the closure of what each one waits for."""

    def __init__(self, rows: Sequence[Row]):
        self.rows = list(rows)
        self.by_urn = {row["urn"]: row for row in self.rows}
        self._closures: dict[str, frozenset[str]] = {}

    def direct(self, urn: str) -> set[str]:
        row = self.by_urn.get(urn)
        if row is None:
            return set()
        edges = set(row.get("dependencies") or ())
        if row.get("provider"):
            edges.add(row["provider"])
        return edges

    def after(self, urn: str) -> frozenset[str]:
        """Every URN the resource is ordered after (iterative, so a deep chain never hits the recursion limit)."""
        cached = self._closures.get(urn)
        if cached is not None:
            return cached
        seen: set[str] = set()
        stack = list(self.direct(urn))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            known = self._closures.get(current)
            if known is not None:
                seen |= known
                continue
            stack.extend(self.direct(current) - seen)
        result = frozenset(seen)
        self._closures[urn] = result
        return result

    def of_type(self, *types: str) -> list[Row]:
        return [row for row in self.rows if row["type"] in types]


def _breach(rule: OrderingRule, row: Row, text: str) -> Breach:
    return Breach(rule=rule.id, resource=row["name"], urn=row["urn"], problem=text, source=rule.source)


def _names(graph: Graph, urns: Iterable[str]) -> str:
    return ", ".join(sorted(graph.by_urn[urn]["name"] if urn in graph.by_urn else urn for urn in urns))


_WI_MEMBER = re.compile(r"^serviceAccount:([^\[\]]+\.svc\.id\.goog)\[[^\]]+\]\Z")


def _identity_pool(rule: OrderingRule, graph: Graph) -> list[Breach]:
    clusters: dict[str, list[str]] = {}
    for row in graph.of_type("gcp:container/cluster:Cluster"):
        pool = ((row["inputs"].get("workloadIdentityConfig") or {}).get("workloadPool"))
        if pool:
            clusters.setdefault(pool, []).append(row["urn"])
    breaches = []
    for row in graph.rows:
        if not row["type"].startswith("gcp:") or "iAM" not in row["type"]:
            continue
        members = [row["inputs"].get("member"), *(row["inputs"].get("members") or [])]
        for member in members:
            match = _WI_MEMBER.match(member) if isinstance(member, str) else None
            if not match:
                continue
            pool = match.group(1)
            candidates = clusters.get(pool, [])
            if not candidates:
                breaches.append(_breach(rule, row, f"member {member} names identity pool {pool}, which no "
                                        "Workload Identity cluster of this stack creates"))
            elif not set(candidates) & graph.after(row["urn"]):
                breaches.append(_breach(rule, row, f"member {member} needs identity pool {pool}, but the binding "
                                        f"is not ordered after a cluster that creates it ({_names(graph, candidates)})"))
    return breaches


def _project_services(rule: OrderingRule, graph: Graph) -> list[Breach]:
    services: dict[tuple[str, str], str] = {}
    for row in graph.of_type("gcp:projects/service:Service"):
        services[(str(row["inputs"].get("project")), row["inputs"].get("service"))] = row["urn"]
    projects = {project for project, _ in services}
    breaches = []
    for row in graph.rows:
        if not row.get("custom") or not row["type"].startswith("gcp:"):
            continue
        api = next((api for prefix, api in rule.params["services"].items() if row["type"].startswith(prefix)), None)
        if api is None:
            continue
        project = row["inputs"].get("project")
        candidates = ([services[(project, api)]] if (project, api) in services else
                      [urn for (each, service), urn in services.items() if service == api and project is None])
        if not candidates:
            where = f"project {project}" if project else f"the stack's project(s) {sorted(projects)}"
            breaches.append(_breach(rule, row, f"needs {api}, which the stack does not enable in {where}"))
        elif not set(candidates) & graph.after(row["urn"]):
            breaches.append(_breach(rule, row, f"needs {api} but is not ordered after the service that enables "
                                    f"it ({_names(graph, candidates)})"))
    return breaches


def _node_patch(rule: OrderingRule, graph: Graph) -> list[Breach]:
    marker, names_input = rule.params["join_marker"], rule.params["node_name_input"]
    joins: dict[str, list[str]] = {}
    for row in graph.rows:
        script, names = row["inputs"].get("create"), row["inputs"].get(names_input)
        if row["type"] == "command:remote:Command" and isinstance(script, str) and marker in script:
            for node in set(names if isinstance(names, list) else []):
                joins.setdefault(str(node), []).append(row["urn"])
    breaches = []
    for row in graph.of_type("kubernetes:core/v1:NodePatch"):
        node = str((row["inputs"].get("metadata") or {}).get("name"))
        candidates = joins.get(node, [])
        if not candidates:
            breaches.append(_breach(rule, row, f"patches node {node}, which nothing in the stack registers "
                                    "(no join names it)"))
        elif not set(candidates) & graph.after(row["urn"]):
            breaches.append(_breach(rule, row, f"patches node {node} without waiting for its join "
                                    f"({_names(graph, candidates)})"))
        if "taints" in (row["inputs"].get("spec") or {}):
            breaches.append(_breach(rule, row, f"sets spec.taints of node {node} right after its join: the list is "
                                    "atomic and the node-lifecycle controller holds node.kubernetes.io/not-ready in "
                                    "it until the node is Ready, so server-side apply conflicts (register the taint "
                                    "with the join instead)"))
    return breaches


def _crd_installer(rule: OrderingRule, graph: Graph) -> list[Breach]:
    groups: Mapping[str, Mapping[str, str]] = rule.params["groups"]
    breaches = []
    for row in graph.rows:
        if not row["type"].startswith("kubernetes:"):
            continue
        group = row["type"].split(":")[1].split("/")[0]
        if "." not in group:
            continue  # core, helm.sh, yaml: not a custom API group
        installer = groups.get(group)
        if installer is None:
            if (group.endswith(".k8s.io") and not group.endswith(".x-k8s.io")) or group == "helm.sh":
                continue  # built-in API groups (rbac.authorization.k8s.io, ...), and Helm releases
            breaches.append(_breach(rule, row, f"custom resource of API group {group}, for which no rule says what "
                                    "installs its CRD: add the group to data/ordering_rules.yaml"))
            continue
        candidates, whats = [], []
        if "release_chart" in installer:
            candidates += [r["urn"] for r in graph.of_type("kubernetes:helm.sh/v3:Release")
                           if r["inputs"].get("chart") == installer["release_chart"]]
            whats.append(f"the {installer['release_chart']} release")
        if "manifest" in installer:  # a release manifest applied as it is (yaml.v2.ConfigFile of that URL)
            candidates += [r["urn"] for r in graph.of_type("kubernetes:yaml/v2:ConfigFile")
                           if r["inputs"].get("file") == installer["manifest"]]
            whats.append(f"the manifest {installer['manifest']}")
        if "cluster" in installer:
            candidates += [r["urn"] for r in graph.of_type(installer["cluster"])]
            whats.append(f"the cluster ({installer['cluster']})")
        what = " or ".join(whats)
        if not candidates:
            breaches.append(_breach(rule, row, f"its CRD ({group}) comes with {what}, which the stack does not "
                                    "create"))
        elif not set(candidates) & graph.after(row["urn"]):
            breaches.append(_breach(rule, row, f"its CRD ({group}) comes with {what} "
                                    f"({_names(graph, candidates)}), which it does not wait for"))
    return breaches


def _namespace_of(row: Row) -> str | None:
    if row["type"] == "kubernetes:helm.sh/v3:Release":
        if row["inputs"].get("createNamespace"):
            return None
        return row["inputs"].get("namespace") or "default"
    metadata = row["inputs"].get("metadata")
    if isinstance(metadata, Mapping):
        return metadata.get("namespace")
    return None


def _namespace(rule: OrderingRule, graph: Graph) -> list[Breach]:
    built_in = set(rule.params["built_in"])
    namespaces: dict[tuple[str | None, str | None], list[str]] = {}
    for row in graph.of_type("kubernetes:core/v1:Namespace"):
        name = (row["inputs"].get("metadata") or {}).get("name")
        namespaces.setdefault((row.get("provider"), name), []).append(row["urn"])
    breaches = []
    for row in graph.rows:
        if not row["type"].startswith("kubernetes:") or row["type"] == "kubernetes:core/v1:Namespace":
            continue
        namespace = _namespace_of(row)
        if namespace is None or namespace in built_in:
            continue
        candidates = namespaces.get((row.get("provider"), namespace), [])
        if not candidates:
            breaches.append(_breach(rule, row, f"goes into namespace {namespace}, which the stack does not create "
                                    "on that cluster"))
        elif not set(candidates) & graph.after(row["urn"]):
            breaches.append(_breach(rule, row, f"goes into namespace {namespace} without waiting for it "
                                    f"({_names(graph, candidates)})"))
    return breaches


def _role_attachments(rule: OrderingRule, graph: Graph) -> list[Breach]:
    attachments: dict[str, list[str]] = {}
    for row in graph.of_type(*rule.params["attachment_types"]):
        for role in (row.get("input_dependencies") or {}).get("role", ()):
            attachments.setdefault(role, []).append(row["urn"])
    breaches = []
    for type_token, role_input in rule.params["role_inputs"].items():
        for row in graph.of_type(type_token):
            for role in (row.get("input_dependencies") or {}).get(role_input, ()):
                missing = set(attachments.get(role, ())) - graph.after(row["urn"])
                if missing:
                    breaches.append(_breach(rule, row, f"runs as {_names(graph, [role])} but is not ordered after "
                                            f"its policy attachments ({_names(graph, missing)})"))
    return breaches


def _addons_after_nodes(rule: OrderingRule, graph: Graph) -> list[Breach]:
    exempt = set(rule.params["before_compute"])
    groups: dict[str, list[str]] = {}
    for row in graph.of_type("aws:eks/nodeGroup:NodeGroup"):
        for cluster in (row.get("input_dependencies") or {}).get("clusterName", ()):
            groups.setdefault(cluster, []).append(row["urn"])
    breaches = []
    for row in graph.of_type("aws:eks/addon:Addon"):
        if row["inputs"].get("addonName") in exempt:
            continue
        for cluster in (row.get("input_dependencies") or {}).get("clusterName", ()):
            missing = set(groups.get(cluster, ())) - graph.after(row["urn"])
            if missing:
                breaches.append(_breach(rule, row, f"add-on {row['inputs'].get('addonName')} is not ordered after "
                                        f"the cluster's node groups ({_names(graph, missing)})"))
    return breaches


KINDS: dict[str, Callable[[OrderingRule, Graph], list[Breach]]] = {
    "identity_pool": _identity_pool,
    "project_services": _project_services,
    "node_patch": _node_patch,
    "crd_installer": _crd_installer,
    "namespace": _namespace,
    "role_attachments": _role_attachments,
    "addons_after_nodes": _addons_after_nodes,
}


def ordering_breaches(resources: Sequence[Row], rules: Sequence[OrderingRule] | None = None) -> list[Breach]:
    """Every breach of every rule over a preview document's `resources` rows, in rule order."""
    graph = Graph(resources)
    breaches: list[Breach] = []
    for rule in rules if rules is not None else ordering_rules():
        breaches += KINDS[rule.kind](rule, graph)
    return breaches
