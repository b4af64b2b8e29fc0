"""How long an EC2 Capacity Block for ML a run needs, in the lengths AWS sells: 1-14 days in 1-day steps, then
7-day steps up to 182 days (accelfit/clouds/data/capacity_blocks.yaml, with its source). A block bills
every hour of its length up front, so a 9.2-day run pays for a 10-day block and a 15-day run for a 21-day one.

Used by the planner (a capacity-block offer is priced for its block) and by the preview pricing (a node group with
capacity type CAPACITY_BLOCK), so the plan and the preview price the same block. Pure: no Pulumi.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from accelfit.clouds.aws_capacity_blocks import capacity_block_rules

HOURS_PER_DAY = 24.0


@dataclass(frozen=True)
class BlockLength:
    days: int
    reason: str  # why this length: the run's days rounded up to the step AWS sells

    @property
    def hours(self) -> float:
        return self.days * HOURS_PER_DAY


class BlockTooLong(ValueError):
    """The run is longer than the longest block AWS sells."""


def purchase_rules() -> dict[str, Any]:
    purchase: dict[str, Any] = capacity_block_rules()["purchase"]  # the sourced file's purchase mapping
    return purchase


def block_for(run_hours: float) -> BlockLength:
    """The shortest block that holds `run_hours`; BlockTooLong when none does."""
    rules = purchase_rules()
    days = max(1, math.ceil(run_hours / HOURS_PER_DAY - 1e-9))
    if days <= rules["daily_step_max_days"]:
        return BlockLength(days, f"{days}-day block (1-day steps up to {rules['daily_step_max_days']} days; the run "
                                 f"takes {run_hours / HOURS_PER_DAY:.1f} days)")
    step = rules["weekly_step_days"]
    weeks = math.ceil(days / step) * step
    if weeks > rules["max_days"]:
        raise BlockTooLong(f"the run needs {days} days and the longest Capacity Block is {rules['max_days']} days")
    return BlockLength(weeks, f"{weeks}-day block ({step}-day steps above {rules['daily_step_max_days']} days; "
                              f"the run takes {days} days)")


def max_instances_per_block() -> int:
    return int(purchase_rules()["max_instances_per_block"])
