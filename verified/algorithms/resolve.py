"""``resolve``: the reference resolver for machines (``docs/machines.md``,
section "Resolver").

Input: a machine request (a parallel move over registers, stack slots,
register lists and immediates of one machine, its temporaries and its
contract).  Output: a sequence of ``mov`` / ``swap`` (and, where the
machine has them, ``push`` / ``pop``: every step pops what it pushed)
operations that the machine has, implementing the move, or ``Unsolvable`` (a PreconditionError
whose message starts "no sequence exists") when no legal sequence exists.

How it works (learned from regalloc2's ``moves.rs``, V8's gap resolver and
QBE's ``rega.c``; none of their code is used).  It tracks, per unit, which
original value the unit holds now (``cur``) and which one it must hold at
the end (``goal``: a destination's source value, or under ``"preserve":
"all"`` its own value for every unit that is neither a destination nor a
temporary).  A unit is *pending* while ``cur != goal``.  A value is
*needed* while some pending unit's goal is that value.

Every step is a short list of operations that is emitted only if,
afterwards, THE invariant still holds (``_Run.keeps``; its step lemmas are
proved in ``proofs/resolve.py``): (1) no finished unit is unfinished
(except the units of a register being borrowed, which get a restore job);
(2) every goal value of an unfinished unit is still held by some unit;
(3) every open job can still read its values from named places.  So a
step never loses a value that some goal needs, and a scratch register that
parks a cycle's value is never reused while the value is parked (the JIT
bug of ``docs/machines.md``): the write would break (2).

The loop:

1. **ready jobs** (a job = one destination place and the values it must
   hold): write every job that keeps the invariant, reading the values
   from wherever they are now (``_holder``: the original source, or the
   copy a cycle break made).  A move the machine lacks (``mov m1, m0``
   without ``mem_to_mem``) goes through a scratch register: a pending
   destination that wants the same values first, else a free temporary or
   a destination whose old value is dead.  Jobs that need a scratch go
   first, while dead destinations can still serve as one.
2. when nothing is ready but jobs are pending, one **break**:
   (a) on a cycle, a swap with a place holding the job's values (its
   source first, else any copy, e.g. the one an earlier park made: x86-64
   has xchg reg-mem but not mem-mem; when the machine has it, it finishes
   the job) or a park of the blocked value in a free place (a free
   register of the class first, then any register, then a temporary
   slot), whichever the cost model prefers for the cycle's length; a park
   into a place that holds a copy of a needed value (an earlier park's
   work) only when no job has another break, since two such parks undo
   each other; (b) off a cycle, a park that lets the job be written at
   once; (c) **borrow** a finished register: save it to a free place (or
   nowhere, when its value already has a copy), use it as a scratch or to
   park, and leave a restore job; with a reg-mem swap and nowhere to save,
   borrow by swapping it with the source and back, or, where the machine
   pushes and pops it, save it on the stack and pop it back at once;
   (d) where the machine has push and pop, every open job at once through
   the stack (push every value, pop them back in reverse order, through a
   scratch register saved on the stack where a place takes no push or
   pop: a parallel move, all reads before all writes); (e) swap a blocked
   place with a finished register (it joins the cycle).
   A move the machine lacks with no scratch register goes through the
   stack when the machine pushes its source and pops into its destination
   (x86-64 ``push m1; pop m0``: cheaper than borrowing a register).
3. **immediates last**: a constant has no reader, so its destination stays
   usable as scratch until the end; a constant into a slot on a machine
   whose ``immediate_to`` lacks ``"mem"`` goes through a register
   (possibly borrowed, saved in a free place or on the stack); a constant
   no register of its width takes (armv7-vfp: immediates into core
   registers only) is built on the stack piece by piece through a
   one-unit register and popped into a register (``_imm_through_stack``;
   on a machine with ``unit_bits``, where a piece is a constant of its own),
   or written into each two-unit part from two one-unit registers by a pair
   move (``_imm_through_pairs``: v8-arm's ``VMOV d, r, r``).

The greedy steps can get stuck on a request that has a sequence (tight
machines: every register live, no swap), or come back to a state they
were in before (breaks that undo each other: the steps are deterministic,
so they would loop forever; ``run`` notices and gets stuck instead).
Then ``_fall_back`` decides: on a machine small enough for the search of
``machine_optimum`` the search's optimal sequence is the answer, or
``Unsolvable`` when the search proves there is none; on a larger machine
``Unsolvable`` when a lemma of ``machine_optimum`` proves there is none
(no free unit, value flow), else the search over a sub-machine, else an
error that says what was searched and that no sequence was *found* (not
that none exists).  ``Unsolvable`` is never raised unproved.

Register lists (``["a0", "a1"]``) are split into one job per register
when the other side splits the same way (a machine's pair moves are used
only where a list meets a single location: ``d0 <- [r0, r1]`` on ARMv7).
An aliased register (``d0`` = ``s0:s1``) is moved whole; its job is split
into its parts only when its values are no longer in one place (after a
cycle break parked part of them).

Typed moves (``[dst, src, TYPE]``) become jobs on **typed views** of their
locations (the type's low units): an operation with a view as an operand
is the machine's typed operation, whose effect (``apply``) leaves the rest
of its destination undefined, so the invariant never lets a typed write
clobber a unit some goal still needs; the rest of a typed destination has
no goal.  Operations between views of two different types are not used.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from ..core import machine as _m
from ..core.machine.description import MEMO_LIMIT
from ..core.semantics import PreconditionError
from .registry import algorithm

#: a value a unit holds: an original unit id, or ("imm", k, i) (unit i of constant k)
Value = object
#: an operation as the resolver builds it: ("mov", dst, src) / ("swap", a, b),
#: operands are places; an immediate source is ``Imm``
Op = tuple


class Unsolvable(PreconditionError):
    """No sequence of the machine's operations implements the request
    (proved: the search of ``machine_optimum`` exhausted every state)."""


class Stuck(PreconditionError):
    """The greedy steps found no way on (which does not prove that no
    sequence exists)."""


@dataclass(frozen=True)
class Imm:
    """An immediate source of ``width`` units (its pieces start at ``offset``)."""

    value: int
    width: int = 1
    offset: int = 0
    #: a piece written alone (``imm_piece``): the constant the mov writes, the
    #: bit pattern of the units from ``offset`` on as a constant of its own
    #: (the wire has no offsets); None: ``value`` at ``offset``
    wire: int | None = None


def imm_piece(value: int, at: int, units: int, bits: int | None, signed: bool = False) -> Imm:
    """Units ``at`` .. ``at + units - 1`` of the constant ``value`` as an
    immediate written alone: its bit pattern there (``bits`` per unit; as
    a signed constant when ``signed``: the same bits, for a store that
    sign-extends), which is the oracle's value of those pieces
    (``core.machine.Imm.piece``); a machine without ``unit_bits`` has no
    bit pattern, so the constant with its offset."""
    if bits is None:
        return Imm(value, units, at)
    wire = (value >> (at * bits)) & ((1 << (units * bits)) - 1)
    if signed and wire >> (units * bits - 1):
        wire -= 1 << (units * bits)
    return Imm(value, units, at, wire)


@dataclass(frozen=True)
class Place:
    """A place the resolver may name in an operation.  A **typed view**
    (``typ`` set) is a register or slot seen as a value of that type: its
    ``units`` are the type's low units of the location (``full``); an
    operation with a typed view as an operand is a typed operation, which
    leaves the rest of its destination undefined."""

    #: the operand as the machine spells it (a name, or a tuple of names for a list)
    name: object
    units: tuple
    #: "reg", "mem" or "list"
    kind: str
    #: the register class (None for a slot or a list)
    cls: str | None = None
    #: alias parts or list elements, in order (empty: cannot be split)
    parts: tuple = ()
    #: the type of a typed view (None: the whole location)
    typ: str | None = None
    #: a typed view's whole location (empty: ``units``)
    full: tuple = ()

    @property
    def width(self) -> int:
        return len(self.units)

    def __repr__(self) -> str:
        return f"Place({self.name!r})"


@dataclass
class Frame:
    """What the resolver needs of a machine: its places and which
    operations it has at what cost.  Built from ``core.machine`` by
    ``frame_of`` below; the tests also build small frames directly."""

    #: every register (aliased ones included) and every slot, in machine order
    places: list[Place]
    #: ``legal(op) -> bool`` (op as the resolver builds it)
    legal: Callable[[Op], bool]
    #: ``cost(op) -> number``
    cost: Callable[[Op], float]
    #: names the machine's profile keeps free for shuffling (preferred scratch)
    scratch: frozenset = frozenset()
    #: the machine's ``unit_bits`` (None: immediates are symbolic pieces)
    unit_bits: int | None = None
    #: does the machine have pair moves (``pair_moves``)?  Without them every
    #: mov between a register list and one location is illegal, so
    #: ``_imm_through_pairs`` has nothing to try (it was most of the time
    #: conform spent deciding a declined x86-64 case, issue 20)
    pairs: bool = True

    @functools.cached_property
    def by_first(self) -> dict:
        """The places by their first unit (``_HeldAs`` looks a value up
        there instead of reading every place)."""
        out: dict = {}
        for p in self.places:
            out.setdefault(p.units[0] if p.units else None, []).append(p)
        return out

    @property
    def units(self) -> list:
        return list(self._units)

    @functools.cached_property
    def by_width(self) -> dict:
        """The places of each width, in machine order (``_holder``)."""
        out: dict = {}
        for p in self.places:
            out.setdefault(p.width, []).append(p)
        return out

    @functools.cached_property
    def registers_by_width(self) -> dict:
        """The registers of each width, in machine order (``_registers``)."""
        return {w: [p for p in ps if p.kind == "reg"] for w, ps in self.by_width.items()}

    @functools.cached_property
    def _units(self) -> tuple:
        """Every unit of the places, in order (made once per frame)."""
        seen: dict = {}
        for p in self.places:
            for u in p.units:
                seen.setdefault(u, None)
        return tuple(seen)

    @functools.cached_property
    def by_name(self) -> dict:
        """The places by (name, type) (``_request_place``)."""
        return {(p.name, p.typ): p for p in self.places}

    @functools.cached_property
    def memo(self) -> dict:
        """Answers that depend on the frame alone, remembered per frame
        (``_Run._saves``)."""
        return {}


@dataclass
class Job:
    """Write ``want`` (one value per unit) into ``dst``."""

    dst: Place
    want: tuple
    #: where the values were originally (preferred reader), None for a restore
    src: Place | None = None
    imm: Imm | None = None


def imm_values(imm: Imm) -> tuple:
    return tuple(("imm", imm.value, imm.offset + i) for i in range(imm.width))


#: what a unit holds after a typed write left it undefined (never a goal)
UNDEF = ("undefined",)


def op_type(op: Op) -> tuple[str | None, int]:
    """(type, width) of an operation with a typed view as an operand, else
    (None, 0)."""
    _, a, b = op
    for p in (a, b):
        if isinstance(p, Place) and p.typ is not None:
            return p.typ, len(p.units)
    return None, 0


# ---------------------------------------------------------------------------
# The resolver proper
# ---------------------------------------------------------------------------

Trace = Callable[[str, dict], None]


class _Run:
    def __init__(self, frame: Frame, jobs: list[Job], goal: dict, trace: Trace | None):
        self.f = frame
        self.jobs = jobs
        self.goal = goal
        self.cur: dict = {u: u for u in frame.units}
        self.ops: list[Op] = []
        self.trace = trace or (lambda event, data: None)
        #: is anyone listening?  (without a hook, ``emit`` copies no state for it)
        self.tracing = trace is not None
        self.limit = 8 * (len(jobs) + 2) * (len(frame.units) + 2)
        #: break (d), every open job through the stack, before (e)
        self.stack_first = False
        #: ``_CurIndex`` of ``cur`` (remade when ``cur`` changed: ``index``)
        self._index: "_CurIndex | None" = None
        self._index_before: "_CurIndex | None" = None

    # -- the state ---------------------------------------------------------

    def values(self, p: Place) -> tuple:
        cur = self.cur
        return tuple([cur[u] for u in p.units])

    def done(self, job: Job) -> bool:
        return self.values(job.dst) == job.want

    def open_jobs(self) -> list[Job]:
        return [j for j in self.jobs if not self.done(j)]

    def finished(self, p: Place) -> bool:
        return all(u in self.goal and self.cur[u] == self.goal[u] for u in p.units)

    @staticmethod
    def apply(op: Op, state: dict) -> None:
        """The operation's effect, as ``core.machine.effects`` has it: a
        typed one moves the type's low units and leaves the rest of its
        destination(s) undefined."""
        kind, a, b = op
        if kind == "mov":
            # ``op_type``'s rule read off the two operands directly (most
            # trial steps are movs; this is the only mov path)
            imm = type(b) is Imm
            vals = imm_values(b) if imm else [state[u] for u in b.units]
            if a.typ is not None:     # typed by its destination
                dst, n = a.full or a.units, len(a.units)
            elif not imm and b.typ is not None:   # typed by its source
                dst, n = a.units, len(b.units)
            else:                     # untyped: every value read, then written
                for u, v in zip(a.units, vals):
                    state[u] = v
                return
            for u, v in zip(dst[:n], vals[:n]):
                state[u] = v
            for u in dst[n:]:
                state[u] = UNDEF
            return
        if kind in ("push", "pop"):
            _stack_op(op, state)
            return
        # an exchange (every mov has returned above)
        typ, w = op_type(op)
        ua, ub = ((a.full or a.units), (b.full or b.units)) if typ else (a.units, b.units)
        n = w if typ else len(ua)
        va, vb = [state[u] for u in ua[:n]], [state[u] for u in ub[:n]]
        for u, v in zip(ua[:n], vb):
            state[u] = v
        for u, v in zip(ub[:n], va):
            state[u] = v
        for u in ua[n:] + ub[n:]:
            state[u] = UNDEF

    def keeps(self, after: dict, allow: Iterable = (), changed: "set | None" = None) -> bool:
        """THE step invariant (``proofs/resolve.py`` proves it is kept):
        (1) no finished unit is unfinished, except the ``allow``-ed units of
        a borrowed register (which get a restore job); (2) every goal value
        of an unfinished unit is still held by some unit (a constant can
        always be written again); (3) every open job still finds its values
        in places it can name: all together in one register or slot, or,
        for a destination with parts (an alias's halves), part by part (a
        value held only inside a wider register without parts, e.g. the
        low half of ``d28`` on armv7-vfp, cannot be read alone).

        ``changed``: the units ``after`` may differ from ``cur`` in (None:
        any).  Given, the same three checks read only what a step can have
        changed (``_HeldAfter``: ``cur``'s index and the step's writes;
        issue 20: reading every unit at every trial step was most of the
        resolver's time): (1) and a goal of (2) on the changed units, and
        (2) for the unchanged unfinished units through the values the step
        took away (``_HeldAfter.unchanged_goals_held``)."""
        allow = set(allow)
        if changed is None or STACK in after or STACK in self.cur:
            held_as = _HeldAs(after, self.f.by_first)
            units: Iterable = self.goal.items()
        else:
            held_as = _HeldAfter(self.index, self.cur, after, changed, self.f.by_first)
            units = [(u, self.goal[u]) for u in held_as.changed if u in self.goal]
        # the cheap checks first (a trial step mostly fails (1)): the answer
        # is their conjunction, so the order changes nothing but the time
        for u, g in units:
            if after[u] == g:
                continue
            if self._unfinished(u, g, allow):
                return False
            if not _is_imm(g) and not held_as.holds(g):
                return False
        if not held_as.unchanged_goals_held(self.goal):
            return False
        for j in self.jobs:
            if j.imm is None and tuple(after[u] for u in j.dst.units) != j.want \
                    and not _findable(j.dst, j.want, held_as):
                return False
        return True

    def _unfinished(self, u: object, g: object, allow: Iterable) -> bool:
        """Clause (1) for a unit ``u`` that ends off its goal ``g``: was it
        finished (and not a borrowed register's)?"""
        return self.cur[u] == g and u not in allow

    def _breaks_finished(self, dst: Place, src: Place, allow: Iterable = ()) -> bool:
        """Would ``dst`` holding ``src``'s values now (a mov, ``dst``'s
        units left alone after it) unfinish a finished unit?  Clause (1)
        alone, asked before a step is tried: where it says yes, ``keeps``
        says no (issue 20: most trial steps fail (1), most of them on a
        finished register, and each was a state built and read)."""
        goal = self.goal
        for u, v in zip(dst.units, self.values(src)):
            if u in goal and v != goal[u] and self._unfinished(u, goal[u], allow):
                return True
        return False

    def index(self) -> "_CurIndex":
        """``cur``'s index, remade when ``cur`` holds other values than
        when it was made (compared, not tracked: every writer of ``cur``,
        a planted mutant's too, is seen)."""
        snap = tuple(self.cur.values())
        if self._index is not None and self._index.snap == snap:
            return self._index
        # a trial step (``_trial``) that fails puts ``cur`` back: the index
        # before it is asked for again
        if self._index_before is not None and self._index_before.snap == snap:
            self._index, self._index_before = self._index_before, self._index
            return self._index
        self._index_before, self._index = self._index, _CurIndex.of(self.cur, self.goal, snap)
        return self._index

    def feasible(self, ops: Sequence[Op], allow: Iterable = ()) -> bool:
        if STACK in self.cur:
            after = _Written.of(self.cur)
            for op in ops:
                self.apply(op, after)
            return self.keeps(after, allow, after.written)
        # the step's writes over ``cur``, not a copy of every unit (issue 20)
        over = _Over.of(self.cur)
        for op in ops:
            self.apply(op, over)
        if STACK in over:  # a push not popped: ``keeps`` reads every unit
            return self.keeps(over.full(), allow, set(over))
        return self.keeps(over, allow, over.keys())

    def attempt(self, steps: Sequence[tuple[Op, str]], allow: Iterable = ()) -> bool:
        """Emit ``steps`` if together they keep the invariant."""
        if not self.feasible([op for op, _ in steps], allow):
            return False
        for op, why in steps:
            self.emit(op, why)
        return True

    # -- emitting ----------------------------------------------------------

    def emit(self, op: Op, why: str) -> None:
        if len(self.ops) > self.limit:
            raise AssertionError(f"resolve: no progress after {len(self.ops)} operations")
        self.apply(op, self.cur)
        self.ops.append(op)
        if self.tracing:
            self.trace(why, {"op": op, "cur": dict(self.cur)})

    def legal(self, op: Op) -> bool:
        return self.f.legal(op)

    def cost(self, op: Op) -> float:
        return self.f.cost(op)

    # -- where values are --------------------------------------------------

    def _holder(self, want: tuple, prefer: Place | None, avoid: Place | None = None) -> Place | None:
        """A place that holds exactly ``want`` now: the job's own source if
        it still does, else a register, else a slot."""
        if prefer is not None and self.values(prefer) == want:
            return prefer
        best = None
        for p in self.f.by_width.get(len(want), ()):
            if p is not avoid and self.values(p) == want:
                if p.kind == "reg":
                    return p
                best = best or p
        return best

    def _holders(self, job: Job) -> Iterator[Place]:
        """Every place that holds exactly the job's values now and does not
        overlap its destination: ``_holder``'s choice first, then the other
        registers, then the other slots."""
        first = self._holder(job.want, job.src, avoid=job.dst)
        if first is None:
            return
        clear = lambda p: not set(p.units) & set(job.dst.units)  # noqa: E731
        if clear(first):
            yield first
        rest = [p for p in self.f.by_width.get(job.dst.width, ()) if p is not first
                and clear(p) and self.values(p) == job.want]
        yield from sorted(rest, key=lambda p: p.kind != "reg")

    def _needed(self) -> set:
        """The values some open job still wants."""
        return {v for j in self.open_jobs() for v in j.want}

    def _holds_needed(self, p: Place, needed: set | None = None) -> bool:
        """Does ``p`` hold a value some open job still wants?"""
        return not set(self.values(p)).isdisjoint(self._needed() if needed is None else needed)

    def _registers(self, width: int, avoid: Iterable = ()) -> list[Place]:
        avoid = set(avoid)
        return [r for r in self.f.registers_by_width.get(width, ())
                if avoid.isdisjoint(r.units)]

    def _scratch_order(self, regs: list[Place], want: tuple) -> list[Place]:
        """Scratch candidates: a pending destination that wants these very
        values first (the copy is progress), then goal-free registers
        (temporaries; the machine profile's ``scratch`` first), then the
        rest."""
        copies = {id(j.dst) for j in self.jobs if j.want == want}
        goal, scratch = self.goal, self.f.scratch

        def rank(r: Place) -> tuple:
            if id(r) in copies:
                return (0, 0)
            free = not any(u in goal for u in r.units)
            return (1 if free else 2, r.name not in scratch)
        return sorted(regs, key=rank)

    # -- step 1: ready jobs -------------------------------------------------

    def try_job(self, job: Job) -> bool:
        if job.imm is not None:
            return False
        src = self._holder(job.want, job.src, avoid=job.dst)
        if src is None:
            return self._split(job)
        direct = ("mov", job.dst, src)
        if self.legal(direct):
            return self.attempt([(direct, "move")])
        if not self.feasible([direct]):
            return False  # its destination still holds a needed value
        for r in self._scratch_order(self._registers(job.dst.width, src.units + job.dst.units),
                                     job.want):
            load, store = ("mov", r, src), ("mov", job.dst, r)
            if set(r.units).isdisjoint(job.dst.full) and self._breaks_finished(r, src):
                continue  # the store leaves r as the load wrote it
            if self.legal(load) and self.legal(store) and self.attempt(
                    [(load, "scratch load"), (store, "scratch store")]):
                return True
        return False

    def _via_stack(self, job: Job) -> bool:
        """A move the machine lacks, with no scratch register: through the
        stack where the machine pushes the source and pops into the
        destination (x86-64 ``push m1; pop m0``: two operations, where a
        borrowed register costs a save and a restore on top of its load and
        store)."""
        src = self._holder(job.want, job.src, avoid=job.dst)
        if src is None or job.imm is not None:
            return False
        push, pop = self._push_seq(src), self._pop_seq(job.dst)
        if push is None or pop is None:
            return False
        return self.attempt([(op, "move via the stack") for op in push + pop])

    # -- the stack (push/pop where the machine has them) ------------------

    def _push_seq(self, p: Place) -> list[Op] | None:
        """Pushes that put ``p``'s units on the stack, its low unit on top
        (``p`` itself, or its alias parts high part first: armv7-vfp pushes
        a q register as its two d halves), or None when the machine cannot."""
        return self._stack_seq("push", p)

    def _pop_seq(self, p: Place) -> list[Op] | None:
        """Pops that move the top ``p.width`` words into ``p``, the top into
        its low unit (``p`` itself, or its parts low part first)."""
        return self._stack_seq("pop", p)

    def _stack_seq(self, kind: str, p: Place) -> list[Op] | None:
        """``kind`` ("push" or "pop") of ``p`` in one operation where the
        machine has it, else of its alias parts (pushed high part first,
        popped low part first, so the low unit is on top), else None."""
        p = self._whole(p)
        if p is None:
            return None
        if self.legal((kind, p, None)):
            return [(kind, p, None)]
        if not p.parts:
            return None
        out: list[Op] = []
        for part in (reversed(p.parts) if kind == "push" else p.parts):
            more = self._stack_seq(kind, part)
            if more is None:
                return None
            out += more
        return out

    def _whole(self, p: Place) -> Place | None:
        """``p`` as an untyped place: a typed view as wide as its location is
        the location itself (its typed write leaves nothing undefined);
        None for a narrower view (push and pop move whole locations)."""
        if p.typ is None:
            return p
        if p.full and len(p.full) != len(p.units):
            return None
        return next((q for q in self.f.places if q.typ is None and q.name == p.name), None)

    def _stack_save(self, r: Place) -> tuple[list, list] | None:
        """(pushes, pops) that save ``r`` on the stack and give it back."""
        push, pop = self._push_seq(r), self._pop_seq(r)
        if push is None or pop is None:
            return None
        return ([(op, "borrow: push") for op in push], [(op, "borrow: pop") for op in pop])

    def _split(self, job: Job) -> bool:
        """The job's values are no longer in one place: split it into its
        parts (an alias's halves), if it has any."""
        if not job.dst.parts:
            return False
        at = self.jobs.index(job)
        new, k = [], 0
        for part in job.dst.parts:
            new.append(Job(part, job.want[k:k + part.width]))
            k += part.width
        self.jobs[at:at + 1] = new
        self.trace("split", {"job": job, "parts": new})
        return True

    def ready_pass(self) -> bool:
        """Run every ready job once; True if anything was emitted."""
        progress = False
        # the jobs that need a scratch register first, while pending
        # destinations whose old value is dead can still serve as one
        order = sorted(self.jobs, key=lambda j: j.src is None or self.legal(("mov", j.dst, j.src)))
        for job in order:
            if job in self.jobs and not self.done(job) and self.try_job(job):
                progress = True
        return progress

    # -- step 2: cycle breaks -------------------------------------------------

    def _blockers(self, job: Job, open_jobs: list[Job]) -> list[Job]:
        """The open jobs that need a value only ``job``'s destination holds."""
        only = [v for u, v in zip(job.dst.units, self.values(job.dst))
                if not [w for w, x in self.cur.items() if x == v and w not in job.dst.units]]
        return [k for k in open_jobs if k is not job and set(only) & set(k.want)]

    def _on_cycle(self, job: Job, open_jobs: list[Job]) -> bool:
        seen, todo = set(), list(self._blockers(job, open_jobs))
        while todo:
            k = todo.pop()
            if k is job:
                return True
            if id(k) in seen:
                continue
            seen.add(id(k))
            todo += self._blockers(k, open_jobs)
        return False

    def _cycle_length(self, job: Job, open_jobs: list[Job]) -> int:
        seen, j, k = set(), job, 0
        while j is not None and id(j) not in seen:
            seen.add(id(j))
            k += 1
            holder = self._holder(j.want, j.src, avoid=j.dst)
            j = next((x for x in open_jobs if holder is not None and x.dst is holder), None)
        return max(k, 2)

    def _park_place(self, src: Place, avoid: tuple = ()) -> Place | None:
        """Where ``src``'s values can be copied by one legal, invariant-
        keeping mov: a place that holds no copy of a needed value first (a
        copy there is an earlier park's work), then a register of its
        class, then any register, then a slot; goal-free places
        (temporaries) before dead destinations, the profile's scratch first."""
        cands, needed = [], self._needed()
        busy = set(src.units + avoid)
        for p in self.f.by_width.get(src.width, ()):
            if not busy.isdisjoint(p.units):
                continue
            op = ("mov", p, src)
            if not self.legal(op):
                continue
            rank = 0 if p.kind == "reg" and p.cls == src.cls else 1 if p.kind == "reg" else 2
            cands.append((self._holds_needed(p, needed), rank,
                          0 if not any(u in self.goal for u in p.units) else 1,
                          p.name not in self.f.scratch, p))
        # ranked first, then asked in rank order (a stable sort: the first
        # invariant-keeping candidate is the one the ranking of all of them
        # would pick; issue 20: asking every candidate was most of a cycle
        # break's time)
        cands.sort(key=lambda c: c[:4])
        for c in cands:
            if not self._breaks_finished(c[-1], src) and self.feasible([("mov", c[-1], src)]):
                return c[-1]
        return None

    def break_cycle(self) -> bool:
        open_jobs = [j for j in self.open_jobs() if j.imm is None]
        # (a) a swap that finishes a job (its holder takes the blocked
        # value), or a park for a job on a cycle: whichever costs less
        # A park into a place holding a copy of a needed value (an earlier
        # park) comes last: it undoes that park, and two such parks can
        # take turns forever (x86-64: two slot cycles, one scratch register)
        last_resort = None
        for job in open_jobs:
            holder = swap = None
            # any place holding the job's values, its source first: after a
            # park the parked copy may be the one the machine can swap with
            for holder in self._holders(job):
                op = ("swap", job.dst, holder)
                undo = bool(self.ops) and self.ops[-1][0] == "swap" and {
                    id(self.ops[-1][1]), id(self.ops[-1][2])} == {id(job.dst), id(holder)}
                if self.legal(op) and not undo and self.feasible([op]):
                    swap = op
                    break
            cycle = self._on_cycle(job, open_jobs)
            park = self._park_place(job.dst) if cycle else None
            if park is not None and self._holds_needed(park):
                if swap is None:
                    last_resort = last_resort or (("mov", park, job.dst), "cycle park")
                    continue
                park = None
            if swap is None and park is None:
                continue
            if swap is not None and park is not None and holder is not None:
                k = self._cycle_length(job, open_jobs)
                by_swap = (k - 1) * self.cost(swap)
                by_park = k * self.cost(("mov", job.dst, holder)) + self.cost(("mov", park, job.dst))
                if by_park <= by_swap:
                    swap = None
            if swap is not None:
                self.emit(swap, "cycle swap")
            else:
                self.emit(("mov", park, job.dst), "cycle park")
            return True
        if last_resort is not None:
            self.emit(*last_resort)
            return True
        # (a') a move the machine lacks, through the stack (no scratch free)
        for job in open_jobs:
            if self._via_stack(job):
                return True
        # (b) a blocked job off any cycle (it waits for a job that lacks a
        # scratch register): park its destination where that frees it, if
        # the job can then be written at once
        for job in open_jobs:
            park = self._park_place(job.dst)
            if park is not None and self._trial(lambda park=park, job=job: self.attempt(
                    [(("mov", park, job.dst), "park")]) and self.try_job(job) and self.done(job)):
                return True
        # (c) borrow a register: as the scratch of a job the machine cannot
        # do in one mov, or to park a blocked destination (then written at once)
        for job in open_jobs:
            if self._borrow_scratch(job):
                return True
        for job in open_jobs:
            if self._borrow_park(job):
                return True
        # (d) every open job at once through the stack (a parallel move:
        # all reads before all writes), where the machine has push and pop;
        # after (e) unless the first run got stuck (``greedy``): (e) is
        # cheaper where a reg-mem swap finishes the cycle (x86-64)
        if self.stack_first and self._all_through_stack(open_jobs):
            return True
        # (e) swap a blocked destination with a finished register (it joins
        # the cycle, and is swapped back by (a))
        for job in open_jobs:
            if not self._on_cycle(job, open_jobs):
                continue
            for r in self._registers(job.dst.width, job.dst.units):
                op = ("swap", job.dst, r)
                if self.finished(r) and self.legal(op) and self.feasible([op], r.units):
                    self.jobs.append(self._restore_job(r))
                    self.emit(op, "cycle swap with a finished register")
                    return True
        return not self.stack_first and self._all_through_stack(open_jobs)

    def _all_through_stack(self, open_jobs: list[Job]) -> bool:
        """Push every open job's values (from a place the machine pushes,
        else through a scratch register of the job's width), then pop them
        in reverse order into the destinations (or into the scratch and
        store it); the scratch registers free, else saved on the stack
        first and given back last.  For a cycle among 16-byte slots on
        armv7-vfp with every register live: q0 saved, each slot's value
        pushed through q0, popped back through q0 into the other slot."""
        if not open_jobs:
            return False
        holders = []
        for job in open_jobs:
            h = self._holder(job.want, job.src, avoid=job.dst)
            if h is None:
                return False
            holders.append(h)
        busy = tuple(u for j, h in zip(open_jobs, holders) for u in j.dst.units + h.units)
        for save in (False, True):
            scratch: dict = {}
            pushes: list = []
            pops: list = []
            ok = True
            for job, h in zip(open_jobs, holders):
                push, pop = self._push_seq(h), self._pop_seq(job.dst)
                r = None
                if push is None or pop is None:
                    r = scratch.get(job.dst.width) or self._stack_scratch(
                        job.dst.width, busy, h, job.dst, save)
                    if r is None:
                        ok = False
                        break
                    scratch[job.dst.width] = r
                why = "through the stack"
                if push is None and pop is None and job is open_jobs[-1]:
                    # the last value read is the first written: no need
                    # to push it, it stays in the scratch
                    pops = [(("mov", r, h), why), (("mov", job.dst, r), why)] + pops
                    continue
                if push is None:
                    push = [("mov", r, h)] + self._push_seq(r)
                pushes += [(op, why) for op in push]
                if pop is None:
                    pop = self._pop_seq(r) + [("mov", job.dst, r)]
                pops = [(op, why) for op in pop] + pops
            if not ok:
                continue
            saves: list = []
            restores: list = []
            if save:
                for r in scratch.values():
                    saved = self._stack_save(r)
                    saves += saved[0]
                    restores = saved[1] + restores
            if self.attempt(saves + pushes + pops + restores):
                return True
        return False

    def _stack_scratch(self, width: int, busy: tuple, h: Place, dst: Place,
                       save: bool) -> Place | None:
        """A register of ``width`` that can read ``h``, write ``dst`` and go
        through the stack, none of its units ``busy``; a free one (a
        temporary) unless ``save`` (then any: it is saved on the stack)."""
        for r in self._scratch_order(self._registers(width, busy), ()):
            if r.typ is not None:
                continue
            if not (self.legal(("mov", r, h)) and self.legal(("mov", dst, r))):
                continue
            if self._push_seq(r) is None or self._pop_seq(r) is None:
                continue
            if save or not any(u in self.goal for u in r.units):
                return r
        return None

    def _restore_job(self, r: Place) -> Job:
        return Job(r, tuple(self.goal[u] for u in r.units))

    def _saves(self, r: Place, avoid: tuple) -> list[Place]:
        """Places that can hold a borrowed register's value and give it back
        (a question about the frame alone: remembered there)."""
        key = ("saves", r.name, r.typ, r.units)
        got = self.f.memo.get(key)
        if got is None:
            got = self.f.memo[key] = [
                p for p in self.f.places
                if p.width == r.width and not set(p.units) & set(r.units)
                and self.legal(("mov", p, r)) and self.legal(("mov", r, p))]
        avoid = set(avoid)
        return [p for p in got if avoid.isdisjoint(p.units)]

    def _borrow_scratch(self, job: Job) -> bool:
        src = self._holder(job.want, job.src, avoid=job.dst)
        if src is None or self.legal(("mov", job.dst, src)) or not self.feasible(
                [("mov", job.dst, src)]):
            return False
        for r in self._registers(job.dst.width, job.dst.units + src.units):
            load, store = ("mov", r, src), ("mov", job.dst, r)
            if not (self.finished(r) and self.legal(load) and self.legal(store)):
                continue
            # its value already has a copy elsewhere: no save needed
            if self.attempt([(load, "borrow: scratch load"), (store, "borrow: scratch store")],
                            r.units):
                self.jobs.append(self._restore_job(r))
                return True
            for p in self._saves(r, job.dst.units + src.units):
                if self.attempt([(("mov", p, r), "borrow: save"), (load, "borrow: scratch load"),
                                 (store, "borrow: scratch store")], r.units):
                    self.jobs.append(self._restore_job(r))
                    return True
            # nowhere to save it: on the stack, given back at once
            saved = self._stack_save(r)
            if saved is not None and self.attempt(
                    saved[0] + [(load, "borrow: scratch load"),
                                (store, "borrow: scratch store")] + saved[1]):
                return True
        # no place to save a register in: with a reg-mem swap, the source
        # itself holds the register while the register carries the value
        for r in self._registers(job.dst.width, job.dst.units + src.units):
            swap, store = ("swap", r, src), ("mov", job.dst, r)
            if self.finished(r) and self.legal(swap) and self.legal(store) and self.attempt(
                    [(swap, "borrow by swap"), (store, "borrow: scratch store"),
                     (swap, "borrow by swap: give back")]):
                return True
        return False

    def _borrow_park(self, job: Job) -> bool:
        """Save a finished register, park the job's destination in it, and
        write the job at once; undone unless the job gets written (a park
        that frees nothing would be restored right away, forever)."""
        for r in self._registers(job.dst.width, job.dst.units):
            park = ("mov", r, job.dst)
            if not (self.finished(r) and self.legal(park)):
                continue
            for p in [None, *self._saves(r, job.dst.units)]:
                # most saves and parks break the invariant: asked first,
                # without a trial's copy of the state (a save into a
                # finished place first: the park leaves it alone)
                if p is not None and set(p.units).isdisjoint(r.full) and \
                        self._breaks_finished(p, r, r.units):
                    continue
                if not self.feasible(([] if p is None else [("mov", p, r)]) + [park], r.units):
                    continue

                def go(p=p, r=r, park=park) -> bool:
                    # asked just above, on this very state: emitted at once
                    if p is not None:
                        self.emit(("mov", p, r), "borrow: save")
                    self.emit(park, "borrow: park")
                    self.jobs.append(self._restore_job(r))
                    return self.try_job(job) and self.done(job)
                if self._trial(go):
                    return True
        return False

    def _trial(self, go: Callable[[], bool]) -> bool:
        """Run ``go``; if it answers False, put the state back as it was
        (its trace events are dropped)."""
        cur, jobs, n, trace = dict(self.cur), list(self.jobs), len(self.ops), self.trace
        events: list = []
        self.trace = lambda e, d: events.append((e, d))
        try:
            ok = go()
        finally:
            self.trace = trace
        if not ok:
            self.cur, self.jobs = cur, jobs
            del self.ops[n:]
            return False
        for e, d in events:
            trace(e, d)
        return True

    # -- step 3: immediates -----------------------------------------------------

    def immediates(self) -> None:
        imm_jobs = [j for j in self.jobs if j.imm is not None]
        # the ones that need a scratch register first, while the other
        # constants' destinations can still serve as scratch
        imm_jobs.sort(key=lambda j: self.legal(("mov", j.dst, j.imm)))
        for job in imm_jobs:
            if self.done(job):
                continue
            direct = ("mov", job.dst, job.imm)
            if self.legal(direct):
                if not self.attempt([(direct, "immediate")]):
                    raise AssertionError(f"resolve: {job.dst.name} is not free for its constant")
                continue
            if not self._imm_by_parts(job) and not self._imm_via_register(job):
                raise Stuck(
                    f"the constant {job.imm.value} for "
                    f"{_name(job.dst.name)} needs a register (the machine cannot "
                    "write an immediate there) and none is free or can be saved; "
                    "declare a temporary")
            self.ready_until_stuck()   # a borrowed register goes back at once
        self.ready_until_stuck()
        if self.open_jobs():
            raise AssertionError("resolve: a restore is left after the immediates")

    def _imm_by_parts(self, job: Job) -> bool:
        """A constant the machine cannot write into the whole destination,
        written piece by piece into the parts it lies over (issue 23: a
        16-byte slot without immediate stores over two 8-byte slots that
        take ``mov m64, imm32``), when each part takes its piece."""
        bits = self.f.unit_bits
        whole = next((p for p in self.f.places if p.name == job.dst.name and p.typ is None
                      and p.kind != "list"), None)
        ops, k = [], 0
        for part in whole.parts if whole is not None and bits else ():
            if k == job.dst.width:
                break
            at = job.imm.offset + k
            wire = imm_piece(job.imm.value, at, part.width, bits, signed=True)
            ops.append((("mov", part, wire), "immediate by parts"))
            k += part.width
        if not ops or tuple(u for (_, part, _), _ in ops for u in part.units) != job.dst.units:
            return False
        return all(self.legal(op) for op, _ in ops) and self.attempt(ops)

    def _imm_via_register(self, job: Job) -> bool:
        if self._imm_via_register_to(job):
            return True
        # a typed view as wide as its location: the location itself takes
        # an untyped store (an f32 slot written from a core register)
        whole = self._whole(job.dst)
        return whole is not None and whole is not job.dst and self._imm_via_register_to(
            Job(whole, job.want, job.src, job.imm))

    def _imm_via_register_to(self, job: Job) -> bool:
        regs = self._registers(job.dst.width, job.dst.units)
        for r in self._scratch_order(regs, job.want):
            load, store = ("mov", r, job.imm), ("mov", job.dst, r)
            if self.legal(load) and self.legal(store) and self.attempt(
                    [(load, "immediate via scratch"), (store, "immediate via scratch")]):
                return True
        for r in regs:
            load, store = ("mov", r, job.imm), ("mov", job.dst, r)
            if not (self.finished(r) and self.legal(load) and self.legal(store)):
                continue
            for p in self._saves(r, job.dst.units):
                if self.attempt([(("mov", p, r), "borrow: save"),
                                 (load, "immediate via scratch"),
                                 (store, "immediate via scratch")], r.units):
                    self.jobs.append(self._restore_job(r))
                    return True
        # with a reg-mem swap the destination itself keeps the register's value
        for r in regs:
            swap, load = ("swap", r, job.dst), ("mov", r, job.imm)
            if self.finished(r) and self.legal(swap) and self.legal(load) and self.attempt(
                    [(swap, "borrow by swap"), (load, "immediate via scratch"),
                     (swap, "borrow by swap: give back")]):
                return True
        # nowhere to save a register: on the stack, given back at once
        for r in regs:
            load, store = ("mov", r, job.imm), ("mov", job.dst, r)
            saved = self._stack_save(r) if self.legal(load) and self.legal(store) else None
            if saved is not None and self.attempt(
                    saved[0] + [(load, "immediate via scratch"),
                                (store, "immediate via scratch")] + saved[1]):
                return True
        return self._imm_through_stack(job) or self._imm_through_pairs(job)

    def _imm_through_stack(self, job: Job) -> bool:
        """A constant no register of the destination's width takes (armv7-vfp
        writes immediates to core registers only): each piece written to a
        one-unit register ``g`` and pushed, high piece first, then popped
        into the destination register, or into a register ``r`` stored to
        the destination slot; ``g`` and ``r`` free where one is, else saved
        on the stack around the step (``attempt`` decides which keep the
        invariant)."""
        imm = job.imm
        w = len(job.want)
        if job.dst.kind == "reg":
            targets = [job.dst]
        else:
            targets = self._scratch_order(
                [r for r in self._registers(w, job.dst.units)
                 if self.legal(("mov", job.dst, r))], job.want)
        for save_r in (False, True):
            for r in targets:
                if save_r and r is job.dst:
                    continue
                rs = self._stack_save(r) if save_r else None
                into = self._pop_seq(r)
                if into is None or (save_r and rs is None):
                    continue
                for save_g in (False, True):
                    for g in self._scratch_order(self._registers(1, r.units + job.dst.units),
                                                 ()):
                        if g.typ is not None:  # a whole register carries a piece
                            continue
                        steps = self._pieces_through(g, imm, w, into, save_g)
                        if steps is None:
                            continue
                        if r is not job.dst:
                            steps = steps + [(("mov", job.dst, r), "immediate via the stack")]
                        if rs is not None:
                            steps = rs[0] + steps + rs[1]
                        if self.attempt(steps):
                            return True
        return False

    def _imm_through_pairs(self, job: Job) -> bool:
        """A constant no register of the destination's width takes, on a
        machine whose pair moves fill a two-unit register from two one-unit
        ones (armv7-vfp ``VMOV d0, r0, r1``): each two-unit part of the
        destination register (or of a register then stored to the
        destination slot) written from two one-unit registers holding its
        pieces; those free, else saved on the stack around the step."""
        if self.f.unit_bits is None or not self.f.pairs:
            return False
        imm, w = job.imm, len(job.want)
        # the destination itself (a d register; a 16-byte slot that aarch64's
        # STP fills), else a register stored to the destination slot, or a
        # slot loaded into the destination register
        others = [r for r in self.f.places if r.typ is None and r.width == w
                  and r.kind != job.dst.kind and not set(r.units) & set(job.dst.units)
                  and self.legal(("mov", job.dst, r))]
        targets = [job.dst] + self._scratch_order(others, job.want)
        why = "immediate via a pair move"
        for save_r in (False, True):
            for r in targets:
                rs = None
                if save_r and r is not job.dst:
                    rs = self._stack_save(r) or self._register_save(r, job.dst)
                if save_r and rs is None:
                    continue
                whole = self._whole(r)
                halves = [] if whole is None else [whole] if whole.width == 2 else \
                    list(whole.parts)
                if not halves or any(h.width != 2 for h in halves):
                    continue
                singles = [g for g in self._scratch_order(
                    self._registers(1, r.units + job.dst.units), ())
                    if g.typ is None and self.legal(
                        ("mov", g, imm_piece(imm.value, imm.offset, 1, self.f.unit_bits)))]
                for g1, g2 in itertools.permutations(singles[:4], 2):
                    pair = Place((g1.name, g2.name), g1.units + g2.units, "list", None, (g1, g2))
                    build: list = []
                    k = imm.offset
                    for h in halves:
                        ops = [("mov", g1, imm_piece(imm.value, k, 1, self.f.unit_bits)),
                               ("mov", g2, imm_piece(imm.value, k + 1, 1, self.f.unit_bits)),
                               ("mov", h, pair)]
                        if not all(self.legal(op) for op in ops):
                            build = []
                            break
                        build += [(op, why) for op in ops]
                        k += 2
                    if not build:
                        continue
                    for save_g in (False, True):
                        steps = list(build)
                        if save_g:  # the live ones of the two, on the stack
                            live = [g for g in (g1, g2) if any(u in self.goal for u in g.units)]
                            saved = [self._stack_save(g) for g in live]
                            if not live or None in saved:
                                continue
                            for push, pop in saved:
                                steps = push + steps + pop
                        if r is not job.dst:
                            steps += [(("mov", job.dst, r), why)]
                        if rs is not None:
                            steps = rs[0] + steps + rs[1]
                        if self.attempt(steps):
                            return True
        return False

    def _register_save(self, r: Place, avoid: Place) -> tuple[list, list] | None:
        """(save, restore): ``r`` copied into a free register (a temporary)
        of its width and back, or None."""
        for q in self._scratch_order(self._registers(r.width, r.units + avoid.units), ()):
            if q.typ is None and not any(u in self.goal for u in q.units) and \
                    self.legal(("mov", q, r)) and self.legal(("mov", r, q)):
                return ([(("mov", q, r), "borrow: save")], [(("mov", r, q), "borrow: restore")])
        return None

    def _pieces_through(self, g: Place, imm: Imm, w: int, into: list, save: bool) -> list | None:
        """The constant's ``w`` pieces through ``g`` onto the stack (high
        first), popped by ``into``; ``g`` saved on the stack first when
        ``save``.  None when the machine cannot."""
        push = self._push_seq(g)
        gs = self._stack_save(g) if save else None
        if push is None or (save and gs is None) or self.f.unit_bits is None:
            return None
        why = "immediate via the stack"
        steps: list = []
        for i in reversed(range(w)):
            piece = ("mov", g, imm_piece(imm.value, imm.offset + i, 1, self.f.unit_bits))
            if not self.legal(piece):
                return None
            steps += [(piece, why)] + [(op, why) for op in push]
        steps += [(op, why) for op in into]
        return (gs[0] + steps + gs[1]) if gs else steps

    # -- the loop -------------------------------------------------------------

    def ready_until_stuck(self) -> None:
        while self.ready_pass():
            pass

    def _state(self) -> tuple:
        """All that the next steps depend on: every unit's value, the jobs
        (a repeated restore job adds nothing) and the last operation (a
        swap is not undone at once)."""
        jobs = dict.fromkeys((j.dst, j.want, j.src, j.imm) for j in self.jobs)
        return (tuple(self.cur.values()), tuple(jobs), self.ops[-1] if self.ops else None)

    def run(self) -> list[Op]:
        seen: set = set()
        while True:
            self.ready_until_stuck()
            if not [j for j in self.open_jobs() if j.imm is None]:
                break
            # the steps are deterministic: back in a state already seen, the
            # breaks would take turns forever (each one undoing another), so
            # stop and say so (Stuck: not found, which proves nothing)
            state = self._state()
            if state in seen:
                names = ", ".join(_name(j.dst.name) for j in self.open_jobs() if j.imm is None)
                raise Stuck(f"the breaks for {names} undo each other (the greedy steps came "
                            f"back to a state they had been in after {len(self.ops)} "
                            "operations)")
            seen.add(state)
            if not self.break_cycle():
                stuck = [j for j in self.open_jobs() if j.imm is None]
                names = ", ".join(f"{_name(j.dst.name)}" for j in stuck)
                raise Stuck(
                    f"{names} wait on each other (a cycle, or a move "
                    "the machine can only do through a register) and there is no free "
                    "register or slot to break it with and no swap that fits; declare a "
                    "temporary" if len(stuck) > 1 else
                    f"{names} can only be written through a register "
                    "(the machine has no such mov) and no register is free or can be "
                    "saved and given back; declare a temporary")
        self.immediates()
        return self.ops


#: the key of ``_Run.cur`` that holds the words a step pushed (top last);
#: present only between a step's push and its pop
STACK = "^stack"


def _stack_op(op: Op, state: dict) -> None:
    """``push p`` / ``pop p`` as ``core.machine.effects`` has them: a push
    puts ``p``'s units on the stack, its low unit on top; a pop moves the
    top words into ``p``'s units, the top into its low unit.  Every step
    the resolver emits pops what it pushed, so the stack is empty between
    steps (the key is dropped)."""
    kind, a, _ = op
    stack = state.get(STACK, ())
    if kind == "push":
        stack = stack + tuple(reversed([state[u] for u in a.units]))
    else:
        n = len(a.units)
        if len(stack) < n:
            raise AssertionError(f"resolve: pop {_name(a.name)} from a stack of {len(stack)}")
        for i, u in enumerate(a.units):
            state[u] = stack[-1 - i]
        stack = stack[:len(stack) - n]
    if stack:
        state[STACK] = stack
    else:
        state.pop(STACK, None)


class _Written(dict):
    """A copy of a state that records the keys written into it (``_Run.
    feasible``: the units a step may have changed, as ``apply`` wrote them)."""

    __slots__ = ("written",)

    @staticmethod
    def of(state: dict) -> "_Written":
        out = _Written(state)
        out.written = set()
        return out

    def __setitem__(self, key: object, value: object) -> None:
        self.written.add(key)
        dict.__setitem__(self, key, value)


class _Over(dict):
    """A step's writes over a state ``base`` (``_Run.feasible``): holds the
    written units; reading any other unit reads ``base``.  Its keys are
    the units the step wrote (``_Written.written``), with no copy of the
    units it left alone."""

    __slots__ = ("base",)

    @staticmethod
    def of(base: dict) -> "_Over":
        out = _Over()
        out.base = base
        return out

    def __missing__(self, key: object) -> object:
        return self.base[key]

    def full(self) -> dict:
        """The whole state after the step, as a plain dict."""
        return {**self.base, **self}


class _HeldAs:
    """``want in _HeldAs(after, by_first)``: does some place hold exactly
    ``want`` in ``after``?  The same answer as the set of every place's
    values, without reading every place at every step (that set was most of
    the resolver's time on random x86-64 requests, issue 20): only the places
    whose first unit holds ``want[0]`` are read."""

    def __init__(self, after: dict, by_first: dict) -> None:
        self.after = after
        self.by_first = by_first
        self.by_value: "dict | None" = None

    def holders(self) -> dict:
        """Each value ``after`` holds, and the units that hold it (made on
        first use, once per state)."""
        if self.by_value is None:
            self.by_value = {}
            for u, v in self.after.items():
                self.by_value.setdefault(v, []).append(u)
        return self.by_value

    def holds(self, value: object) -> bool:
        """Does some unit hold ``value`` in ``after``?"""
        return value in self.holders()

    def unchanged_goals_held(self, goal: dict) -> bool:
        """True: ``keeps`` reads every unit's goal itself on this path."""
        return True

    def __contains__(self, want: tuple) -> bool:
        if not want:
            return bool(self.by_first.get(None))
        after = self.after
        for u in self.holders().get(want[0], ()):
            for p in self.by_first.get(u, ()):
                if len(p.units) == len(want) and all(after[x] == w for x, w in zip(p.units, want)):
                    return True
        return False


@dataclass(frozen=True)
class _CurIndex:
    """What the step invariant reads of one state ``cur`` (made once per
    state, ``_Run.index``): the units holding each value, and for each
    goal value (not a constant) whether a unit still waits for it."""

    #: ``tuple(cur.values())``: the state it was made of
    snap: tuple
    #: value -> the units of ``cur`` that hold it
    units_of: dict
    #: the goal values (not constants) some unfinished unit wants
    waiting: frozenset
    #: the goal values of ``waiting`` that no unit of ``cur`` holds
    missing: frozenset

    @staticmethod
    def of(cur: dict, goal: dict, snap: tuple) -> "_CurIndex":
        units_of: dict = {}
        for u, v in cur.items():
            units_of.setdefault(v, []).append(u)
        waiting = frozenset(g for u, g in goal.items() if cur[u] != g and not _is_imm(g))
        return _CurIndex(snap, units_of, waiting,
                         frozenset(g for g in waiting if g not in units_of))


class _HeldAfter:
    """``_HeldAs`` for a state ``after`` that differs from ``cur`` (indexed
    by ``_CurIndex``) at most in the units ``changed``: the same answers,
    read from the index and the changed units only."""

    def __init__(self, index: "Callable[[], _CurIndex]", cur: dict, after: dict, changed: set,
                 by_first: dict) -> None:
        #: ``cur``'s index, asked for only when needed (a step that fails
        #: (1) needs none)
        self.index_of = index
        self.cur = cur
        self.after = after
        self.by_first = by_first
        self.changed = [u for u in changed if u != STACK]
        self._delta: "dict | None" = None
        self._index: "_CurIndex | None" = None

    @property
    def index(self) -> _CurIndex:
        if self._index is None:
            self._index = self.index_of()
        return self._index

    def delta(self) -> dict:
        """value -> how many more units hold it in ``after`` than in ``cur``
        (made on first use)."""
        if self._delta is None:
            self._delta = {}
            cur, after = self.cur, self.after
            for u in self.changed:
                was, now = cur[u], after[u]
                if was != now:
                    self._delta[was] = self._delta.get(was, 0) - 1
                    self._delta[now] = self._delta.get(now, 0) + 1
        return self._delta

    def holds(self, value: object) -> bool:
        """Does some unit hold ``value`` in ``after``?"""
        return len(self.index.units_of.get(value, ())) + self.delta().get(value, 0) > 0

    def unchanged_goals_held(self, goal: dict) -> bool:
        """(2) for every unfinished unit the step did not change: its goal
        value (not a constant) is held in ``after``.  Held in ``cur`` and
        taken from no changed unit, it is still held; so only the values
        the step took away, and those ``cur`` already lacked, are looked at.
        (Where only changed units wait for such a value, ``keeps`` has
        refused the step on their account already: counting them here too
        changes no answer.)"""
        index, cur = self.index, self.cur
        for g in {*(cur[u] for u in self.changed), *index.missing}:
            if g in index.waiting and not self.holds(g):
                return False
        return True

    def __contains__(self, want: tuple) -> bool:
        if not want:
            return bool(self.by_first.get(None))
        after, v = self.after, want[0]
        for u in itertools.chain(self.index.units_of.get(v, ()), self.changed):
            if after[u] != v:
                continue
            for p in self.by_first.get(u, ()):
                if len(p.units) == len(want) and all(after[x] == w for x, w in zip(p.units, want)):
                    return True
        return False


def _findable(dst: Place, want: tuple, held_as: "_HeldAs") -> bool:
    """Can ``want`` be read from named places (whole, or part by part
    along ``dst``'s parts)?"""
    if want in held_as:
        return True
    if not dst.parts:
        return False
    k = 0
    for part in dst.parts:
        if not _findable(part, want[k:k + part.width], held_as):
            return False
        k += part.width
    return True


def _is_imm(v: object) -> bool:
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "imm"


def _name(name: object) -> str:
    return "[" + ", ".join(map(str, name)) + "]" if isinstance(name, tuple) else str(name)


# ---------------------------------------------------------------------------
# From a request to jobs and goals
# ---------------------------------------------------------------------------


def plan(frame: Frame, moves: Sequence[tuple[Place, "Place | Imm"]],
         temps: Sequence[Place], preserve: str, free: Iterable = ()) -> tuple[list[Job], dict]:
    """The jobs (register lists split element-wise) and the unit goals;
    ``free``: units no goal constrains besides the temporaries' (the rest
    of a typed destination)."""
    jobs: list[Job] = []
    for dst, src in moves:
        if isinstance(src, Imm):
            jobs.append(Job(dst, imm_values(src), None, src))
            continue
        if dst.units == src.units:
            jobs.append(Job(dst, src.units, src))   # keeps its value (a goal)
            continue
        pairs = _split_pair(dst, src)
        jobs += [Job(d, s.units, s) for d, s in pairs]
    goal: dict = {}
    for j in jobs:
        for u, v in zip(j.dst.units, j.want):
            goal[u] = v
    if preserve == "all":
        temp_units = {u for t in temps for u in t.units} | set(free)
        for u in frame.units:
            if u not in goal and u not in temp_units:
                goal[u] = u
    jobs = [j for j in jobs if j.dst.units != j.want]
    return jobs, goal


def _split_pair(dst: Place, src: Place) -> list[tuple[Place, Place]]:
    """A list location is moved element by element; the
    other side is split into parts of the same widths when it can be."""
    if dst.kind != "list" and src.kind != "list":
        return [(dst, src)]
    ds = _pieces(dst)
    ss = _pieces(src)
    if [p.width for p in ds] == [p.width for p in ss]:
        return list(zip(ds, ss))
    return [(dst, src)]


def _pieces(p: Place) -> list[Place]:
    return list(p.parts) if p.parts else [p]


def resolve_frame(frame: Frame, moves, temps=(), preserve: str = "all",
                  trace: Trace | None = None, free: Iterable = ()) -> list[Op]:
    """The greedy steps on a frame.  Where they get stuck and the machine
    pushes anything, once more with the stack step (d) before the swap with
    a finished register (e), which can lead a cycle of slots into a dead
    end on a machine without reg-mem swaps (armv7-vfp ``q8 <-> mq0``); the
    trace sees the events of the run that answers only."""
    def once(stack_first: bool, say: Trace | None) -> list[Op]:
        jobs, goal = plan(frame, moves, temps, preserve, free)
        run = _Run(frame, jobs, goal, say)
        run.stack_first = stack_first
        return run.run()

    events: list = []
    # no hook, no events to keep (``emit`` then copies no state for them)
    say = None if trace is None else lambda e, d: events.append((e, d))
    try:
        ops = once(False, say)
    except Stuck:
        if not any(frame.legal(("push", p, None)) for p in frame.places if p.typ is None):
            raise
        events.clear()
        ops = once(True, say)
    if trace is not None:
        for e, d in events:
            trace(e, d)
    return ops


# ---------------------------------------------------------------------------
# The machine's side: ``core.machine`` as a frame, the registered entry point
# ---------------------------------------------------------------------------

#: a cap on the operations a cost bound allows per changed destination unit;
#: see ``cost_bound``
OPS_PER_UNIT = 6


def _mplace(p: Place) -> "_m.Place":
    return _m.Place(tuple(p.name), True) if p.kind == "list" else _m.Place((p.name,))


def to_mop(op: Op) -> "_m.MOperation":
    """A resolver operation as a ``core.machine`` operation (typed when an
    operand is a typed view).  A piece of a wide constant written alone
    (``Imm.wire`` set, by ``imm_piece``) writes its own bit pattern."""
    kind, a, b = op
    if kind == "push":
        return _m.MPush(_mplace(a))
    if kind == "pop":
        return _m.MPop(_mplace(a))
    typ, _ = op_type(op)
    if kind == "swap":
        return _m.MSwap(_mplace(a), _mplace(b), typ)
    src = (_m.Imm(b.value, b.offset) if b.wire is None else _m.Imm(b.wire)) \
        if isinstance(b, Imm) else _mplace(b)
    return _m.MMov(_mplace(a), src, typ)


@functools.lru_cache(maxsize=64)
def _op_tables(machine: "_m.Machine") -> tuple[dict, dict]:
    """The legality and cost of operations by ``frame_of``'s key, one pair
    of tables per machine, shared by its frames (one per set of types: a
    random x86-64 run has 32, and each one asked the machine afresh)."""
    return {}, {}


@functools.lru_cache(maxsize=64)
def frame_of(machine: "_m.Machine", types: tuple[str, ...] = ()) -> Frame:
    """The machine's registers (aliased ones with their parts) and slots as
    places, and for each type in ``types`` a typed view of every register
    and slot that can hold it; legality and cost are ``core.machine.illegal``
    and ``op_cost``.  An operation between two views of different types is
    never used (illegal here)."""
    alias = dict(machine.aliases)
    made: dict = {}

    def place(name: str) -> Place:
        if name not in made:
            reg = machine.lookup(name)
            made[name] = Place(name, reg.units, reg.kind, reg.cls,
                               tuple(place(p) for p in alias.get(name, ())))
        return made[name]

    places = [place(n) for n in machine.names()]
    for typ in types:
        t = machine.type(typ)
        for n in machine.names():
            if _m.holds(machine, _m.Place((n,)), t) is None:
                p = place(n)
                places.append(Place(n, p.units[:t.width], p.kind, p.cls, (), typ, p.units))
    legal_cache, cost_cache = _op_tables(machine)

    def key(op: Op):
        kind, a, b = op
        return (kind, a.name, a.typ, None if b is None else
                (b.value, b.offset, b.width, b.wire) if isinstance(b, Imm)
                else (b.name, b.typ))

    def legal(op: Op) -> bool:
        k = key(op)
        got = legal_cache.get(k)
        if got is None:
            _, a, b = op
            mixed = isinstance(b, Place) and a.typ and b.typ and a.typ != b.typ
            mop = to_mop(op)
            # the profile's reserved registers are never written
            got = not mixed and _m.illegal(machine, mop) is None and \
                _m.reserved_write(machine, mop) is None
            if len(legal_cache) < MEMO_LIMIT:
                legal_cache[k] = got
        return got

    def cost(op: Op) -> float:
        k = key(op)
        got = cost_cache.get(k)
        if got is None:
            got = _m.op_cost(machine, to_mop(op))
            if len(cost_cache) < MEMO_LIMIT:
                cost_cache[k] = got
        return got

    return Frame(places, legal, cost, frozenset(machine.scratch), machine.unit_bits,
                 bool(machine.pair_moves))


def _request_place(frame: Frame, loc: "_m.MLoc", w: int,
                   typ: str | None = None) -> "Place | Imm":
    """The place (or immediate) of a request's location; a typed move's
    single location is its typed view (a typed list is exactly as wide as
    its type and moved part by part: ``greedy`` checks)."""
    by_name = frame.by_name
    if isinstance(loc, _m.Imm):
        return Imm(loc.value, w, loc.offset)
    if not loc.is_list:
        return by_name[(loc.parts[0], typ)]
    parts = tuple(by_name[(n, None)] for n in loc.parts)
    return Place(tuple(loc.parts), tuple(u for p in parts for u in p.units), "list",
                 None, parts)


def changed_units(mm: "_m.MachineMove") -> int:
    """Destination units whose value must change (a self-move changes none)."""
    return sum(1 for u, v in mm.expected().items() if u != v)


def cost_bound(mm: "_m.MachineMove", _preserve: str = "all") -> int:
    """The resolver's cost bound: ``OPS_PER_UNIT * cmax * changed units``,
    cmax the dearest single operation of the machine (a mem<-mem move
    counts load + store).  The argument: every pending unit is finished by
    one write (two operations through a scratch register), after at most
    one break on its account (a park, or a borrow's save and park) and one
    restore of a register borrowed for it.  It is not proved: it is the
    postcondition's bound, checked on every call (every test and bench run
    goes through it)."""
    c = mm.machine.cost
    # a push/pop pair stands in for a load + store (a move through the stack)
    cmax = max(c.mov, c.load, c.store, c.swap, c.imm, c.load + c.store,
               *([c.push + c.pop] if mm.machine.push else []))
    return OPS_PER_UNIT * cmax * changed_units(mm)


def greedy(mm: "_m.MachineMove", preserve: str = "all", trace: Trace | None = None) -> list:
    """The greedy steps alone (``Stuck`` when they find no way on): what
    the mutants of ``mutants/resolve.py`` edit and the tests judge, without
    the search's rescue."""
    m = mm.machine
    frame = frame_of(m, tuple(sorted({t for t in mm.types if t})))
    moves = []
    free: set = set()
    for i, (d, s, typ) in enumerate(mm.typed_moves()):
        w = _m.width(m, d) if typ is None else m.type(typ).width
        if typ is not None and any(isinstance(x, _m.Place) and x.is_list
                                   and _m.width(m, x) != w for x in (d, s)):
            raise PreconditionError(
                f"resolve: move {_m.format_move(d, s, typ)} has a list wider than its type; "
                "give the list exactly the type's width")
        # a typed list is exactly as wide as its type: moved untyped, part by
        # part (or by a pair move), which is what the typed move means
        listy = d.is_list or (isinstance(s, _m.Place) and s.is_list)
        view = None if listy else typ
        dst = _request_place(frame, d, w, view)
        src = _request_place(frame, s, w, view)
        moves.append((dst, src))
        free |= set(_m.units(m, d)) - set(mm.value_units(i))
    temps = [_request_place(frame, t, _m.width(m, t)) for t in mm.temps]
    return [to_mop(op) for op in resolve_frame(frame, moves, temps, preserve, trace, free)]


def _resolve_machine(mm: "_m.MachineMove", preserve: str = "all",
                     trace: Trace | None = None) -> list:
    try:
        return greedy(mm, preserve, trace)
    except Stuck as stuck:
        return _fall_back(mm, preserve, trace, str(stuck))


#: the sub-machine searches of ``_fall_back``: spares per class and slot
#: group, in order, and the states each may visit (the longest answer the
#: tests pin, aarch64 ``m0 <-> m1, m2 <-> m3`` with temp x0 in 12
#: operations, needs about 3,000)
SUB_SPARES = (1, 2)
SUB_STATES = 5_000


def _components(mm: "_m.MachineMove") -> list[list[int]]:
    """The request's moves grouped into independent parts: two moves are in
    one part when their destinations or sources share a unit."""
    m = mm.machine
    parent = list(range(len(mm.moves)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict = {}
    for i, (d, s) in enumerate(mm.moves):
        for u in (*_m.units(m, d), *(_m.units(m, s) if isinstance(s, _m.Place) else ())):
            if u in owner:
                parent[find(i)] = find(owner[u])
            else:
                owner[u] = i
    parts: dict = {}
    for i in range(len(mm.moves)):
        parts.setdefault(find(i), []).append(i)
    return list(parts.values())


@functools.lru_cache(maxsize=256)
def _part_answer(m: "_m.Machine", moves: str, temps: str, preserve: str) -> tuple:
    """One independent part of a stuck request, alone on the whole machine
    (remembered: conform and vectors ask the same part beside many other
    moves): ("ok", operations) from the greedy steps or the sub-machine
    search, or ("none", what was searched)."""
    import json
    part = _m.MachineMove.make(m, json.loads(moves), json.loads(temps))
    try:
        return "ok", tuple(greedy(part, preserve))
    except Stuck as e:
        why = str(e)
    path, searched = _sub_search(part, preserve)
    if path is not None:
        return "ok", tuple(path)
    return "none", f"{why}; the search found none on the sub-machine {searched}"


def _sub_search(mm: "_m.MachineMove", preserve: str) -> tuple[list | None, str]:
    """The search over the sub-machines of ``mm`` (``SUB_SPARES``, each
    capped at ``SUB_STATES``): (a sequence, where) or (None, what was
    searched)."""
    from . import machine_optimum as O
    searched = []
    for spares in SUB_SPARES:
        sub, names = O.sub_request(mm, spares)
        best, note, path = O.search_sequence(sub, preserve, SUB_STATES)
        where = (f"{', '.join(sub.machine.names())} ({len(sub.machine.units())} units; "
                 f"spares {', '.join(names) or 'none'})")
        if best is not None:
            return path, where
        searched.append(f"{where}: " + ("every state searched, none there"
                                        if note == O.NO_SEQUENCE else note))
        if note != O.NO_SEQUENCE:
            break
    return None, "; nor on ".join(searched)


def _by_parts(mm: "_m.MachineMove", preserve: str) -> tuple[list | None, str]:
    """Each independent part of the request solved alone, one after the
    other: under "all" a part's sequence keeps every unit that is not its
    destination or a temporary, so the parts before it leave its sources
    as they were (no temporary is a source: else this is not tried).
    (the sequence, None) or (None, the first part's refusal)."""
    import json
    parts = _components(mm)
    m = mm.machine
    temp_units = {u for t in mm.temps for u in _m.units(m, t)}
    if preserve != "all" or len(parts) < 2 or any(
            isinstance(s, _m.Place) and set(_m.units(m, s)) & temp_units
            for _, s in mm.moves):
        return None, ""
    req = mm.to_json()
    temps = json.dumps(req["temps"])
    ops: list = []
    for part in parts:
        moves = json.dumps([req["moves"][i] for i in part])
        how, got = _part_answer(m, moves, temps, preserve)
        if how != "ok":
            return None, f"the part ({', '.join(_m.format_move(*t) for k, t in enumerate(mm.typed_moves()) if k in part)}) alone: {got}"
        ops += got
    return ops, ""


def _save_plan(m: "_m.Machine", r: str, pool: list) -> tuple[list, list] | None:
    """(saves, restores) that free register ``r`` and give it back, every
    value kept: a push and a pop where the machine pushes ``r``; else a mov
    into one register of ``pool``, or a pair move into two (taken from
    it), pushed first and popped after (v8-arm: ``push r0; push r1; vmov
    r0, r1, d16`` ... ``vmov d16, r0, r1; pop r1; pop r0``); else its alias
    parts one by one; None when none of these is legal."""
    one = _m.Place((r,))
    push, pop = _m.MPush(one), _m.MPop(one)
    if not (_m.illegal(m, push) or _m.illegal(m, pop) or _m.reserved_write(m, pop)):
        return [push], [pop]
    holders = [(g,) for g in pool] + [(g1, g2) for i, g1 in enumerate(pool)
                                      for g2 in pool[i + 1:]]
    for regs in holders:
        held = _m.Place(regs, len(regs) > 1)
        out, back = _m.MMov(held, one), _m.MMov(one, held)
        if _m.illegal(m, out) or _m.illegal(m, back) or _m.reserved_write(m, back):
            continue
        plans = [_save_plan(m, g, []) for g in regs]
        if any(p is None for p in plans):
            continue
        for g in regs:
            pool.remove(g)
        return ([op for p in plans for op in p[0]] + [out],
                [back] + [op for p in reversed(plans) for op in p[1]])
    parts = dict(m.aliases).get(r)
    if parts:
        saves, restores = [], []
        for part in parts:
            got = _save_plan(m, part, pool)
            if got is None:
                return None
            saves += got[0]
            restores = got[1] + restores
        return saves, restores
    return None


def _through_borrowed(mm: "_m.MachineMove", preserve: str) -> tuple[list, str] | None:
    """The request solved with one or two registers it does not name freed
    first (``_save_plan``) and declared temporaries, then given back: a
    sequence S that implements the request with those registers as
    temporaries keeps every other unit it does not write, so the saved
    values (on the stack, or in the pushed registers of a pair move, which
    the request does not name either) are where the saves left them, and
    S's own pushes are popped within S.  (the sequence, the registers) or
    None; the oracle checks the joined sequence before it is used."""
    m = mm.machine
    if preserve != "all" or not m.push:
        return None
    named: set = set()
    for x in [loc for move in mm.moves for loc in move] + list(mm.temps):
        if isinstance(x, _m.Place):
            named |= set(_m.units(m, x))
    free = [n for n in m.names() if m.lookup(n).kind == "reg" and n not in m.reserved
            and not set(m.lookup(n).units) & (named | m.reserved_units())]
    widths = sorted({_m.width(m, x) for move in mm.moves for x in move
                     if isinstance(x, _m.Place)}, reverse=True)
    req = mm.to_json()
    for w in widths:
        for k in (1, 2):
            pool = list(free)
            chosen, saves, restores, used = [], [], [], set()
            for r in [n for n in free if m.lookup(n).width == w]:
                if len(chosen) == k:
                    break
                units = set(m.lookup(r).units)
                if units & used or r not in pool:
                    continue
                trial = [n for n in pool if not set(m.lookup(n).units) & units]
                plan = _save_plan(m, r, trial)
                if plan is None:
                    continue
                pool = [n for n in trial if not set(m.lookup(n).units) & used]
                used |= units
                # the pair's registers (gone from ``trial``) are not free any more
                chosen.append(r)
                saves += plan[0]
                restores = plan[1] + restores
            if len(chosen) < k:
                break
            spent = {u for op in saves for u in _m.written_units(m, op)} | used
            if spent & named:
                continue
            inner = _m.MachineMove.make(m, req["moves"], req["temps"] + chosen)
            try:
                body = greedy(inner, preserve)
            except Stuck:
                continue
            ops = saves + body + restores
            if _m.implements(mm, ops, preserve).ok:
                return ops, ", ".join(chosen)
    return None


def _fall_back(mm: "_m.MachineMove", preserve: str, trace: Trace | None, why: str) -> list:
    """The greedy steps are stuck.  On a machine small enough for the
    search (``machine_optimum.SEARCH_UNITS``), the search decides: its
    optimal sequence (trace event "search"), or ``Unsolvable`` (proved).
    On a larger machine: ``Unsolvable`` when the no-free-unit lemma
    (``machine_optimum.no_free_unit``) or value flow
    (``machine_optimum.unreachable_goal``) proves that no sequence exists; else
    the search over the **sub-machine** (``machine_optimum.sub_request``:
    the locations the request names plus one spare register of each class
    and one spare slot of each group of their widths, then two) gives the
    answer (trace event "sub-machine search"); when it finds none, an error
    that says exactly what was searched (not a proof for the whole machine:
    a sequence might need more spare registers than the sub-machine has)."""
    from . import machine_optimum as O
    say = trace or (lambda e, d: None)
    n = len(mm.machine.units())
    if n <= O.SEARCH_UNITS:
        best, note, path = O.search_sequence(mm, preserve)
        if best is None:
            if note == O.NO_SEQUENCE:
                raise Unsolvable(f"no sequence exists: {why} (proved by the search over every "
                                 "machine state)")
            raise PreconditionError(f"resolve found no sequence: {why} ({note})")
        for op in path:
            say("search", {"op": op})
        return path
    proof = (O.no_free_unit(mm, preserve) or O.unreachable_goal(mm, preserve)
             or O.over_capacity(mm, preserve) or O.no_last_write(mm, preserve))
    if proof is not None:
        raise Unsolvable(f"no sequence exists: {proof}")
    # registers freed through the stack and used as temporaries (v8-arm: a
    # d register saved in two pushed core registers by a pair move)
    got = _through_borrowed(mm, preserve)
    if got is not None:
        for op in got[0]:
            say("borrowed temporaries", {"op": op, "note": f"the greedy steps were stuck "
                                         f"({why}); {got[1]} saved, used as temporaries, "
                                         "given back"})
        return got[0]
    # independent parts alone first (each remembered: the same stuck part
    # recurs beside many other moves in conform's and vectors' cases)
    path, part_why = _by_parts(mm, preserve)
    if path is not None and _m.implements(mm, path, preserve).ok:
        for op in path:
            say("parts alone", {"op": op, "note": f"the greedy steps were stuck ({why}); "
                                                  "each independent part solved alone"})
        return path
    if part_why:
        raise PreconditionError(
            f"resolve found no sequence: {why}; {part_why} (this does not prove that none "
            f"exists on the whole {mm.machine.name}: a sequence could need more spare "
            f"registers or slots, or another part's free destination)")
    path, searched = _sub_search(mm, preserve)
    if path is not None:
        text = (f"the greedy steps were stuck ({why}); the search over the sub-machine "
                f"{searched} found this sequence, optimal there")
        for op in path:
            say("sub-machine search", {"op": op, "note": text})
        return path
    raise PreconditionError(
        f"resolve found no sequence: {why}; the search found none on the sub-machine "
        f"{searched} (this does not prove that none exists on the whole "
        f"{mm.machine.name}: a sequence could need more spare registers or slots)")


@algorithm(
    "resolve", model="machine",
    summary="the reference resolver for machines: free register, swap, temp slot or "
            "borrowed register for cycles; scratch for slot-to-slot; immediates last",
    source="this project (docs/machines.md, Resolver); learned from regalloc2 moves.rs, "
           "V8 gap-resolver.cc, QBE rega.c",
    bound=cost_bound, bound_text="cost <= 6 * cmax * changed destination units",
    proof="proofs/resolve.py")
def resolve(mm: "_m.MachineMove", preserve: str = "all",
            trace: Trace | None = None) -> list:
    """The machine resolver on a parallel move ``mm`` (``core.machine.
    MachineMove``) under the contract ``preserve``.  Raises ``Unsolvable``
    when no legal sequence exists.  ``trace(event, data)`` is called after
    every operation (``event`` says why it was emitted: "move", "scratch
    load", "cycle swap", "cycle park", "borrow: save", "immediate", ...;
    "search" when the greedy steps were stuck and the search answered, in
    which case ``data["op"]`` is a ``core.machine`` operation)."""
    return _resolve_machine(mm, preserve, trace)
