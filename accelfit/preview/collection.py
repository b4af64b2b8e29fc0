"""The cyclic garbage collector paused while a preview builds, prices and checks its resources.

A preview allocates some 30 objects per recorded resource (outputs, futures, tasks, protobuf values) and frees
almost all of them by reference counting. Python's collector still walks the growing heap every time enough
objects were allocated: at 1,000 servers (3,000 resources) about a third of the preview went to collections
that found next to nothing, and each full one walks everything built so far. Paused, memory stays the same
(benchmarks/bench_baremetal.py measures both) and the cycles that do form are collected once afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """Automatic collection off for the block; restored (and not turned on if it was off) afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
