"""Which inputs of one resource changed, as dotted paths with their old and new values.

Objects are compared key by key; lists of the same length element by element (so a changed taint reads
`nodeConfig.taints[0].value`); a list that grew or shrank is reported whole, because element positions no longer
line up and a whole-list change is what a reviewer needs to see. Missing keys read as `MISSING`, so an input that
is added or dropped shows as `(unset) -> value` or `value -> (unset)`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from accelfit.errors import join_path


class _Missing:
    """An input that is absent on one side (distinct from an explicit null)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def changed_paths(old: Any, new: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Yield (path, old, new) for every leaf that differs, in a stable order (sorted keys, list order)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new)):
            yield from changed_paths(old.get(key, MISSING), new.get(key, MISSING), join_path(path, key))
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (left, right) in enumerate(zip(old, new, strict=True)):
            yield from changed_paths(left, right, join_path(path, index))
        return
    if old != new or (type(old) is not type(new) and not _same_number(old, new)):
        yield path, old, new


def _same_number(old: Any, new: Any) -> bool:
    # 100 and 100.0 are the same input once the engine serialises them; bools are not numbers here.
    numbers = (int, float)
    return (isinstance(old, numbers) and isinstance(new, numbers) and not isinstance(old, bool)
            and not isinstance(new, bool) and old == new)
