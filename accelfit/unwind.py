"""Let SIGTERM and SIGHUP unwind the stack (running `finally` blocks) instead of killing the process on the spot.

Used where a kill in the middle would leave something behind: a temporary copy of a user's file
(`accelfit.atomicwrite`), a registered git worktree and its preview child (`accelfit.diff.at_revision`). Inside the
block the two signals raise; after the cleanup has run, the previous handlers are restored and the signal is
delivered again, so the process still ends the way the sender asked (SIGINT already raises KeyboardInterrupt).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import NoReturn


class _Interrupted(BaseException):
    """SIGTERM or SIGHUP arrived inside `signals_unwind`: unwind (cleanup runs), then exit by that signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def signals_unwind() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into an exception while the block runs (main thread only, where Python delivers
    signals); restore the previous handlers afterwards and re-deliver a signal that arrived."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}

    def unwind(signum: int, _frame: FrameType | None) -> NoReturn:
        raise _Interrupted(signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous[signum] = signal.signal(signum, unwind)
    caught = None
    try:
        yield
    except _Interrupted as interrupted:
        caught = interrupted.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if caught is not None:
        os.kill(os.getpid(), caught)  # the previous handler (default: terminate) now runs
        raise SystemExit(128 + caught)
