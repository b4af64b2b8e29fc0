"""Run the accelfit policy pack in-process, exactly as the Pulumi engine and the analyzer server would.

`accelfit preview` calls `run_policies` on the resources it recorded under mocks. Nothing here constructs a
`PolicyPack` (that starts a server and never returns, reference/pulumi.md 6.3); instead it does what the engine
and `pulumi_policy`'s analyzer server do around each policy:

- config (reference 6.4, and the engine's policy-pack config reconciliation): every policy starts at its own
  enforcement level (else the pack's, advisory) with its schema defaults; then the file's `all` level applies to
  every policy; then each policy's own entry (a bare level string, or an object with `enforcementLevel` and
  properties merged over the defaults). Disabled policies do not run; `remediate` is reported as `mandatory`.
- arguments: props travel as a protobuf Struct (so ints become floats, reference P5) and reach the policy wrapped
  in `unknown_checking_proxy`; resource policies get `ResourceValidationArgs`, stack policies one
  `StackValidationArgs` whose `PolicyResource.parent` is the parent object; a value unknown during preview turns
  into an advisory "can't run policy" result, as the server reports it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

from accelfit.shared_texts import long_texts, with_shared_texts
from policies.accelfit_policies import PACK_NAME, all_policies
from policies.accelfit_policies.cost import PriceResources

PACK_VERSION = "0.0.1"  # what the Python SDK's server reports; the CLI shows PulumiPolicy.yaml's version
LEVELS = ("advisory", "mandatory", "remediate", "disabled")


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str
    """advisory | mandatory | remediate | disabled (as reported: remediate is reported as mandatory)."""
    urn: str
    """The resource's URN; "" for a stack-wide finding."""
    name: str
    """The resource's name; "" for a stack-wide finding."""
    message: str
    """The rule's message, without the policy description the server puts in front of it."""


@dataclass(frozen=True)
class PolicyConfigEntry:
    level: str
    properties: dict[str, Any]


# ---- configuration, as the engine reconciles it -------------------------------------------------------------

def _level(value: Any, where: str) -> str:
    level = str(value).lower()
    if level not in LEVELS:
        raise ValueError(f"{where}: enforcement level {value!r} is not one of {', '.join(LEVELS)}")
    return level


def reconcile_config(policy_info: Mapping[str, tuple[str, Mapping[str, Any]]], config: Mapping[str, Any] | None,
                     ) -> dict[str, PolicyConfigEntry]:
    """Final level and properties per policy.

    `policy_info` maps each policy name to (its level, its config schema properties) as GetAnalyzerInfo
    reports them; `config` is a `--policy-pack-config` document. Unknown policy names and badly typed
    properties raise ValueError naming the key (the CLI refuses such a file too)."""
    result = {name: PolicyConfigEntry(level, {key: schema["default"] for key, schema in properties.items()
                                              if isinstance(schema, Mapping) and "default" in schema})
              for name, (level, properties) in policy_info.items()}
    config = dict(config or {})
    if "all" in config:
        entry = config["all"]
        level = entry if isinstance(entry, str) else (entry or {}).get("enforcementLevel")
        if level is not None:
            level = _level(level, "all")
            result = {name: PolicyConfigEntry(level, dict(item.properties)) for name, item in result.items()}
    for name, entry in config.items():
        if name == "all":
            continue
        if name not in result:
            raise ValueError(f"policy config names {name!r}, which is not a policy of the {PACK_NAME} pack; "
                             f"known: {', '.join(sorted(result))}")
        current = result[name]
        if isinstance(entry, str):
            result[name] = PolicyConfigEntry(_level(entry, name), dict(current.properties))
            continue
        properties = {key: value for key, value in dict(entry).items() if key != "enforcementLevel"}
        level = _level(entry["enforcementLevel"], name) if "enforcementLevel" in entry else current.level
        _check_types(name, properties, policy_info[name][1])
        result[name] = PolicyConfigEntry(level, {**current.properties, **properties})
    return result


_JSON_TYPES: dict[str, tuple[type, ...]] = {"number": (int, float), "integer": (int, float), "boolean": (bool,),
                                            "string": (str,), "array": (list, tuple), "object": (dict,)}


def _check_types(policy: str, properties: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    for key, value in properties.items():
        if key not in schema:
            raise ValueError(f"{policy}.{key}: not a setting of this policy; known: {', '.join(sorted(schema)) or 'none'}")
        expected = schema[key].get("type")
        allowed = _JSON_TYPES.get(str(expected))
        wrong_bool = isinstance(value, bool) and expected in ("number", "integer")
        if allowed and (not isinstance(value, allowed) or wrong_bool):
            raise ValueError(f"{policy}.{key}: {value!r} is not of type {expected}")
        choices = schema[key].get("enum")
        if choices is not None and value not in choices:  # the engine validates the config schema's enum too
            raise ValueError(f"{policy}.{key}: {value!r} is not one of {', '.join(map(str, choices))}")


def policy_info_of(policies: Sequence[Any], pack_level: str = "advisory") -> dict[str, tuple[str, dict[str, Any]]]:
    """(level, schema properties) per policy, as the analyzer server's GetAnalyzerInfo reports them."""
    return {policy.name: (policy.enforcement_level.value if policy.enforcement_level is not None else pack_level,
                          dict(policy.config_schema.properties) if policy.config_schema is not None else {})
            for policy in policies}


# ---- arguments, as the analyzer server builds them ----------------------------------------------------------

def wire_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """Props after the trip through a protobuf Struct, as the server deserializes them (ints become floats).
    Long strings come back as the props' own (equal) objects: a 10,000-server site's host scripts are not held
    twice while the pack runs."""
    struct = struct_pb2.Struct()
    struct.update(dict(props))
    shared: dict[str, Any] = with_shared_texts(deserialize_properties(json_format.MessageToDict(struct)),
                                               long_texts(props))
    return shared


def _props(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    return resource.get("props", resource.get("inputs")) or {}


def _options(resource: Mapping[str, Any]) -> PolicyResourceOptions:
    return PolicyResourceOptions(bool(resource.get("protect", False)), [], None, [], PolicyCustomTimeouts(0, 0, 0),
                                 [], resource.get("parent") or None)


def _run(policy: Any, args: Any, report: Any) -> None:
    result = policy.validate(args, report)
    if inspect.isawaitable(result):
        asyncio.run(_await(result))


async def _await(awaitable: Any) -> None:
    await awaitable


def _cannot_run(policy: str, error: UnknownValueError, urn: str, name: str) -> Violation:
    return Violation(policy, "advisory", urn, name,
                     f"can't run policy '{policy}' from policy pack '{PACK_NAME}@v{PACK_VERSION}' during preview: "
                     f"{error.message}")


def run_policies(resources: Iterable[Mapping[str, Any]], config: Mapping[str, Any] | None = None,
                 stack_tags: Mapping[str, str] | None = None, *, policies: Sequence[Any] | None = None,
                 price_resources: PriceResources | None = None) -> list[Violation]:
    """Every violation the pack reports for `resources` under `config` (a --policy-pack-config document).

    resources: neutral dicts {type, name, urn, props (or inputs), protect, parent (URN or None)}.
    Order: resource policies per resource in resource order, then stack policies, each in pack order."""
    policies = list(policies) if policies is not None else all_policies(price_resources)
    entries = reconcile_config(policy_info_of(policies), config)
    tags = dict(stack_tags or {})
    resources = list(resources)
    wire = [wire_props(_props(resource)) for resource in resources]
    found: list[Violation] = []

    def config_of(name: str) -> dict[str, Any] | None:
        return dict(entries[name].properties) or None  # the server passes None for an empty config

    def reporter(policy: str, level: str, urn: str, name: str, names: Mapping[str, str]
                 ) -> Callable[[str, str | None], None]:
        def report(message: str, violation_urn: str | None = None) -> None:
            target = violation_urn or urn
            found.append(Violation(policy, level, target, names.get(target, name if target == urn else ""), message))
        return report

    # One read-only proxy per resource, shared by every policy (the server builds one per policy call; building
    # it walks every nested value, which made the pack's cost grow with policies x props). Policies only read
    # props; tests/policies check that no policy writes to them.
    proxies = [unknown_checking_proxy(props) for props in wire]
    names_by_urn = {str(resource.get("urn", "")): str(resource.get("name", "")) for resource in resources}
    for resource, props in zip(resources, proxies, strict=True):
        urn, name = str(resource.get("urn", "")), str(resource.get("name", ""))
        for policy in policies:
            level = entries[policy.name].level
            if level == "disabled" or not isinstance(policy, ResourceValidationPolicy) or not policy.has_validation():
                continue
            level = "mandatory" if level == "remediate" else level
            args = ResourceValidationArgs(str(resource["type"]), props, urn, name,
                                          _options(resource), None, config_of(policy.name), tags)
            try:
                _run(policy, args, reporter(policy.name, level, urn, name, names_by_urn))
            except UnknownValueError as error:
                found.append(_cannot_run(policy.name, error, "", ""))

    stack: list[PolicyResource] | None = None
    for policy in policies:
        level = entries[policy.name].level
        if level == "disabled" or not isinstance(policy, StackValidationPolicy):
            continue
        level = "mandatory" if level == "remediate" else level
        stack = stack if stack is not None else _stack_resources(resources, proxies)
        try:
            _run(policy, StackValidationArgs(stack, config_of(policy.name), tags),
                 reporter(policy.name, level, "", "", names_by_urn))
        except UnknownValueError as error:
            found.append(_cannot_run(policy.name, error, "", ""))
    return found


def _stack_resources(resources: Sequence[Mapping[str, Any]], proxies: Sequence[Any]) -> list[PolicyResource]:
    """The stack policies' view: one PolicyResource per resource, its parent linked; built once, shared by
    every stack policy (they only read it)."""
    stack = [PolicyResource(str(resource["type"]), props, str(resource.get("urn", "")),
                            str(resource.get("name", "")), _options(resource), None, None, [], {})
             for resource, props in zip(resources, proxies, strict=True)]
    by_urn = {item.urn: item for item in stack}
    for item, resource in zip(stack, resources, strict=True):
        parent = resource.get("parent")
        if parent and parent in by_urn:
            item.parent = by_urn[parent]
    return stack


def mandatory(violations: Iterable[Violation]) -> list[Violation]:
    """The violations that fail a `pulumi preview`/`up` (and `accelfit preview`'s exit code)."""
    return [violation for violation in violations if violation.level == "mandatory"]


__all__ = ["LEVELS", "PACK_NAME", "PolicyConfigEntry", "Violation", "mandatory",
           "policy_info_of", "reconcile_config", "run_policies", "wire_props"]
