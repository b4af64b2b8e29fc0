"""Pure FSx for Lustre PERSISTENT_2 size rules, shared by the plan check and the component.

Sizes: https://docs.aws.amazon.com/fsx/latest/LustreGuide/managing-storage-capacity.html
Throughput tiers (MB/s per TiB): https://docs.aws.amazon.com/fsx/latest/LustreGuide/performance.html
"""

from __future__ import annotations

PERSISTENT_2_THROUGHPUTS = (125, 250, 500, 1000)
SMALLEST_GIB = 1200
CAPACITY_STEP_GIB = 2400


def valid_capacity_gib(capacity_gib: int) -> bool:
    """1,200 GiB, or a multiple of 2,400 GiB."""
    return capacity_gib == SMALLEST_GIB or (capacity_gib > 0 and capacity_gib % CAPACITY_STEP_GIB == 0)


def nearest_valid_capacity_gib(capacity_gib: int) -> int:
    """The smallest valid size at least as large as `capacity_gib`."""
    if capacity_gib <= SMALLEST_GIB:
        return SMALLEST_GIB
    return -(-capacity_gib // CAPACITY_STEP_GIB) * CAPACITY_STEP_GIB
