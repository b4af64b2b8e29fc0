"""Every shipped stack's preview document, built once per test process (the ordering, chart-values and schema
checks all read them)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "preview"))

from test_preview_stack import with_secrets_set  # noqa: E402

STACKS = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                for path in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@functools.cache
def stack_document(stack: str) -> dict[str, Any]:
    from accelfit.preview.run import preview_stack

    return preview_stack(stack, with_secrets_set(stack)).document
