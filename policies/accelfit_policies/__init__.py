"""accelfit's CrossGuard rules, importable without starting a policy server.

`all_policies()` is the whole pack in a fixed order; `policies/__main__.py` only wraps it in a `PolicyPack`
(constructing one blocks for ever: reference/pulumi.md 6.3), and `policies/runner.py` runs it in-process.
Each domain module exposes its checks (`check_*`, over `ResourceView`) and one factory per policy.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import Policy

from . import accelerators, cost, data_safety, security, serving, tagging
from .cost import PriceResources
from .view import ResourceView

PACK_NAME = "accelfit"


def all_policies(price_resources: PriceResources | None = None, catalog: Any = None) -> list[Policy]:
    """Every policy of the pack. `price_resources` replaces accelfit.pricing in the budget rule (tests)."""
    return [*cost.policies(price_resources, catalog), *security.policies(), *serving.policies(),
            *data_safety.policies(),
            *tagging.policies(), *accelerators.policies()]


__all__ = ["PACK_NAME", "ResourceView", "all_policies", "accelerators", "cost", "data_safety", "security", "serving", "tagging"]
