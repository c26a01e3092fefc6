"""The windmill family: Kahn's algorithm on the windmills of the transfer
graph (blades first, then each axle), in the temp model with one temporary.

* ``windmill``: when nothing is ready, every pending move lies on an axle:
  save one axle value in the temporary, unroll the axle, restore from the
  temporary.  Length: non-loop moves + cycles.
* ``mincopy``: the minimum number of copies with one temporary, non-loop
  moves + bare cycles (Boissinot et al., CGO 2009): a cycle with a blade
  needs no temporary, because the blade already holds a copy of the cycle
  value that would otherwise be lost.  Optimal in the temp model.

Contracts: the ``@algorithm`` lines.  Proof: ``proofs/parmove.py``
(section 3: the step system).  Both take ``trace=``: a list to which each
operation appends a ``Step`` (the step of that system it is, and the state
after it); ``tests/proofs/test_proofs_symbolic.py`` checks through it that
the Z3 step relation maps each state to the next.  With ``trace=None``
(the default) the output is the same and nothing is recorded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Optional

from ..core.graph import TransferGraph, analyse
from ..core.semantics import Location, Mov, Operation, ParallelMove
from .optimum import moves_plus_bare_cycles, moves_plus_cycles
from .registry import algorithm
from .temporary import TempFor, originals_or_temps, temp_function


@dataclass(frozen=True)
class Step:
    """One operation as the ``trace=`` hook reports it: ``label`` "kahn"
    (a ready move into ``at`` written), "start" (the axle starting at ``at``
    = c0 is saved in ``saved``: the temporary, or mincopy's blade copy, no
    operation then), "axle" (the axle's move into ``at`` written).  The
    state after it: ``unwritten`` = every destination of the whole move not
    yet written; in an axle, ``axle`` = its locations c0, c1, ... (c[i+1]
    <- c[i]) and ``hole`` = the axle location the next axle move writes
    (empty / None outside an axle); ``emitted`` = operations output so far."""

    label: str
    at: Location
    unwritten: frozenset
    axle: tuple
    saved: Optional[Location]
    hole: Optional[Location]
    emitted: int


@algorithm(
    "windmill", model="temp", bound=moves_plus_cycles, bound_text="non-loop moves + cycles",
    shape=originals_or_temps, proof="proofs/parmove.py",
    summary="Kahn: blades first, then break each axle with the temporary",
    source="Kahn's algorithm on the windmills (the write-up \"Lowering parallel moves\")")
def windmill(pm: ParallelMove, temp: Optional[TempFor] = None,
             trace: Optional[list[Step]] = None) -> list[Operation]:
    """Blades first, then axles (Kahn's algorithm on the transfer graph).

    A move ``d <- s`` is ready when no pending move still reads ``d``.
    When nothing is ready, every pending move lies on an axle: save one
    axle value in the temporary, unroll the axle, and restore from the
    temporary.  One axle is fully done before the next is broken, so one
    temporary serves all.
    """
    tmp = temp_function(pm, temp)
    out: list[Operation] = []
    unwritten = _unwritten(pm, trace)
    for w in analyse(pm).windmills:
        out += _blades_then_axle(w.moves, w.cycle, tmp, False, trace, unwritten, len(out))
    return out


@algorithm(
    "mincopy", model="temp", bound=moves_plus_bare_cycles,
    bound_text="non-loop moves + bare cycles", optimal=True, proof="proofs/parmove.py",
    summary="minimum copies: non-loop moves + bare cycles (Boissinot et al.)",
    source="Boissinot et al., CGO 2009, Algorithm 1 (derived from the windmill structure)")
def mincopy(pm: ParallelMove, temp: Optional[TempFor] = None,
            preserve: str = "all", trace: Optional[list[Step]] = None) -> list[Operation]:
    """Minimum number of copies with one temporary.

    As ``windmill``, except that an axle with a blade is not broken with the
    temporary: after the blades are done, the blade's root ``x <- c`` (c on
    the axle) already holds c's original value, so the axle unrolls starting
    at c and the last move reads from x instead of c.  Only a bare cycle (no
    blade) costs the extra copy through the temporary.

    This is Boissinot et al.'s result (CGO 2009, Algorithm 1, which tracks
    the same fact with ``loc(a)``: "where a's original value can be read
    now"; a blade copy moves loc(a) off a, so a may be overwritten).  The
    published erratum concerns the printed test on ``loc`` that
    decides whether a to-do destination still needs its cycle broken; we
    did not have the printed paper here to quote it, so this version is
    derived from the windmill structure instead and its bound is checked
    exhaustively and proved in proofs/ (claim "mincopy ...").

    Without a declared temporary, a leaf destination of a blade serves as
    one (see ``_free_leaf``), so mincopy answers every move that has a
    sequence in the temp model (``oracle.optimum``), with exactly the
    optimum's length.  Under ``preserve="loops"`` a register of the declared
    file that no move names is dead, so it serves as the temporary too (the
    "loops" contract's scratch).
    """
    g = analyse(pm)
    windmills = list(g.windmills)
    leaf = None if (temp is not None or pm.temps) else _free_leaf(g)
    dead = None
    if leaf is None and temp is None and not pm.temps and preserve == "loops":
        dead = _dead_register(pm)
    if leaf is not None:
        # No temporary, but a destination nobody reads and outside every
        # cycle: it is free until its own move writes it, so the bare cycles
        # go first, through it (the optimum needs no temporary here).
        tmp: TempFor = lambda _loc: leaf
        windmills.sort(key=lambda w: not w.is_bare_cycle)
    elif dead is not None:
        tmp = lambda _loc: dead
    else:
        tmp = temp_function(pm, temp)
    out: list[Operation] = []
    unwritten = _unwritten(pm, trace)
    for w in windmills:
        out += _blades_then_axle(w.moves, w.cycle, tmp, True, trace, unwritten, len(out))
    return out


def _unwritten(pm: ParallelMove, trace: Optional[list[Step]]) -> Optional[set[Location]]:
    """The destinations not yet written, kept only for the trace."""
    return None if trace is None else {d for d, s in pm.moves if d != s}


def _free_leaf(g: TransferGraph) -> Location | None:
    """A destination that no move reads and that lies on no cycle, if any."""
    for w in g.windmills:
        read = {s for _, s in w.moves}
        for d, _ in w.blades:
            if d not in read:
                return d
    return None


def _dead_register(pm: ParallelMove) -> Location | None:
    """Under "loops": a register of the declared file that no move names
    (dead after the move, unread by it), if any.  O(moves)."""
    if pm.registers is None:
        return None  # the file is the named locations: none is unnamed
    named = set(pm.source_of) | {s for _, s in pm.moves}
    return next((r for r in range(min(pm.registers, len(named) + 1))
                 if r not in named), None)


def _blades_then_axle(
    moves: tuple[tuple[Location, Location], ...],
    cycle: tuple[Location, ...],
    tmp: TempFor,
    reuse_blade: bool,
    trace: Optional[list[Step]] = None,
    unwritten: Optional[set[Location]] = None,
    before: int = 0,
) -> list[Operation]:
    """Sequentialise one windmill (its non-loop moves).  With ``trace``:
    ``unwritten`` is the whole move's unwritten destinations (updated
    here) and ``before`` the operations output before this windmill."""
    out: list[Operation] = []

    def note(label: str, at: Location, axle: tuple = (), saved: Optional[Location] = None,
             hole: Optional[Location] = None) -> None:
        # called only when tracing (a type narrowing for mypyc)
        assert trace is not None and unwritten is not None
        if label != "start":  # a start writes the temporary (or nothing), not ``at``
            unwritten.discard(at)
        trace.append(Step(label, at, frozenset(unwritten), axle, saved, hole,
                          before + len(out)))

    pending_reads: dict[Location, int] = {}
    for _, s in moves:
        pending_reads[s] = pending_reads.get(s, 0) + 1
    source_of = dict(moves)
    # Kahn: ready = destinations no pending move reads
    ready = deque(d for d, _ in moves if pending_reads.get(d, 0) == 0)
    done: set[Location] = set()
    # the blade root on the axle: cycle location c -> a blade destination
    # holding c's original value once it is written
    copy_of: dict[Location, Location] = {}
    on_cycle = set(cycle)
    while ready:
        d = ready.popleft()
        s = source_of[d]
        out.append(Mov(d, s))
        done.add(d)
        if s in on_cycle and d not in on_cycle:
            copy_of.setdefault(s, d)
        pending_reads[s] -= 1
        if pending_reads[s] == 0 and s in source_of and s not in done:
            ready.append(s)
        if trace is not None:
            note("kahn", d)
    if not cycle:
        assert len(done) == len(moves), "a tree is fully sequentialised by Kahn"
        return out
    # Only the axle is left: cycle c[0] -> c[1] -> ... -> c[k-1] -> c[0]
    # (c[i+1] <- c[i]).  Rotate so that c[0] is the location whose value we
    # save (in a blade copy if there is one, else in the temporary); then
    # write c[0], c[k-1], ..., c[1], each from its (still intact) source,
    # and finally c[1] from the saved copy of c[0].
    assert set(cycle) == set(source_of) - done, "only the axle remains"
    k = len(cycle)
    start = 0
    saved: Location | None = None
    if reuse_blade:
        for i, loc in enumerate(cycle):
            if loc in copy_of:
                start, saved = i, copy_of[loc]
                break
    c = cycle[start:] + cycle[:start]
    if saved is None:
        saved = tmp(c[0])
        out.append(Mov(saved, c[0]))
    if trace is not None:
        note("start", c[0], c, saved, c[0])
    for i in range(k - 1, 0, -1):
        # write c[(i+1) % k] from c[i]; c[0] first (its value is saved)
        out.append(Mov(c[(i + 1) % k], c[i]))
        if trace is not None:
            note("axle", c[(i + 1) % k], c, saved, c[i])
    out.append(Mov(c[1], saved))
    if trace is not None:
        note("axle", c[1])
    return out
