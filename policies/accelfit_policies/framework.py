"""Turning a check over neutral views into a CrossGuard policy with a config schema.

A check is a plain function: `(ResourceView, settings) -> [message]` for one resource, or
`(views, settings) -> [(message, urn | None)]` for the whole stack. `settings` is the policy's config merged over
the defaults kept here in code, because the SDK never fills schema defaults itself (reference/pulumi.md 6.2);
the same defaults also go into the schema so the engine's reconciliation (and `runner.reconcile_config`) shows
them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    PolicyResource,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from .view import ResourceView

Settings = Mapping[str, Any]
ResourceCheck = Callable[[ResourceView, Settings], list[str]]
StackCheck = Callable[[Sequence[ResourceView], Settings], list[tuple[str, str | None]]]
Options = Mapping[str, Mapping[str, Any]]

# Stack tags that name the environment when the policy config does not (`accelfit preview` passes the stack).
ENVIRONMENT_TAGS = ("accelfit:environment", "environment")


def defaults_of(options: Options) -> dict[str, Any]:
    return {key: schema["default"] for key, schema in options.items() if "default" in schema}


def settings_for(options: Options, config: Mapping[str, Any] | None,
                 stack_tags: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Defaults, then the engine's config for this policy; `environment` from the stack tags if unset."""
    merged = {**defaults_of(options), **dict(config or {})}
    if not merged.get("environment"):
        for tag in ENVIRONMENT_TAGS:
            if stack_tags and stack_tags.get(tag):
                merged["environment"] = stack_tags[tag]
                break
    return merged


def schema_of(options: Options) -> PolicyConfigSchema | None:
    return PolicyConfigSchema(properties={key: dict(value) for key, value in options.items()}) if options else None


def view_of_args(args: ResourceValidationArgs) -> ResourceView:
    opts = args.opts
    return ResourceView(type=args.resource_type, name=args.name, props=args.props, urn=args.urn,
                        protect=bool(opts.protect) if opts is not None else False,
                        parent=(opts.parent or None) if opts is not None else None)


def view_of_resource(resource: PolicyResource) -> ResourceView:
    opts = resource.opts
    parent = resource.parent.urn if resource.parent is not None else (opts.parent if opts is not None else None)
    return ResourceView(type=resource.resource_type, name=resource.name, props=resource.props, urn=resource.urn,
                        protect=bool(opts.protect) if opts is not None else False, parent=parent or None)


def resource_policy(name: str, description: str, check: ResourceCheck, options: Options | None = None,
                    enforcement_level: EnforcementLevel | None = None,
                    severity: Severity | None = None) -> ResourceValidationPolicy:
    options = options or {}

    def validate(args: ResourceValidationArgs, report_violation: Callable[..., None]) -> None:
        view = view_of_args(args)
        for message in check(view, settings_for(options, args.get_config(), args.stack_tags)):
            report_violation(message)

    return ResourceValidationPolicy(name=name, description=description, validate=validate,
                                    enforcement_level=enforcement_level, config_schema=schema_of(options),
                                    severity=severity)


def stack_policy(name: str, description: str, check: StackCheck, options: Options | None = None,
                 enforcement_level: EnforcementLevel | None = None,
                 severity: Severity | None = None) -> StackValidationPolicy:
    options = options or {}

    def validate(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
        views = [view_of_resource(resource) for resource in args.resources]
        for message, urn in check(views, settings_for(options, args.get_config(), args.stack_tags)):
            report_violation(message, urn)

    return StackValidationPolicy(name=name, description=description, validate=validate,
                                 enforcement_level=enforcement_level, config_schema=schema_of(options),
                                 severity=severity)
