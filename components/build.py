"""components.build(plan): hand a finished plan to the components of its cloud.

Each cloud's package is imported only when its plan is built, so a GCP stack never imports pulumi_aws and an
AWS stack never imports pulumi_gcp.
"""

from __future__ import annotations

from typing import Any

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, problem
from accelfit.planner.model import Plan
from components.common import Ownership


def build(plan: Plan, ownership: Ownership, catalog: Catalog | None = None) -> Any:
    if plan.cloud.value == "gcp":
        from components.gcp import build as build_gcp

        return build_gcp(plan, ownership, catalog=catalog)
    if plan.cloud.value == "aws":
        from components.aws import build as build_aws

        return build_aws(plan, ownership, catalog=catalog)
    # Bare-metal provisioning (host preparation over SSH, cluster membership) is its own body of work and is
    # not part of this release; refuse clearly rather than create half a deployment.
    raise InputError([problem("plan", "platform", f"accelfit cannot provision {plan.platform.value} yet",
                              "plan for a cloud (placement.deployment: cloud or any) or provision the servers by "
                              "hand from `accelfit plan --json`", plan.platform.value)])
