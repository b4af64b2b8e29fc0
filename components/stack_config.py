"""Stack config as the program reads it, in the form the stack file holds it, for the pure checks in
accelfit.stackrules (which `accelfit check` runs on the stack file itself)."""

from __future__ import annotations

import json
from typing import Any

import pulumi


def stack_value(key: str) -> Any:
    """The project's config value `key`: None when unset, else the text, or the list or mapping the CLI sends as
    JSON text (`Config.get_object` would refuse a plain word such as `public`)."""
    raw = pulumi.Config().get(key)
    if raw is None or not raw.lstrip().startswith(("[", "{")):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
