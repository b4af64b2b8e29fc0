"""One copy in memory of each long text a preview carries. Pure (no Pulumi import).

A 10,000-server site has 10,000 host preparation scripts of some 30 kB, each the `create` and the `update` of a
command; every trip through a protobuf Struct (the mock monitor, the policy runner's wire form) makes new copies.
Equal strings are replaced by one of them: the values are the same, the memory is not paid again.
"""

from __future__ import annotations

from typing import Any

# Shorter strings are cheap to copy and often interned already; hashing them all would cost more than it saves.
SHARED_TEXT_MIN_CHARS = 256


def with_shared_texts(value: Any, texts: dict[str, str]) -> Any:
    """`value` with each long string replaced by the equal one already in `texts` (added when new); dicts and
    lists rebuilt, anything else (numbers, resource references, assets) kept as it is."""
    if isinstance(value, str):
        return texts.setdefault(value, value) if len(value) >= SHARED_TEXT_MIN_CHARS else value
    if isinstance(value, dict):
        return {key: with_shared_texts(item, texts) for key, item in value.items()}
    if isinstance(value, list):
        return [with_shared_texts(item, texts) for item in value]
    return value


def long_texts(value: Any, texts: dict[str, str] | None = None) -> dict[str, str]:
    """Every long string in `value` (dicts, lists and tuples walked), as a `texts` table for `with_shared_texts`."""
    texts = {} if texts is None else texts
    if isinstance(value, str):
        if len(value) >= SHARED_TEXT_MIN_CHARS:
            texts.setdefault(value, value)
    elif isinstance(value, dict):
        for item in value.values():
            long_texts(item, texts)
    elif isinstance(value, (list, tuple)):
        for item in value:
            long_texts(item, texts)
    return texts
