"""One bounded memo insert, shared by every memo of line and operation texts
(``tools.wire``, ``tools.conform``): a memo keyed by what a partner sends
must not grow without bound on a long run of distinct lines."""

from __future__ import annotations

from typing import TypeVar

V = TypeVar("V")


def remember(memo: dict, key: object, value: V, size: int) -> V:
    """Store ``value`` under ``key`` in ``memo`` and return it; a memo
    already holding ``size`` entries is emptied first (the simplest bound:
    the entries that matter come back at once, and none is ever stale,
    since every memo here keeps a pure function of its key)."""
    if len(memo) >= size:
        memo.clear()
    memo[key] = value
    return value
