"""PHI instructions to mov/xchg (a 2007 write-up): the algorithm as
published, kept because it is wrong, and a corrected version that is
optimal in the swap model (non-loop moves - cycles).

The published pseudo code (transcribed in ``xchg_as_published``) keeps
``edges[loc]`` = pending reads of loc and ``alias[v]`` = where v's value
lives after earlier exchanges, and processes a worklist:

    if edges[dst] > 0: xchg(dst, src); alias[dst] = src
    else:              mov(dst, src)
    --edges[src]

It goes wrong in three ways that the oracle finds (the tests in
``tests/algorithms/`` shrink the counterexample to the fewest registers):

1. a phi whose source is not in the "context" (not a destination) is
   emitted as a mov *immediately*, before the worklist, so it can clobber a
   destination whose old value another phi still reads
   (``r2 <- r0, r1 <- r2``: r1 ends with r0's value);
2. an xchg on a tree edge ``dst <- src`` leaves dst's old value in src's
   slot; alias records where dst's value went, but nothing records that
   src's slot no longer holds src's value, so another reader of src (or a
   self-move ``src <- src``) sees the wrong value
   (``r0 <- r0, r1 <- r2, r2 <- r0``);
3. the worklist order is arbitrary, so a mov may be issued into a location
   a later phi still reads.

The corrected ``xchg`` keeps the same two tables but fixes the order: first
every move whose destination nobody still reads (Kahn: the blades, as
movs), then each remaining cycle is unrolled with xchg, following alias.
"""

from __future__ import annotations

from collections import deque
from collections.abc import MutableMapping, MutableSet
from dataclasses import dataclass
from typing import Optional

from ..core.compact import DenseSet, DenseState, OpLog, Pairs
from ..core.semantics import Location, Mov, Operation, ParallelMove, Swap
from .optimum import moves_minus_cycles
from .registry import algorithm


@algorithm(
    "xchg-as-published", model="swap", correct=False, proof="proofs/xchg.py",
    summary="the 2007 PHI-to-mov/xchg algorithm as printed (WRONG, kept on purpose)",
    source="PHI instructions to mov/xchg with an alias table (2007 write-up), literally")
def xchg_as_published(pm: ParallelMove) -> list[Operation]:
    """The 2007 algorithm, literally.  Choices the pseudo code leaves open:
    phis are taken in the parallel move's order; ``worklist.add`` appends
    and ``worklist.pop`` removes the most recently added phi (a stack, the
    usual meaning of pop).

    No postcondition: it is WRONG on purpose (see the module docstring);
    ``verified check`` and the tests show how.
    """
    context = {d for d, _ in pm.moves}  # every slot that is a phi destination
    edges: dict[Location, int] = {}
    alias: dict[Location, Location] = {}
    worklist: list[tuple[Location, Location]] = []
    out: list[Operation] = []
    for dst, src in pm.moves:
        if src in context:
            edges[src] = edges.get(src, 0) + 1
            alias[src] = src
            alias[dst] = dst
            worklist.append((dst, src))
        else:
            out.append(Mov(dst, src))
    while worklist:
        p_dst, p_src = worklist.pop()
        dst = p_dst
        src = alias[p_src]
        if dst != src:
            if edges.get(dst, 0) > 0:
                out.append(Swap(dst, src))
                alias[dst] = src
            else:
                out.append(Mov(dst, src))
            edges[src] = edges.get(src, 0) - 1
    return out


@dataclass(frozen=True)
class Step:
    """A point of ``xchg``'s run where its proof (``proofs/xchg.py``,
    section 3) has a state, as the ``trace=`` hook reports it.  ``label``:
    "start" (before the ready loop), "kahn" (move ``at`` written from the
    deque), "kahn_end" (``reader`` built), "between" (top of the for loop
    at ``d0``), "walk" (each test of the while loop: ``d0``, current
    ``at``), "done" (after the for loop).  The state after that point:
    ``pending``, the ``ready`` deque, ``edges``, ``alias``, ``reader`` and
    ``emitted`` = operations output so far."""

    label: str
    at: Optional[Location]
    d0: Optional[Location]
    pending: frozenset
    ready: tuple
    edges: dict
    alias: dict
    reader: dict
    emitted: int


@algorithm(
    "xchg", model="swap", bound=moves_minus_cycles, bound_text="non-loop moves - cycles",
    optimal=True, proof="proofs/xchg.py",
    summary="corrected PHI-to-mov/xchg, optimal: non-loop moves - cycles",
    source="the 2007 write-up, corrected: Kahn on the blades, then each cycle with xchg")
def xchg(pm: ParallelMove, trace: Optional[list[Step]] = None) -> list[Operation]:
    """Corrected PHI-to-mov/xchg, optimal in the swap model.

    1. Kahn over the transfer graph: a move whose destination no pending
       move reads is emitted as ``mov dst, alias[src]`` (blades first).
    2. What remains is a set of disjoint cycles, each location read by
       exactly one pending move.  Walk each cycle from any move
       ``c1 <- c0``: ``xchg c1, alias[c0]`` puts c0's value home in c1 and
       c1's old value where c0's was, so ``alias[c1] = alias[c0]``; the
       next move ``c2 <- c1`` reads it there.  The cycle's last move finds
       its value already home (alias[src] == dst) and is dropped, as the
       published algorithm intended ("a previous exchange might have
       obsoleted this one").

    Destinations are distinct (ParallelMove.make checks it); optimal in the
    swap model (lower bound proved in proofs/optimality.py).  ``trace``: a
    list to which each proof step appends a ``Step`` (None: nothing is
    recorded and the output is the same).
    """
    moves = pm.non_loop_moves
    # dst -> src of every move (a self-move's entry is never looked up here)
    source_of = pm.source_of
    # The tables: dicts and a set, or for a huge request in compact form
    # (core.compact: every location a register number) the same tables in
    # arrays, a few bytes a register instead of about a hundred
    edges: MutableMapping[Location, int]
    alias: MutableMapping[Location, Location]
    reader: MutableMapping[Location, Location]
    pending: MutableSet[Location]
    out: list[Operation]
    if isinstance(moves, Pairs):
        size = moves.bound()
        edges, alias, reader = DenseState(size), DenseState(size), DenseState(size)
        pending = DenseSet(size, (d for d, _ in moves))
        out = OpLog({"mov": Mov, "swap": Swap})  # type: ignore[assignment]  # a list's stand-in
    else:
        edges, alias, reader = {}, {}, {}
        pending = {d for d, _ in moves}
        out = []
    for _, s in moves:
        edges[s] = edges.get(s, 0) + 1

    def where(v: Location) -> Location:
        return alias.get(v, v)

    ready = deque(d for d, _ in moves if edges.get(d, 0) == 0)

    def note(label: str, at: Optional[Location] = None, d0: Optional[Location] = None) -> None:
        trace.append(Step(label, at, d0, frozenset(pending), tuple(ready), dict(edges),
                          dict(alias), dict(reader), len(out)))

    if trace is not None:
        note("start")
    while ready:
        d = ready.popleft()
        s = source_of[d]
        out.append(Mov(d, where(s)))
        pending.discard(d)
        edges[s] -= 1
        if edges[s] == 0 and s in pending:
            ready.append(s)
        if trace is not None:
            note("kahn", d)
    # Only cycles remain: each pending destination is read by exactly one
    # pending move (its successor on the cycle).
    for d in pending:
        reader[source_of[d]] = d
    if trace is not None:
        note("kahn_end")
    for d0, _ in moves:
        if trace is not None:
            note("between", d0, d0)
        if d0 not in pending:
            continue
        d = d0
        if trace is not None:
            note("walk", d, d0)
        while d in pending:
            s = source_of[d]
            pending.discard(d)
            if where(s) != d:
                out.append(Swap(d, where(s)))
                alias[d] = where(s)
            d = reader[d]
            if trace is not None:
                note("walk", d, d0)
    if trace is not None:
        note("done")
    return out
