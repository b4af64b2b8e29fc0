"""What every component shares: the stack's ownership labels and child naming. No resources are created here.

Kept free of provider SDK imports so a GCP-only program never pays for `pulumi_aws` and vice versa.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LABEL_VALUE = re.compile(r"[^a-z0-9_-]")


@dataclass(frozen=True)
class Ownership:
    """Who owns the resources; becomes GCP labels and AWS tags on everything (the tagging policies check them)."""

    team: str
    cost_center: str
    environment: str
    workload: str
    # An ephemeral stack's expiry (accelfit:expiresAt, accelfit.ephemeral): labelled on everything, so what the
    # sweep destroys is visible on each resource in the cloud console and billing export too.
    expires_at: str | None = None

    def gcp_labels(self) -> dict[str, str]:
        """GCP label values: lowercase letters, digits, '_' and '-', at most 63 characters."""
        return {key: _LABEL_VALUE.sub("-", value.lower())[:63] for key, value in self._pairs().items()}

    def aws_tags(self) -> dict[str, str]:
        return dict(self._pairs())

    def _pairs(self) -> dict[str, str]:
        pairs = {"team": self.team, "cost-center": self.cost_center, "environment": self.environment,
                 "workload": self.workload, "managed-by": "accelfit"}
        if self.expires_at:
            pairs["expires-at"] = self.expires_at
        return pairs


def child_name(component_name: str, role: str) -> str:
    """Children are named f"{component}-{role}" so two instances of a component never collide."""
    return f"{component_name}-{role}"
