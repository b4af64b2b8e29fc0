"""ProjectServices: turn on the Google Cloud APIs a stack uses, so `pulumi up` works in a fresh project, and hand
out a provider that every other GCP resource of the stack uses.

The APIs come from the rules data (rules.project_services, each with its source). They are never turned off on
destroy (`disable_on_destroy=False`): another stack, or the user, may rely on them. The provider depends on the
services, and every component gets it (children inherit a parent's providers), so no resource is created before
the APIs it calls are on: a plain `depends_on` on a component would not reach its children.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import projects
from pulumi_gcp.provider import Provider

from accelfit.errors import InputError, problem


@dataclass(frozen=True)
class ProjectServicesArgs:
    project: str
    region: str
    services: tuple[str, ...]


class ProjectServices(pulumi.ComponentResource):
    services: list[projects.Service]
    provider: Provider
    """The provider for every other resource of the stack: it waits for the services."""

    def __init__(self, name: str, args: ProjectServicesArgs, opts: pulumi.ResourceOptions | None = None):
        if not args.services:
            raise InputError([problem(f"ProjectServices {name}", "services", "no APIs to enable",
                                      "list the APIs the stack's resources use (rules.project_services)")])
        super().__init__("accelfit:gcp:ProjectServices", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.services = [
            projects.Service(f"{name}-{service.split('.')[0]}", project=args.project, service=service,
                             disable_on_destroy=False, disable_dependent_services=False, opts=child)
            for service in args.services]
        self.provider = Provider(f"{name}-provider", project=args.project, region=args.region,
                                     opts=pulumi.ResourceOptions(parent=self, depends_on=self.services))
        self.register_outputs({"services": list(args.services)})
