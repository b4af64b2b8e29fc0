"""Each Helm release a stack records, merged over its pinned chart's default values (data/defaults/), and the
objects the chart's templates build from the result (data/object_sites.yaml) checked against the API server's
rules (api_rules.py) and the chart's values schema when it ships one."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.chartvalues.api_rules import (
    pod_security_context_problems,
    resource_problems,
    security_context_problems,
    toleration_problems,
)
from accelfit.chartvalues.merge import at_path, helm_merge
from accelfit.yamlio import read_package_yaml

DATA = Path(__file__).parent / "data"
RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"


@dataclass(frozen=True)
class ChartDefaults:
    key: str
    chart: str
    version: str
    source: Mapping[str, Any]
    values: Mapping[str, Any]
    values_schema: Mapping[str, Any] | None


@dataclass(frozen=True)
class ValuesProblem:
    release: str
    chart: str
    object: str
    problem: str
    source: str

    def __str__(self) -> str:
        return f"{self.release} ({self.chart}): {self.object}: {self.problem}"


@functools.cache
def chart_defaults() -> dict[tuple[str, str], ChartDefaults]:
    found = {}
    for path in sorted((DATA / "defaults").glob("*.yaml")):
        data = read_package_yaml(path)
        found[(data["chart"], str(data["version"]))] = ChartDefaults(
            key=path.stem, chart=data["chart"], version=str(data["version"]), source=data["source"],
            values=data["values"] or {}, values_schema=data.get("values_schema"))
    return found


@functools.cache
def object_sites() -> dict[str, tuple[Mapping[str, Any], ...]]:
    data = read_package_yaml(DATA / "object_sites.yaml")
    return {key: tuple(sites) for key, sites in data["charts"].items()}


def merged_values(defaults: ChartDefaults, values: Mapping[str, Any]) -> dict[str, Any]:
    return helm_merge(defaults.values, values)


def _schema_problems(schema: Mapping[str, Any], merged: Mapping[str, Any]) -> list[str]:
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"values.{'.'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in sorted(validator.iter_errors(merged), key=lambda error: list(map(str, error.path)))]


def site_problems(site: Mapping[str, Any], merged: Mapping[str, Any]) -> list[str]:
    """What the API server would refuse in one object a template builds from the merged values."""
    when = site.get("when")
    if when and not at_path(merged, when):
        return []
    problems = []
    if site.get("container_security_context"):
        path = site["container_security_context"]
        problems += security_context_problems(at_path(merged, path), f"values.{path}")
    if site.get("pod_security_context"):
        path = site["pod_security_context"]
        problems += pod_security_context_problems(at_path(merged, path), f"values.{path}")
    if site.get("resources"):
        path = site["resources"]
        problems += resource_problems(at_path(merged, path), f"values.{path}")
    if site.get("tolerations"):
        path = site["tolerations"]
        problems += toleration_problems(at_path(merged, path), f"values.{path}")
    return problems


# What each site field becomes in the object, as its OpenAPI definition (for validating the merged fragments
# against a Kubernetes version's schema).
SITE_DEFINITIONS = {
    "container_security_context": "io.k8s.api.core.v1.SecurityContext",
    "pod_security_context": "io.k8s.api.core.v1.PodSecurityContext",
    "resources": "io.k8s.api.core.v1.ResourceRequirements",
    "tolerations": "io.k8s.api.core.v1.Toleration[]",
    "affinity": "io.k8s.api.core.v1.Affinity",
}


def site_fragments(site: Mapping[str, Any], merged: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """(values path, OpenAPI definition, merged value) for each field a built object takes from the values."""
    when = site.get("when")
    if when and not at_path(merged, when):
        return []
    return [(site[field], definition, at_path(merged, site[field])) for field, definition in SITE_DEFINITIONS.items()
            if site.get(field) and at_path(merged, site[field]) not in (None, {}, [])]


def release_problems(row: Mapping[str, Any]) -> list[ValuesProblem]:
    inputs = row["inputs"]
    chart, version = inputs.get("chart"), str(inputs.get("version"))
    defaults = chart_defaults().get((chart, version))
    if defaults is None:
        return [ValuesProblem(row["name"], f"{chart} {version}", "values", "no default values kept for this chart "
                              "version: add accelfit/chartvalues/data/defaults/<chart>.yaml from the chart's "
                              "values.yaml at that tag", "accelfit/chartvalues")]
    values = inputs.get("values") or {}
    if not isinstance(values, Mapping):
        return [ValuesProblem(row["name"], chart, "values", f"values are not an object: {values!r}",
                              "accelfit/chartvalues")]
    merged = merged_values(defaults, values)
    label = f"{chart} {version}"
    source = f"{defaults.source['repository']} {defaults.source['path']} @{defaults.source['commit']}"
    problems = []
    if defaults.values_schema:
        problems += [ValuesProblem(row["name"], label, "values.schema.json", text, source)
                     for text in _schema_problems(defaults.values_schema, merged)]
    for site in object_sites().get(defaults.key, ()):
        problems += [ValuesProblem(row["name"], label, site["object"], text, f"{source}; {site['template']}")
                     for text in site_problems(site, merged)]
    return problems


def values_problems(resources: Sequence[Mapping[str, Any]]) -> list[ValuesProblem]:
    """Every problem of every Helm release among a preview document's `resources` rows."""
    return [problem for row in resources if row["type"] == RELEASE_TYPE for problem in release_problems(row)]
