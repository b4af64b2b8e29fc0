"""Run the project's policy pack (`policies/`, the same rules `pulumi preview --policy-pack policies` loads)
over recorded resources, with the budget rule priced exactly as the preview prices them."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from accelfit.pricing import PricingContext, monthly_cost_of_resources
from accelfit.stackfile import StackFile


def run_pack(recorded: Sequence[Any], config: dict[str, Any], stack: StackFile,
             context: PricingContext | None = None, price: Any = None) -> dict[str, Any]:
    """`price(resources, catalog)` prices the stack for the budget rule; default: every resource with `context`
    (a fleet passes its own, which prices each workload with its usage and the shared items once)."""
    # The pack lives in the project (it is a Pulumi policy pack, not part of the installed package), so make
    # the project importable the way the CLI's pack directory is.
    project = str(stack.project_dir)
    if project not in sys.path:
        sys.path.insert(0, project)
    from policies.accelfit_policies import PACK_NAME, all_policies
    from policies.runner import run_policies

    def price_with_context(resources: list[dict[str, Any]], catalog: Any) -> Any:
        return monthly_cost_of_resources(resources, catalog, context)

    policies = all_policies(price or price_with_context)
    resources = [{"type": r.type, "name": r.name, "urn": r.urn, "props": r.inputs, "protect": r.protect,
                  "parent": r.parent} for r in recorded if r.custom]
    violations = run_policies(resources, config, {"accelfit:environment": stack.environment,
                                                  "environment": stack.environment}, policies=policies)
    return {"pack": PACK_NAME, "rules": [policy.name for policy in policies],
            "violations": [{"policy": v.policy, "level": v.level, "resource": v.name or "(stack)", "urn": v.urn,
                            "message": v.message} for v in violations]}
