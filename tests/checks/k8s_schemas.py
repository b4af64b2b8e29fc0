"""Validate the Kubernetes objects a preview document records: built-in kinds against the OpenAPI schema of each
Kubernetes version the stack's cluster can run (the `kubernetes-validate` package's per-version schemas, strict:
unknown fields are errors, as `kubectl --validate=strict` and server-side field validation make them), custom
resources against their CRD's schema (data/crds/, each from the pinned upstream source) after the API server's
structural defaulting, including the CRD's `x-kubernetes-validations` CEL rules evaluated with cel-python (`celpy`).

A CEL rule cel-python cannot evaluate (a Kubernetes CEL library function it lacks, such as isURL) and a transition
rule (it reads `oldSelf`, which exists only on update) are reported in `Report.unevaluated`, never dropped.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).parent / "data"
SECRET = "[secret]"
NOT_OBJECTS = {"kubernetes:helm.sh/v3:Release", "kubernetes:yaml/v2:ConfigFile", "kubernetes:yaml/v2:ConfigGroup"}


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    unevaluated: list[tuple[str, str]] = field(default_factory=list)
    """(rule, why) for each CEL rule that was not evaluated."""
    unvalidated: list[str] = field(default_factory=list)
    """Objects or fields that could not be validated, and why."""
    validated: int = 0


@functools.cache
def cluster_versions() -> dict[str, Any]:
    return yaml.safe_load((DATA / "cluster_versions.yaml").read_text())


@functools.cache
def crds() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> the CRD data file."""
    found = {}
    for path in sorted((DATA / "crds").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        found[(f"{data['group']}/{data['version']}", data["kind"])] = data
    return found


def stack_minors(resources: Sequence[Mapping[str, Any]], configured_minor: str | None = None) -> list[str]:
    """Every Kubernetes minor the stack's clusters can run: EKS's pinned version, each GKE channel's available
    minors, the bare-metal stack's configured minor."""
    minors: set[str] = set()
    channels = cluster_versions()["gke_channels"]
    for row in resources:
        if row["type"] == "aws:eks/cluster:Cluster" and row["inputs"].get("version"):
            minors.add(str(row["inputs"]["version"]))
        if row["type"] == "gcp:container/cluster:Cluster":
            channel = (row["inputs"].get("releaseChannel") or {}).get("channel", "REGULAR")
            minors.update(channels[channel]["minors"])
    if configured_minor:
        minors.add(configured_minor)
    return sorted(minors, key=lambda minor: tuple(int(part) for part in minor.split(".")))


def manifest_of(row: Mapping[str, Any], report: Report) -> dict[str, Any] | None:
    """The object the resource applies, with fields the preview blinds as secrets left out (and said so)."""
    inputs = copy.deepcopy(dict(row["inputs"]))
    if "apiVersion" not in inputs or "kind" not in inputs:
        return None
    for key in [key for key, value in inputs.items() if value == SECRET]:
        del inputs[key]
        report.unvalidated.append(f"{row['name']}: .{key} is a secret the preview blinds; not validated")
    metadata = inputs.get("metadata") or {}
    if isinstance(metadata.get("name"), str) and SECRET in metadata["name"]:
        metadata["name"] = metadata["name"].replace(SECRET, "secret")
    return inputs


# --- built-in kinds ---

def builtin_problems(manifest: Mapping[str, Any], minor: str) -> list[str]:
    import kubernetes_validate

    try:
        kubernetes_validate.validate(dict(manifest), minor, strict=True)
    except kubernetes_validate.ValidationError as error:
        where = ".".join(str(part) for part in error.path)
        return [f"Kubernetes {error.version}: .{where}: {error.message}"]
    return []


# --- custom resources ---

def with_defaults(schema: Mapping[str, Any], value: Any) -> Any:
    """The API server's structural defaulting: a missing property with a `default` gets it, recursively, inside
    every object that is present (k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting)."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        result = dict(value)
        for key, sub in properties.items():
            if key not in result and "default" in sub:
                result[key] = copy.deepcopy(sub["default"])
        for key, item in list(result.items()):
            if key in properties:
                result[key] = with_defaults(properties[key], item)
            elif isinstance(schema.get("additionalProperties"), Mapping):
                result[key] = with_defaults(schema["additionalProperties"], item)
        return result
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [with_defaults(schema["items"], item) for item in value]
    return value


def python_pattern(pattern: str) -> str:
    """The API server matches `pattern` with Go's RE2, which takes inline flags anywhere (Kueue's AdmissionCheck
    CRD has `^(?i)[a-z]...`); Python's re takes global flags only at the start, where they mean the same."""
    if pattern.startswith("^(?i)"):
        return "(?i)^" + pattern[len("^(?i)"):]
    return pattern


def json_schema(schema: Any, root: bool = True) -> Any:
    """A CRD's structural schema as JSON Schema: int-or-string and nullable spelled out, unknown fields refused
    where the schema does not preserve them (strict field validation), Kubernetes extensions dropped."""
    if isinstance(schema, list):
        return [json_schema(item, False) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key.startswith("x-kubernetes-") or key in ("default",):
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {name: json_schema(sub, False) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = json_schema(value, False)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [json_schema(sub, False) for sub in value]
        elif key == "nullable":
            continue
        elif key == "pattern":
            out[key] = python_pattern(value)
        else:
            out[key] = value
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if schema.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    if (out.get("type") == "object" and "properties" in out and "additionalProperties" not in out
            and not schema.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    if root:
        # The API server checks metadata itself (ObjectMeta); the CRD schema leaves it open.
        out.setdefault("properties", {})["metadata"] = {"type": "object"}
    return out


def schema_problems(schema: Mapping[str, Any], value: Any) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(json_schema(schema))
    return [f".{'.'.join(map(str, error.absolute_path))}: {error.message}"
            for error in sorted(validator.iter_errors(value), key=lambda error: list(map(str, error.path)))]


def cel_sites(schema: Mapping[str, Any], value: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any], Any]]:
    """(path, rule, self) for every x-kubernetes-validations rule at a node the object has; `self` with its
    property names escaped as Kubernetes hands them to CEL."""
    for rule in schema.get("x-kubernetes-validations") or ():
        yield path or ".", rule, cel_value(schema, value)
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, item in value.items():
            sub = properties.get(key) or (schema.get("additionalProperties")
                                         if isinstance(schema.get("additionalProperties"), Mapping) else None)
            if sub is not None:
                yield from cel_sites(sub, item, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            yield from cel_sites(schema["items"], item, f"{path}[{index}]")


_OLD_SELF = re.compile(r"\boldSelf\b")
# Kubernetes exposes a property to CEL under an escaped name when it is a CEL reserved word or holds `__`, `.`, `-`
# or `/` (https://kubernetes.io/docs/reference/using-api/cel/#escaping): the rules are written against those names.
CEL_RESERVED = {"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
                "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}


def cel_name(name: str) -> str:
    if name in CEL_RESERVED:
        return f"__{name}__"
    return (name.replace("__", "__underscores__").replace(".", "__dot__").replace("-", "__dash__")
            .replace("/", "__slash__"))


def cel_value(schema: Mapping[str, Any], value: Any) -> Any:
    """`value` as CEL sees it: declared properties under their escaped names; map keys (additionalProperties) and
    everything else as they are."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties") if isinstance(schema.get("additionalProperties"), Mapping) else {}
        return {(cel_name(key) if key in properties else key):
                cel_value(properties.get(key) or extra or {}, item) for key, item in value.items()}
    if isinstance(value, list):
        return [cel_value(schema.get("items") or {}, item) for item in value]
    return value


def evaluate_cel(rule: str, self_value: Any) -> tuple[bool | None, str | None]:
    """(True/False, None) when evaluated; (None, why) when cel-python cannot. `self_value` as cel_value gives it."""
    import celpy
    from celpy import celtypes

    if _OLD_SELF.search(rule):
        return None, "transition rule (reads oldSelf): the API server applies it only on update"
    environment = celpy.Environment()
    try:
        program = environment.program(environment.compile(rule))
        result = program.evaluate({"self": celpy.json_to_cel(self_value)})
    except Exception as error:  # noqa: BLE001 - any failure of the evaluator is reported with the rule
        return None, f"cel-python: {type(error).__name__}: {str(error)[:160]}"
    if isinstance(result, celpy.CELEvalError):
        return None, f"cel-python: {str(result)[:160]}"
    if isinstance(result, celtypes.BoolType):
        return bool(result), None
    if not isinstance(result, bool):
        return None, f"cel-python returned {type(result).__name__}, not a boolean"
    return bool(result), None


def custom_resource_problems(manifest: Mapping[str, Any], crd: Mapping[str, Any], report: Report) -> list[str]:
    schema = crd["openAPIV3Schema"]
    defaulted = with_defaults(schema, dict(manifest))
    problems = [f"CRD schema: {text}" for text in schema_problems(schema, defaulted)]
    for path, rule, value in cel_sites(schema, defaulted):
        ok, why = evaluate_cel(rule["rule"], value)
        if ok is None:
            report.unevaluated.append((rule["rule"], why))
        elif not ok:
            problems.append(f"CRD rule at {path}: {rule.get('message') or rule['rule']}")
    return problems


def is_custom(api_version: str) -> bool:
    """Served by a CRD: a dotted API group outside Kubernetes' own *.k8s.io groups (sigs' *.x-k8s.io are CRDs)."""
    group = api_version.split("/")[0] if "/" in api_version else ""
    return "." in group and (not group.endswith(".k8s.io") or group.endswith(".x-k8s.io"))


def document_report(resources: Sequence[Mapping[str, Any]], minors: Sequence[str]) -> Report:
    """Every Kubernetes object among a preview document's rows, validated."""
    report = Report()
    for row in resources:
        if not row["type"].startswith("kubernetes:") or row["type"] in NOT_OBJECTS:
            if row["type"] in NOT_OBJECTS - {"kubernetes:helm.sh/v3:Release"}:
                report.unvalidated.append(f"{row['name']}: a manifest applied from {row['inputs'].get('file')}; "
                                          "its objects are not in the document")
            continue
        manifest = manifest_of(row, report)
        if manifest is None:
            continue
        key = (manifest["apiVersion"], manifest["kind"])
        if is_custom(manifest["apiVersion"]):
            crd = crds().get(key)
            if crd is None:
                report.problems.append(f"{row['name']}: no CRD kept for {key[1]} {key[0]} (add it to data/crds/)")
                continue
            report.problems += [f"{row['name']} ({key[1]}): {text}"
                                for text in custom_resource_problems(manifest, crd, report)]
        else:
            for minor in minors:
                report.problems += [f"{row['name']} ({key[1]}): {text}" for text in builtin_problems(manifest, minor)]
        report.validated += 1
    return report


# --- fragments of objects (what a chart's template copies from its values) ---

@functools.cache
def _definitions_registry(minor: str) -> Any:
    from kubernetes_validate import utils
    from referencing import Registry, Resource

    version = [version for version in utils.all_versions()
               if utils.major_minor(version) <= minor][-1]
    definitions = utils.schema_contents(f"kubernetes-json-schema/v{version}-local-strict/_definitions.json", minor)
    return Resource.from_contents(definitions) @ Registry()


def definition_problems(definition: str, value: Any, minor: str) -> list[str]:
    """`value` against one OpenAPI definition of Kubernetes `minor` (strict); `Name[]` for a list of them."""
    import jsonschema

    ref = {"$ref": f"https://kubernetes.io/api/_definitions.json#/$defs/{definition.removesuffix('[]')}"}
    schema = {"type": "array", "items": ref} if definition.endswith("[]") else ref
    validator = jsonschema.Draft202012Validator(schema, registry=_definitions_registry(minor))
    return [f"Kubernetes {minor}: .{'.'.join(map(str, error.absolute_path))}: {error.message}"
            for error in sorted(validator.iter_errors(value), key=lambda error: list(map(str, error.path)))]
