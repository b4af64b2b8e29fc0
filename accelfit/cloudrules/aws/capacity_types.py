"""How an EKS managed node group is told the buying model its nodes are obtained under: its capacityType, "ON_DEMAND |
SPOT | CAPACITY_BLOCK" (https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html; Capacity
Blocks: https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html; the same three members in
https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_eks.CapacityType.html, read 2026-11-29). An On-Demand
Capacity Reservation is ON_DEMAND, targeted from the launch template instead. One table, read both ways: the node
group component writes it (components/aws/node_settings.py) and the preview's pricer reads the model back from it
(accelfit/pricing/pricers/aws.py), so what is built and what is priced cannot drift apart."""

from __future__ import annotations

from accelfit.buying import buying_model

ON_DEMAND = "ON_DEMAND"
_CAPACITY_TYPES = {"on-demand": ON_DEMAND, "spot": "SPOT", "capacity-block": "CAPACITY_BLOCK"}


def capacity_type(buying: str) -> str:
    """The capacityType of a pool on `buying` (a held reservation and a commitment's pools run ON_DEMAND)."""
    return _CAPACITY_TYPES.get(buying_model(buying).pool_model, ON_DEMAND)


def buying_of_capacity_type(value: str) -> str:
    """The buying model a rendered capacityType names (unset or unknown: on demand)."""
    return next((model for model, written in _CAPACITY_TYPES.items() if written == value.upper()), "on-demand")
