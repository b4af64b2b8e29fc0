"""NodeServiceAccount: a least-privilege service account for GKE nodes and TPU VMs, instead of the Compute
Engine default account (which has Editor on the project).
https://cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster#use_least_privilege_sa"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
from pulumi_gcp import projects, serviceaccount

from accelfit.errors import InputError, problem
from accelfit.cloudrules.gcp.node_settings import service_account_id

# Logging and monitoring for nodes, and image pulls from Artifact Registry.
# https://cloud.google.com/kubernetes-engine/docs/how-to/service-accounts#default-gke-service-agent
NODE_ROLES = ("roles/container.defaultNodeServiceAccount", "roles/artifactregistry.reader")


@dataclass(frozen=True)
class NodeServiceAccountArgs:
    project: str
    display_name: str
    roles: tuple[str, ...] = field(default=NODE_ROLES)


class NodeServiceAccount(pulumi.ComponentResource):
    email: pulumi.Output[str]
    member: pulumi.Output[str]
    """`serviceAccount:<email>`, for IAM bindings."""

    def __init__(self, name: str, args: NodeServiceAccountArgs, opts: pulumi.ResourceOptions | None = None):
        if not args.project:
            raise InputError([problem(f"NodeServiceAccount {name}", "project", "required",
                                      "set the GCP project id (stack config gcp:project)")])
        super().__init__("accelfit:gcp:NodeServiceAccount", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        account = serviceaccount.Account(f"{name}-sa", account_id=service_account_id(name),
                                         display_name=args.display_name, project=args.project, opts=child)
        self.email = account.email
        self.member = account.email.apply(lambda email: f"serviceAccount:{email}")
        for role in args.roles:
            projects.IAMMember(f"{name}-{role.split('/')[-1].replace('.', '-')}", project=args.project,
                               role=role, member=self.member, opts=child)
        self.register_outputs({"email": self.email, "member": self.member})
