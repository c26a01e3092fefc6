"""Leroy et al.'s parallel move: the recursive post-order algorithm of
Rideau, Serpette and Leroy, "Tilting at windmills with Coq" (page 5; also
the write-up "Lowering parallel moves"), the one CompCert proves in
``lib/Parmov.v``, and its iterative twin.

Contract (the ``@algorithm`` lines): temp model, one temporary (the first
declared, see ``temporary.py``); emits only original moves, ``src -> temp``
and ``temp -> dst``; length == non-loop moves + cycles.  A move with a cycle
and no temporary is outside the precondition (PreconditionError).

* ``leroy``: recursive; a chain deeper than Python's recursion limit is
  refused with a clear error (use ``leroy-iterative``).
* ``leroy_iterative``: the same traversal with an explicit stack, so a
  chain of 10^5 moves works.  Same output.

Proof: ``proofs/leroy.py`` (CompCert's rules nop/start/push/loop/pop/last).
"""

from __future__ import annotations

import sys
from typing import Optional

from ..core.semantics import Location, Mov, Operation, ParallelMove, PreconditionError
from .optimum import moves_plus_cycles
from .registry import algorithm
from .temporary import TempFor, originals_or_temps, temp_function

TO_MOVE, BEING_MOVED, MOVED = 0, 1, 2


@algorithm(
    "leroy", model="temp", bound=moves_plus_cycles, bound_text="non-loop moves + cycles",
    shape=originals_or_temps, proof="proofs/parmove.py",
    summary="Leroy et al. recursive post-order, one temporary",
    source="Rideau, Serpette, Leroy, \"Tilting at windmills with Coq\" (JAR 2008), "
           "CompCert lib/Parmov.v")
def leroy(pm: ParallelMove, temp: Optional[TempFor] = None) -> list[Operation]:
    """Rideau-Serpette-Leroy parallel move (recursive), one temporary.

    Requires distinct destinations and a temporary when the move has a
    cycle; emits only original moves and moves to/from the temporary.
    """
    tmp = temp_function(pm, temp)
    dst = [d for d, _ in pm.moves]
    src = [s for _, s in pm.moves]
    n = len(dst)
    status = [TO_MOVE] * n
    readers = _readers(src)  # readers[loc] = indices j with src[j] == loc
    out: list[Operation] = []

    def move_one(i: int) -> None:
        if src[i] == dst[i]:
            return
        status[i] = BEING_MOVED
        for j in readers.get(dst[i], ()):
            if src[j] != dst[i]:  # j's source was redirected to a temporary
                continue
            if status[j] == TO_MOVE:
                move_one(j)
            elif status[j] == BEING_MOVED:  # the walk closed a cycle
                t = tmp(src[j])
                out.append(Mov(t, src[j]))
                src[j] = t
        out.append(Mov(dst[i], src[i]))
        status[i] = MOVED

    try:
        for i in range(n):
            if status[i] == TO_MOVE:
                move_one(i)
    except RecursionError:
        raise PreconditionError(
            f"a chain of {n} moves is deeper than Python's recursion limit "
            f"({sys.getrecursionlimit()}); use leroy-iterative (`verified solve -a "
            f"leroy-iterative`), the same algorithm without recursion"
        ) from None
    return out


def _readers(src: list[Location]) -> dict[Location, list[int]]:
    """Replaces the paper's linear scan for "moves whose source is dst[i]"
    (same visiting order: increasing index), so the algorithm is linear."""
    readers: dict[Location, list[int]] = {}
    for j, s in enumerate(src):
        readers.setdefault(s, []).append(j)
    return readers


@algorithm(
    "leroy-iterative", model="temp", bound=moves_plus_cycles,
    bound_text="non-loop moves + cycles", shape=originals_or_temps, proof="proofs/parmove.py",
    summary="the same with an explicit stack (no recursion limit)",
    source="Rideau, Serpette, Leroy (as leroy), iterative")
def leroy_iterative(pm: ParallelMove, temp: Optional[TempFor] = None) -> list[Operation]:
    """``leroy`` with an explicit stack instead of recursion.

    Contract as leroy, and the result equals leroy's whenever leroy returns.
    """
    tmp = temp_function(pm, temp)
    dst = [d for d, _ in pm.moves]
    src = [s for _, s in pm.moves]
    n = len(dst)
    status = [TO_MOVE] * n
    readers = _readers(src)
    out: list[Operation] = []
    for root in range(n):
        if status[root] != TO_MOVE or src[root] == dst[root]:
            continue
        # frame = [i, position in readers of dst[i]]
        status[root] = BEING_MOVED
        stack = [[root, 0]]
        while stack:
            frame = stack[-1]
            i, k = frame
            rs = readers.get(dst[i], ())
            if k < len(rs):
                frame[1] = k + 1
                j = rs[k]
                if src[j] != dst[i]:
                    continue
                if status[j] == TO_MOVE and src[j] != dst[j]:
                    status[j] = BEING_MOVED
                    stack.append([j, 0])
                elif status[j] == BEING_MOVED:
                    t = tmp(src[j])
                    out.append(Mov(t, src[j]))
                    src[j] = t
                continue
            out.append(Mov(dst[i], src[i]))
            status[i] = MOVED
            stack.pop()
    return out
