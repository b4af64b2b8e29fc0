"""Who reaches a GKE control plane (`accelfit:controlPlane`: {authorizedCidrs: [CIDR, ...], dnsEndpoint: true|false}):
the one check of the setting, run by `accelfit check`/`plan`/`lock` (the stack rules) and by the GKE components
(components/gcp/stack.py `control_plane_access`). Pure."""

from __future__ import annotations

import ipaddress
from typing import Any

from accelfit.errors import Problem, problem

KEY = "controlPlane"


def _is_cidr(text: str) -> bool:
    try:
        ipaddress.ip_network(text)
    except ValueError:
        return False
    return True


def control_plane_problems(raw: Any, field: str = "accelfit:controlPlane", source: str = "stack") -> list[Problem]:
    """Every problem with the setting's value (None: not set, the defaults)."""
    if raw is None:
        return []
    if not isinstance(raw, dict) or set(raw) - {"authorizedCidrs", "dnsEndpoint"}:
        return [problem(source, field, "expected a mapping with authorizedCidrs and/or dnsEndpoint",
                        "e.g. controlPlane: {authorizedCidrs: [203.0.113.0/24], dnsEndpoint: true}", raw)]
    cidrs = raw.get("authorizedCidrs", [])
    problems = []
    if not isinstance(cidrs, list) or not all(isinstance(cidr, str) and _is_cidr(cidr) for cidr in cidrs):
        problems.append(problem(source, f"{field}.authorizedCidrs", "must be a list of CIDR ranges",
                                "e.g. [203.0.113.0/24, 198.51.100.7/32]", cidrs))
    dns = raw.get("dnsEndpoint", False)
    if not isinstance(dns, bool):
        problems.append(problem(source, f"{field}.dnsEndpoint", "must be true or false", "write true or false",
                                dns))
    return problems
