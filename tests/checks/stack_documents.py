"""Every shipped stack's preview document, built once per test run (the ordering, chart-values, schema and
capacity-group checks all read them, some while collecting): once per process, and across the processes of
`pytest -n N` through tests/shared_once.py."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "preview"))
sys.path.insert(0, str(ROOT / "tests"))

from shared_once import once  # noqa: E402
from test_preview_stack import with_secrets_set  # noqa: E402

STACKS = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                for path in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@functools.cache
def stack_document(stack: str) -> dict[str, Any]:
    from accelfit.preview.run import preview_stack

    return once(f"stack-document-{stack}", lambda: preview_stack(stack, with_secrets_set(stack)).document)
