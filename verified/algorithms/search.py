"""Ground truth for the permi model: the shortest sequence of ``mov``s and
``perm``s (<= 5 registers) that implements a parallel move, found by an
iterative-deepening search through the one interpreter
(``core.semantics.step``) and judged by ``core.oracle.implements``.  It is
independent of the theory in ``greedy.py`` and ``copyset.py``, which the
tests measure against it.
"""

from __future__ import annotations

import itertools
from typing import Sequence

from ..core.oracle import check_contract, implements
from ..core.semantics import MAX_PERM, Location, Mov, Operation, ParallelMove, Perm, operation, step


def _all_ops(universe: Sequence[Location]) -> list[Operation]:
    """Every mov and every perm (a derangement of 2..5 registers) over
    ``universe`` (perms with fixed points are smaller perms)."""
    ops: list[Operation] = [Mov(d, s) for d in universe for s in universe if d != s]
    for k in range(2, min(MAX_PERM, len(universe)) + 1):
        for subset in itertools.combinations(universe, k):
            for image in itertools.permutations(subset):
                if any(a == b for a, b in zip(subset, image)):
                    continue
                # content of subset[i] goes to image[i]
                ops.append(operation(Perm(tuple(zip(image, subset)))))
    return ops


_OPS_CACHE: dict[tuple, list[Operation]] = {}


def search_optimum(
    pm: ParallelMove, preserve: str = "loops", max_len: int = 8
) -> int | None:
    """The length of ``search_sequence``'s answer (None if longer than
    ``max_len``): the brute-force optimum the DP is measured against."""
    found = search_sequence(pm, preserve, max_len)
    return None if found is None else len(found)


def search_sequence(
    pm: ParallelMove, preserve: str = "loops", max_len: int = 8
) -> list[Operation] | None:
    """A shortest sequence of ``mov``s and ``perm``s (<= 5
    registers) over the register file and the temporaries that implements
    ``pm`` under ``preserve`` (``oracle.implements(pm, ops, "permi",
    preserve)``), or None if none has length <= ``max_len``.

    Independent of the theory: iterative deepening (IDA*) over all
    operations, run with ``semantics.step``.  Sound pruning only:
    * a state is keyed by the values that some destination still needs
      (other contents can never matter); a key already reached at a smaller
      or equal depth in this iteration is not expanded again;
    * a needed value held by no register is a dead end;
    * lower bound h: each mov raises the multiplicity of one value by one,
      so at least sum_x max(0, need(x) - count(x)) movs remain; each
      operation writes <= 5 registers and a mov only 1, so with cb that
      bound and w the wrong destinations, h = cb + ceil(max(0, w - cb) / 5);
    * a mov of an unneeded value, and an operation that leaves the key
      unchanged, are skipped (they cannot help).
    Postcondition (asserted): the sequence found implements ``pm``."""
    check_contract(preserve)
    want: dict[Location, Location] = dict(pm.source_of)
    if preserve == "all":
        for u in pm.locations():
            want.setdefault(u, u)
    universe = tuple(pm.locations()) + tuple(pm.temps)
    key_ = tuple(universe)
    if key_ not in _OPS_CACHE:
        _OPS_CACHE.clear()
        _OPS_CACHE[key_] = _all_ops(universe)
    all_ops = _OPS_CACHE[key_]
    needed = set(want.values())
    need: dict[Location, int] = {}
    for x in want.values():
        need[x] = need.get(x, 0) + 1
    dests = list(want.items())

    def key(state: dict) -> tuple:
        return tuple(
            v if v in needed else None
            for v in (state.get(r, r) for r in universe)
        )

    def h(state: dict) -> int | None:
        count: dict[Location, int] = {}
        for r in universe:
            v = state.get(r, r)
            if v in needed:
                count[v] = count.get(v, 0) + 1
        cb = 0
        for x, n in need.items():
            c = count.get(x, 0)
            if c == 0:
                return None
            if n > c:
                cb += n - c
        wrong = sum(1 for d, s in dests if state.get(d, d) != s)
        return cb + -(-max(0, wrong - cb) // MAX_PERM)

    start: dict = {}
    h0 = h(start)
    if h0 is None:
        return None

    path: list[Operation] = []

    def dfs(state: dict, g: int, bound: int, seen: dict) -> bool:
        hs = h(state)
        if hs is None or g + hs > bound:
            return False
        if hs == 0:  # h == 0 iff no destination is wrong
            return True
        k = key(state)
        if seen.get(k, bound + 1) <= g:
            return False
        seen[k] = g
        for op in all_ops:
            if isinstance(op, Mov):
                v = state.get(op.src, op.src)
                if v not in needed or state.get(op.dst, op.dst) == v:
                    continue
            child = dict(state)
            step(child, op)
            if key(child) == k:
                continue
            path.append(op)
            if dfs(child, g + 1, bound, seen):
                return True
            path.pop()
        return False

    for bound in range(h0, max_len + 1):
        if dfs(start, 0, bound, {}):
            verdict = implements(pm, path, "permi", preserve)
            assert verdict.ok and len(path) == bound, verdict.reason
            return list(path)
    return None
