"""Build a JSON document once per test run, whatever the number of test processes (`pytest -n N`).

`once(name, build)` returns what `build()` returned, as JSON reads it back: the first process to ask builds it and
writes it under the run's shared folder (tests/conftest.py), the others wait on a lock for that name and read it.
Every process gets the same JSON-read value, so no test can see a tuple in one process and a list in another. With
no shared folder (a test file run on its own outside pytest), it simply builds.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHARED_DIR_ENV = "ACCELFIT_TEST_SHARED_DIR"


def once(name: str, build: Callable[[], Any]) -> Any:
    shared = os.environ.get(SHARED_DIR_ENV)
    if not shared:
        return json.loads(json.dumps(build()))
    safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", name)
    folder = Path(shared) / "once"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe}.json"
    with open(folder / f"{safe}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when build() raises
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
        text = json.dumps(build())
        temporary = folder / f".{safe}.{os.getpid()}.tmp"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    return json.loads(text)
