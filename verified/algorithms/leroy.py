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

Proof: ``proofs/leroy.py`` (CompCert's rules nop/start/push/loop/pop/last,
proved for every register count).  Both functions take ``trace=``: a list
to which each step appends a ``Step`` (the rule it is, and the state after
it); ``tests/proofs/test_leroy_refinement.py`` checks through it that every
step is one of the proved rules.  With ``trace=None`` (the default) the
output is the same and nothing is recorded.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Optional

from ..core.semantics import Location, Mov, Operation, ParallelMove, PreconditionError
from .optimum import moves_plus_cycles
from .registry import algorithm
from .temporary import TempFor, originals_or_temps, temp_function

TO_MOVE, BEING_MOVED, MOVED = 0, 1, 2


@dataclass(frozen=True)
class Step:
    """One step as the ``trace=`` hook reports it: the rule (CompCert's
    names: nop, start, push, loop, pop, last), the index of the move it
    acts on, and the state after it.  ``stack`` is sigma (indices, bottom
    first); mu is the moves whose status is TO_MOVE; ``src`` holds the
    sources as redirected to the temporary; ``emitted`` = len(output)."""

    rule: str
    move: int
    status: tuple[int, ...]
    src: tuple[Location, ...]
    stack: tuple[int, ...]
    emitted: int


@algorithm(
    "leroy", model="temp", bound=moves_plus_cycles, bound_text="non-loop moves + cycles",
    shape=originals_or_temps, proof="proofs/leroy.py",
    summary="Leroy et al. recursive post-order, one temporary",
    source="Rideau, Serpette, Leroy, \"Tilting at windmills with Coq\" (JAR 2008), "
           "CompCert lib/Parmov.v")
def leroy(pm: ParallelMove, temp: Optional[TempFor] = None,
          trace: Optional[list[Step]] = None) -> list[Operation]:
    """Rideau-Serpette-Leroy parallel move (recursive), one temporary.

    Requires distinct destinations and a temporary when the move has a
    cycle; emits only original moves and moves to/from the temporary.
    ``trace``: see the module docstring.
    """
    tmp = temp_function(pm, temp)
    dst = [d for d, _ in pm.moves]
    src = [s for _, s in pm.moves]
    n = len(dst)
    status = [TO_MOVE] * n
    readers = _readers(src)  # readers[loc] = indices j with src[j] == loc
    out: list[Operation] = []
    stack: list[int] = []  # sigma, kept only for the trace (the recursion is the stack)

    def note(rule: str, i: int) -> None:
        assert trace is not None  # called only when tracing (a type narrowing for mypyc)
        trace.append(Step(rule, i, tuple(status), tuple(src), tuple(stack), len(out)))

    def move_one(i: int) -> None:
        if src[i] == dst[i]:
            status[i] = MOVED
            if trace is not None:
                note("nop", i)
            return
        status[i] = BEING_MOVED
        if trace is not None:
            stack.append(i)
            note("push" if len(stack) > 1 else "start", i)
        for j in readers.get(dst[i], ()):
            if src[j] != dst[i]:  # j's source was redirected to a temporary
                continue
            if status[j] == TO_MOVE:
                move_one(j)
            elif status[j] == BEING_MOVED:  # the walk closed a cycle
                t = tmp(src[j])
                out.append(Mov(t, src[j]))
                src[j] = t
                if trace is not None:
                    note("loop", j)
        out.append(Mov(dst[i], src[i]))
        status[i] = MOVED
        if trace is not None:
            stack.pop()
            note("pop" if stack else "last", i)

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
    bound_text="non-loop moves + cycles", shape=originals_or_temps, proof="proofs/leroy.py",
    summary="the same with an explicit stack (no recursion limit)",
    source="Rideau, Serpette, Leroy (as leroy), iterative")
def leroy_iterative(pm: ParallelMove, temp: Optional[TempFor] = None,
                    trace: Optional[list[Step]] = None) -> list[Operation]:
    """``leroy`` with an explicit stack instead of recursion.

    Contract as leroy, and the result equals leroy's whenever leroy returns
    (and so does the trace).
    """
    tmp = temp_function(pm, temp)
    dst = [d for d, _ in pm.moves]
    src = [s for _, s in pm.moves]
    n = len(dst)
    status = [TO_MOVE] * n
    readers = _readers(src)
    out: list[Operation] = []
    stack: list[list[int]] = []  # frames [i, position in readers of dst[i]]

    def note(rule: str, i: int) -> None:
        assert trace is not None  # called only when tracing (a type narrowing for mypyc)
        trace.append(Step(rule, i, tuple(status), tuple(src),
                          tuple(f[0] for f in stack), len(out)))

    for root in range(n):
        if status[root] != TO_MOVE:
            continue
        if src[root] == dst[root]:
            status[root] = MOVED
            if trace is not None:
                note("nop", root)
            continue
        status[root] = BEING_MOVED
        stack = [[root, 0]]
        if trace is not None:
            note("start", root)
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
                    if trace is not None:
                        note("push", j)
                elif status[j] == BEING_MOVED:
                    t = tmp(src[j])
                    out.append(Mov(t, src[j]))
                    src[j] = t
                    if trace is not None:
                        note("loop", j)
                continue
            out.append(Mov(dst[i], src[i]))
            status[i] = MOVED
            stack.pop()
            if trace is not None:
                note("pop" if stack else "last", i)
    return out
