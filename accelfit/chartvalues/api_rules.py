"""The API server's validation of the pod fields chart values end up in, as kubernetes/kubernetes implements it in
pkg/apis/core/validation/validation.go (read at tag v1.35.0; the same rules hold from 1.25 through 1.35):

- ValidateSecurityContext: `allowPrivilegeEscalation: false` with `privileged: true` is refused ("cannot set
  `allowPrivilegeEscalation` to false and `privileged` to true"), and so is `allowPrivilegeEscalation: false` with
  the capability `CAP_SYS_ADMIN` added (compared literally: `SYS_ADMIN` without the prefix is not refused there);
  runAsUser and runAsGroup must be valid IDs (IsValidUserID/IsValidGroupID: 0..2147483647).
- ValidatePodSecurityContext: fsGroup, runAsUser, runAsGroup and supplementalGroups are valid IDs.
- ValidateTolerations: the operator is Exists or Equal (empty means Equal); an empty key needs operator Exists;
  Exists takes no value; tolerationSeconds only with effect NoExecute; the effect, when set, is NoSchedule,
  PreferNoSchedule or NoExecute.
- ValidateContainerResourceRequirements: every quantity is non-negative (ValidateResourceQuantityValue) and whole
  for integer resources (extended resources such as nvidia.com/gpu: IsIntegerResourceName); a request is at most
  its limit; a resource that cannot be overcommitted (hugepages-*, extended resources: IsOvercommitAllowed) needs a
  limit, and its request must equal it; hugepages need a cpu or memory request or limit beside them.
Each function returns messages in the API server's words, prefixed with the field path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

MAX_ID = 2**31 - 1
# Resource names Kubernetes lets a container overcommit (pkg/apis/core/helper: IsOvercommitAllowed is true for the
# native compute resources except hugepages).
OVERCOMMITTABLE = {"cpu", "memory", "ephemeral-storage"}
QOS_RESOURCES = {"cpu", "memory"}

_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?\Z")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: dict[str, Fraction | int] = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1, "k": 10**3,
    "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def parse_quantity(value: Any) -> Fraction | None:
    """A Kubernetes quantity (k8s.io/apimachinery pkg/api/resource/quantity.go grammar) as an exact number, or
    None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Fraction(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    number, suffix = Fraction(match.group(1)), match.group(2) or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    return number * Fraction(10) ** int(suffix[1:])


def _is_extended(name: str) -> bool:
    """Extended resources: a domain-prefixed name outside kubernetes.io (helper.IsExtendedResourceName)."""
    return "/" in name and not name.split("/", 1)[0].endswith("kubernetes.io") and not name.startswith("requests.")


def _id_problems(value: Any, path: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        return [f"{path}: Invalid value: {value!r}: must be between 0 and {MAX_ID}, inclusive"]
    return []


def security_context_problems(context: Any, path: str) -> list[str]:
    if not context:
        return []
    if not isinstance(context, Mapping):
        return [f"{path}: Invalid value: {context!r}: a security context is an object"]
    problems = _id_problems(context.get("runAsUser"), f"{path}.runAsUser")
    problems += _id_problems(context.get("runAsGroup"), f"{path}.runAsGroup")
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            problems.append(f"{path}: Invalid value: cannot set `allowPrivilegeEscalation` to false and "
                            "`privileged` to true")
        added = ((context.get("capabilities") or {}).get("add")) or []
        if "CAP_SYS_ADMIN" in added:
            problems.append(f"{path}: Invalid value: cannot set `allowPrivilegeEscalation` to false and "
                            "`capabilities.Add` CAP_SYS_ADMIN")
    return problems


def pod_security_context_problems(context: Any, path: str) -> list[str]:
    if not context:
        return []
    if not isinstance(context, Mapping):
        return [f"{path}: Invalid value: {context!r}: a pod security context is an object"]
    problems = []
    for key in ("fsGroup", "runAsUser", "runAsGroup"):
        problems += _id_problems(context.get(key), f"{path}.{key}")
    for index, group in enumerate(context.get("supplementalGroups") or []):
        problems += _id_problems(group, f"{path}.supplementalGroups[{index}]")
    return problems


def resource_problems(resources: Any, path: str) -> list[str]:
    if not resources:
        return []
    if not isinstance(resources, Mapping):
        return [f"{path}: Invalid value: {resources!r}: resources is an object"]
    parsed: dict[str, dict[str, Fraction]] = {"limits": {}, "requests": {}}
    problems = []
    for part in ("limits", "requests"):
        for name, value in (resources.get(part) or {}).items():
            where = f"{path}.{part}[{name}]"
            quantity = parse_quantity(value)
            if quantity is None:
                problems.append(f"{where}: Invalid value: {value!r}: quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
                continue
            if quantity < 0:
                problems.append(f"{where}: Invalid value: {value!r}: must be greater than or equal to 0")
            if _is_extended(name) and quantity.denominator != 1:
                problems.append(f"{where}: Invalid value: {value!r}: must be an integer")
            parsed[part][name] = quantity
    for name, request in parsed["requests"].items():
        limit = parsed["limits"].get(name)
        overcommit = name in OVERCOMMITTABLE
        if limit is not None:
            if request != limit and not overcommit:
                problems.append(f"{path}.requests: Invalid value: must be equal to {name} limit")
            elif request > limit:
                problems.append(f"{path}.requests: Invalid value: must be less than or equal to {name} limit")
        elif not overcommit:
            problems.append(f"{path}.limits: Required value: Limit must be set for non overcommitable resources "
                            f"({name})")
    names = set(parsed["limits"]) | set(parsed["requests"])
    if any(name.startswith("hugepages-") for name in names) and not names & QOS_RESOURCES:
        problems.append(f"{path}: Forbidden: HugePages require cpu or memory")
    return problems


EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def toleration_problems(tolerations: Any, path: str) -> list[str]:
    if not tolerations:
        return []
    if not isinstance(tolerations, list):
        return [f"{path}: Invalid value: {tolerations!r}: tolerations are a list"]
    problems = []
    for index, toleration in enumerate(tolerations):
        where = f"{path}[{index}]"
        if not isinstance(toleration, Mapping):
            problems.append(f"{where}: Invalid value: {toleration!r}: a toleration is an object")
            continue
        operator = toleration.get("operator") or "Equal"
        if not toleration.get("key") and operator != "Exists":
            problems.append(f"{where}.operator: Invalid value: {operator!r}: operator must be Exists when `key` is "
                            "empty, which means \"match all values and all keys\"")
        if operator == "Exists" and toleration.get("value"):
            problems.append(f"{where}.operator: Invalid value: {toleration.get('value')!r}: value must be empty "
                            "when `operator` is 'Exists'")
        elif operator not in ("Equal", "Exists"):
            problems.append(f"{where}.operator: Unsupported value: {operator!r}: supported values: \"Equal\", "
                            "\"Exists\"")
        effect = toleration.get("effect")
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            problems.append(f"{where}.effect: Invalid value: {effect!r}: effect must be 'NoExecute' when "
                            "`tolerationSeconds` is set")
        if effect and effect not in EFFECTS:
            problems.append(f"{where}.effect: Unsupported value: {effect!r}: supported values: "
                            + ", ".join(f'"{name}"' for name in EFFECTS))
    return problems
