"""The cyclic garbage collector paused while a preview builds, prices and checks its resources.

A preview allocates some 30 objects per recorded resource (outputs, futures, tasks, protobuf values) and frees
almost all of them by reference counting. Python's collector still walks the growing heap every time enough
objects were allocated: at 1,000 servers (3,000 resources) about a third of the preview went to collections
that found next to nothing, and each full one walks everything built so far. Paused, memory stays the same
(benchmarks/bench_baremetal.py measures both); the cycles that do form are found by a later full collection.
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
        # What the block made goes straight to the oldest generation (freeze then unfreeze: no object is visited,
        # the allocation counts start again at zero). Re-enabled with its counts high, the collector's very next
        # collection would walk all of it (10,000 servers: 10-18 s) to find little; in the oldest generation it
        # is walked only when the heap has grown by a quarter again, and any cycles in it are found then.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()
