"""What AWS sells and requires of an EC2 Capacity Block for ML (data/capacity_blocks.yaml, with its sources): the
instance types sold as blocks, the purchase terms, and what a node group in one needs. Pure data; the planner reads
which types a block can be bought for, pricing reads the purchase terms, and the node-group checks
(accelfit/cloudrules/aws/instance_rules.py) read what EKS requires."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from accelfit.yamlio import read_package_yaml

_DATA = Path(__file__).parent / "data" / "capacity_blocks.yaml"


@functools.cache
def capacity_block_rules() -> dict[str, Any]:
    return read_package_yaml(_DATA)
