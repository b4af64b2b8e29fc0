"""Whether a lock is required: one reading of `<project>:requireLock` and `ACCELFIT_LOCKED` for every command and
for the Pulumi program, so `check`, `plan`, `lock`, `preview --locked` and `pulumi up` never disagree.

Before this, `preview --locked` read ACCELFIT_LOCKED through click (which takes `on`, `y`, ` 1`) while the program
took only `1`, `true`, `yes`: with ACCELFIT_LOCKED=on, CI's preview enforced the lock and `pulumi up` did not. And
`requireLock: maybe` passed check, plan and lock, then failed inside the program with a traceback.

- ACCELFIT_LOCKED (an environment variable, set by CI): true for 1, true, t, yes, y, on; false for 0, false, f, no,
  n, off or empty (case and surrounding spaces ignored, the words click accepts for a flag); anything else is an
  error naming the variable.
- `<project>:requireLock` (stack config): a YAML boolean, or the text true/false as the Pulumi CLI passes a
  boolean to the program (any case); anything else (maybe, 1, a list) is an error naming the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from accelfit.errors import InputError, problem

LOCKED_ENV = "ACCELFIT_LOCKED"
TRUE_WORDS = frozenset({"1", "true", "t", "yes", "y", "on"})
FALSE_WORDS = frozenset({"0", "false", "f", "no", "n", "off", ""})


def env_lock_required(environ: Mapping[str, str] | None = None) -> bool:
    """ACCELFIT_LOCKED read as a boolean; InputError (exit 2) for a value that is not one."""
    raw = (os.environ if environ is None else environ).get(LOCKED_ENV, "")
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InputError([problem(None, LOCKED_ENV, "the environment variable is not a boolean",
                              f"set {LOCKED_ENV}=1 to require the lock, or unset it (or 0)", raw)])


def config_lock_required(value: Any, source: str | None, field: str) -> bool:
    """`<project>:requireLock` read as a boolean (None: not set); InputError naming the field otherwise."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InputError([problem(source, field, "must be true or false", "write `true` or `false` (a YAML boolean)",
                              value)])


def lock_required(config_value: Any, source: str | None, field: str,
                  environ: Mapping[str, str] | None = None) -> bool:
    """The stack's requireLock or ACCELFIT_LOCKED; both are checked, so a bad value of either is reported."""
    from_config = config_lock_required(config_value, source, field)
    return env_lock_required(environ) or from_config
