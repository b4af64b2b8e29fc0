"""Rules EC2 and EKS enforce on a node group's instance type that the SDK types do not carry: the EFA layout
per type (data/efa_layouts.yaml) and what a Capacity Block needs (accelfit/clouds/data/capacity_blocks.yaml, read
through accelfit.clouds.aws_capacity_blocks, which the planner reads too). Sourced, dated; pure, no Pulumi.

Each check returns (field, message, fix, value) tuples so the plan check and the component's own argument
check report them under their own field paths.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.yamlio import read_package_yaml
from accelfit.clouds.aws_capacity_blocks import capacity_block_rules
from accelfit.cloudrules.aws.efa import Layout

DATA = Path(__file__).parent / "data"

Finding = tuple[str, str, str, Any]


@dataclass(frozen=True)
class EfaLayoutRule:
    instance_type: str
    network_cards: int
    efa_interfaces: int
    layout: Layout
    source: str


def _load(name: str) -> dict[str, Any]:
    return read_package_yaml(DATA / name)


@functools.cache
def efa_layouts() -> dict[str, EfaLayoutRule]:
    return {name: EfaLayoutRule(instance_type=name, **row)
            for name, row in _load("efa_layouts.yaml")["instance_types"].items()}


def efa_findings(instance_type: str, efa_interfaces: int) -> list[Finding]:
    """EFA on a type without a sourced layout, more EFAs than cards, or a partial count on a multi-card type
    (NCCL expects every card's EFA: fewer leaves GPUs without their rail)."""
    if efa_interfaces == 0:
        return []
    rule = efa_layouts().get(instance_type)
    if rule is None:
        return [("efa_interfaces", f"no sourced EFA layout for {instance_type}",
                 "use a type listed in accelfit/cloudrules/aws/data/efa_layouts.yaml or add its row with a source",
                 efa_interfaces)]
    if efa_interfaces != rule.efa_interfaces:
        return [("efa_interfaces", f"{instance_type} has {rule.network_cards} network card(s) and takes "
                 f"{rule.efa_interfaces} EFA interface(s), one per card", f"set {rule.efa_interfaces}",
                 efa_interfaces)]
    return []


def capacity_block_findings(instance_type: str, capacity_block: bool, spot: bool,
                            reservation_id: str | None) -> list[Finding]:
    if not capacity_block:
        return []
    data = capacity_block_rules()
    findings: list[Finding] = []
    if instance_type not in data["instance_types"]:
        findings.append(("capacity_block", f"{instance_type} is not sold as an EC2 Capacity Block",
                         f"use one of {', '.join(data['instance_types'])}, or an On-Demand Capacity Reservation",
                         instance_type))
    if spot and not data["rules"]["spot_allowed"]:
        findings.append(("spot", "a Capacity Block is On-Demand capacity; Spot cannot launch into it",
                         "drop spot", spot))
    if data["rules"]["reservation_target_required"] and not reservation_id:
        findings.append(("capacity_block", "a Capacity Block node group needs the block's reservation id",
                         "set the reservation to the block's cr-... id", None))
    return findings
