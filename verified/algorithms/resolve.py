"""``resolve``: the reference resolver for machines (``docs/machines.md``,
section "Resolver").

Input: a machine request (a parallel move over registers, stack slots,
register lists and immediates of one machine, its temporaries and its
contract).  Output: a sequence of ``mov`` / ``swap`` operations that the
machine has, implementing the move, or ``Unsolvable`` (a PreconditionError
whose message starts "no sequence exists") when no legal sequence exists.

How it works (learned from regalloc2's ``moves.rs``, V8's gap resolver and
QBE's ``rega.c``; none of their code is used).  It tracks, per unit, which
original value the unit holds now (``cur``) and which one it must hold at
the end (``goal``: a destination's source value, or under ``"preserve":
"all"`` its own value for every unit that is neither a destination nor a
temporary).  A unit is *pending* while ``cur != goal``.  A value is
*needed* while some pending unit's goal is that value.

Writing a place (a register, a slot) is **safe** when, for every unit it
changes, the unit is pending or has no goal (so no finished unit is
broken) and the value it loses is not needed or is still held by a unit
outside the place.  This one rule is the whole correctness argument (the
step lemma of ``proofs/resolve.py``): a safe write never loses a value
that some goal still needs, so every goal stays reachable; and a scratch
register that parks a cycle's value is never safe to reuse until the
parked value has been consumed or copied (the JIT bug of DESIGN's list).

The loop:

1. **ready jobs** (a job = one destination place and the values it must
   hold): write every job whose destination is safe, reading the values
   from wherever they are now (``_holder``: the original source, or the
   copy a cycle break made).  A move the machine lacks (``mov m1, m0``
   without ``mem_to_mem``) goes through a scratch register that is safe to
   write: a pending destination that wants the same values, else a free
   temporary or a destination whose old value is dead.
2. when nothing is ready but jobs are pending, the pending jobs block each
   other (a cycle); one **cycle break**, chosen by cost:
   * a swap with the place holding the job's values (``swap`` reg-reg or
     reg-mem, when the machine has it): finishes the job, the other place
     receives the blocked value;
   * else park the blocked value in a free place (a free register of the
     class first, then any register, then a temporary slot);
   * else **borrow**: save a register to a free place, use it, and leave a
     restore job (the register's own value, now held in the save place),
     which step 1 runs as soon as the register's borrowed content is dead;
   * else, when the machine has a swap with a register, swap the blocked
     place with a finished register (it joins the cycle and is swapped
     back);
   * else the request has no sequence.
3. **immediates last**: a constant has no reader, so its destination stays
   usable as scratch until the end; a constant into a slot on a machine
   whose ``immediate_to`` lacks ``"mem"`` goes through a register.

Register lists (``["a0", "a1"]``) are split into one job per register (no
machine has a pair mov).  An aliased register (``d0`` = ``s0:s1``) is moved
whole; its job is split into its parts only when its values are no longer
in one place (after a cycle break parked part of them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ..core.semantics import PreconditionError

#: a value a unit holds: an original unit id, or ("imm", k, i) (unit i of constant k)
Value = object
#: an operation as the resolver builds it: ("mov", dst, src) / ("swap", a, b),
#: operands are places; an immediate source is ``Imm``
Op = tuple


class Unsolvable(PreconditionError):
    """No sequence of the machine's operations implements the request."""


@dataclass(frozen=True)
class Imm:
    value: int
    width: int = 1


@dataclass(frozen=True)
class Place:
    """A place the resolver may name in an operation."""

    #: the operand as the machine spells it (a name, or a tuple of names for a list)
    name: object
    units: tuple
    #: "reg", "mem" or "list"
    kind: str
    #: the register class (None for a slot or a list)
    cls: str | None = None
    #: alias parts or list elements, in order (empty: cannot be split)
    parts: tuple = ()

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
    by_units: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for p in self.places:
            self.by_units.setdefault(p.units, p)

    @property
    def units(self) -> list:
        seen: dict = {}
        for p in self.places:
            for u in p.units:
                seen.setdefault(u, None)
        return list(seen)


@dataclass
class Job:
    """Write ``want`` (one value per unit) into ``dst``."""

    dst: Place
    want: tuple
    #: where the values were originally (preferred reader), None for a restore
    src: Place | None = None
    imm: Imm | None = None


def imm_values(imm: Imm) -> tuple:
    return tuple(("imm", imm.value, i) for i in range(imm.width))


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
        self.limit = 8 * (len(jobs) + 2) * (len(frame.units) + 2)

    # -- the state ---------------------------------------------------------

    def values(self, p: Place) -> tuple:
        return tuple(self.cur[u] for u in p.units)

    def pending(self, u) -> bool:
        return u in self.goal and self.cur[u] != self.goal[u]

    def needed(self) -> Counter:
        return Counter(self.goal[u] for u in self.goal if self.cur[u] != self.goal[u])

    def holders(self, v) -> list:
        return [u for u, x in self.cur.items() if x == v]

    def done(self, job: Job) -> bool:
        return self.values(job.dst) == job.want

    def open_jobs(self) -> list[Job]:
        return [j for j in self.jobs if not self.done(j)]

    def safe(self, p: Place, new: tuple, need: Counter | None = None,
             spare: Iterable = ()) -> bool:
        """Writing ``new`` into ``p`` breaks no finished unit and loses no
        needed value (``spare``: units whose current value the caller
        accounts for itself, e.g. the register being borrowed)."""
        need = self.needed() if need is None else need
        spare = set(spare)
        for u, v in zip(p.units, new):
            old = self.cur[u]
            if old == v or u in spare:
                continue
            if u in self.goal and old == self.goal[u]:
                return False
            if need[old] and not [w for w in self.holders(old) if w not in p.units]:
                return False
        return True

    # -- emitting ----------------------------------------------------------

    def emit(self, op: Op, why: str) -> None:
        if len(self.ops) > self.limit:
            raise AssertionError(f"resolve: no progress after {len(self.ops)} operations")
        kind, a, b = op
        if kind == "mov":
            vals = imm_values(b) if isinstance(b, Imm) else self.values(b)
            for u, v in zip(a.units, vals):
                self.cur[u] = v
        else:
            va, vb = self.values(a), self.values(b)
            for u, v in zip(a.units, vb):
                self.cur[u] = v
            for u, v in zip(b.units, va):
                self.cur[u] = v
        self.ops.append(op)
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
        for p in self.f.places:
            if p.width == len(want) and p is not avoid and self.values(p) == want:
                if p.kind == "reg":
                    return p
                best = best or p
        return best

    def _scratch(self, want: tuple, reader: Place, writer: Place, need: Counter) -> Place | None:
        """A register that may hold ``want`` in between ``mov R, reader``
        and ``mov writer, R``: a pending destination wanting those very
        values first (the copy is progress), else any safe register."""
        cands = []
        for r in self.f.places:
            if r.kind != "reg" or r.width != len(want):
                continue
            if set(r.units) & (set(reader.units) | set(writer.units)):
                continue
            if not (self.legal(("mov", r, reader)) and self.legal(("mov", writer, r))):
                continue
            if not self.safe(r, want, need):
                continue
            wants_it = any(j.dst is r and j.want == want for j in self.jobs)
            goal_free = not any(u in self.goal for u in r.units)
            cands.append((0 if wants_it else 1 if goal_free else 2, r))
        cands.sort(key=lambda c: c[0])
        return cands[0][1] if cands else None

    # -- step 1: ready jobs -------------------------------------------------

    def try_job(self, job: Job, need: Counter) -> bool:
        if job.imm is not None or not self.safe(job.dst, job.want, need):
            return False
        src = self._holder(job.want, job.src, avoid=job.dst)
        if src is None:
            return self._split(job)
        if self.legal(("mov", job.dst, src)):
            self.emit(("mov", job.dst, src), "move")
            return True
        r = self._scratch(job.want, src, job.dst, need)
        if r is None:
            return False
        self.emit(("mov", r, src), "scratch load")
        self.emit(("mov", job.dst, r), "scratch store")
        return True

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
            if job in self.jobs and not self.done(job) and self.try_job(job, self.needed()):
                progress = True
        return progress

    # -- step 2: cycle breaks -------------------------------------------------

    def _cycle_length(self, job: Job) -> int:
        seen, j, k = set(), job, 0
        while j is not None and id(j) not in seen:
            seen.add(id(j))
            k += 1
            holder = self._holder(j.want, j.src, avoid=j.dst)
            j = next((x for x in self.open_jobs() if holder is not None and x.dst is holder), None)
        return max(k, 2)

    def _free_place(self, vals: tuple, src: Place, need: Counter,
                    kinds: tuple = ("reg", "mem"), avoid: tuple = ()) -> Place | None:
        """A place where ``vals`` (now in ``src``) can be parked by one
        legal mov: same class first, then any register, then a slot."""
        cands = []
        for p in self.f.places:
            if p.width != len(vals) or p.kind not in kinds or set(p.units) & set(src.units + avoid):
                continue
            if not self.legal(("mov", p, src)) or not self.safe(p, vals, need):
                continue
            rank = (0 if p.kind == "reg" and p.cls == src.cls else
                    1 if p.kind == "reg" else 2)
            goal_free = not any(u in self.goal for u in p.units)
            cands.append((rank, 0 if goal_free else 1, p))
        cands.sort(key=lambda c: c[:2])
        return cands[0][2] if cands else None

    def break_cycle(self) -> bool:
        need = self.needed()
        open_jobs = [j for j in self.open_jobs() if j.imm is None]
        # swap or park, by cost
        for job in open_jobs:
            blocked = self.values(job.dst)
            holder = self._holder(job.want, job.src, avoid=job.dst)
            swap = None
            if holder is not None and not set(holder.units) & set(job.dst.units) \
                    and self.legal(("swap", job.dst, holder)) \
                    and all(self.pending(u) or u not in self.goal for u in holder.units):
                swap = ("swap", job.dst, holder)
            park = self._free_place(blocked, job.dst, need)
            if swap is None and park is None:
                continue
            if swap is not None and park is not None:
                k = self._cycle_length(job)
                move = ("mov", job.dst, holder)
                by_swap = (k - 1) * self.cost(swap)
                by_park = k * self.cost(move) + self.cost(("mov", park, job.dst))
                if by_park <= by_swap:
                    swap = None
            if swap is not None:
                self.emit(swap, "cycle swap")
            else:
                self.emit(("mov", park, job.dst), "cycle park")
            return True
        # a job that is safe but lacks a scratch register, or a blocked
        # one with nowhere to park: borrow a register
        for job in open_jobs:
            if self._borrow(job, need):
                return True
        # swap the blocked place with a finished register (it joins the cycle)
        for job in open_jobs:
            for r in self.f.places:
                if r.width != job.dst.width or set(r.units) & set(job.dst.units):
                    continue
                if self._borrowable(r) and self.legal(("swap", job.dst, r)):
                    self.jobs.append(self._restore_job(r))
                    self.emit(("swap", job.dst, r), "cycle swap with a finished register")
                    return True
        return False

    def _borrowable(self, r: Place) -> bool:
        """A register whose every unit is finished (it holds its goal): it
        can be saved, used and restored."""
        return r.kind == "reg" and all(u in self.goal and self.cur[u] == self.goal[u]
                                       for u in r.units)

    def _restore_job(self, r: Place) -> Job:
        return Job(r, tuple(self.goal[u] for u in r.units))

    def _borrow(self, job: Job, need: Counter) -> bool:
        """Save a finished register R to a free place, then use R: as the
        scratch of a job the machine cannot do in one mov, or to park the
        job's blocked destination.  R gets a restore job (its goal, now
        held in the save place), which step 1 runs once R's borrowed
        content is dead."""
        safe_now = self.safe(job.dst, job.want, need)
        src = self._holder(job.want, job.src, avoid=job.dst)
        for r in self.f.places:
            if r.width != job.dst.width or not self._borrowable(r):
                continue
            if set(r.units) & set(job.dst.units) or (src is not None and set(r.units) & set(src.units)):
                continue
            if safe_now and src is not None:
                if not (self.legal(("mov", r, src)) and self.legal(("mov", job.dst, r))):
                    continue
            elif not self.legal(("mov", r, job.dst)):
                continue
            save = self._free_place(self.values(r), r, need,
                                    avoid=job.dst.units + (src.units if src else ()))
            if save is None:
                continue
            self.emit(("mov", save, r), "borrow: save")
            self.jobs.append(self._restore_job(r))
            if safe_now and src is not None:
                self.emit(("mov", r, src), "borrow: scratch load")
                self.emit(("mov", job.dst, r), "borrow: scratch store")
            else:
                self.emit(("mov", r, job.dst), "borrow: park")
            return True
        return False

    # -- step 3: immediates -----------------------------------------------------

    def immediates(self) -> None:
        imm_jobs = [j for j in self.jobs if j.imm is not None]
        # the ones that need a scratch register first, while the other
        # constants' destinations can still serve as scratch
        imm_jobs.sort(key=lambda j: self.legal(("mov", j.dst, j.imm)))
        for job in imm_jobs:
            if self.done(job):
                continue
            need = self.needed()
            if not self.safe(job.dst, job.want, need):
                raise AssertionError(f"resolve: {job.dst.name} is not free for its constant")
            if self.legal(("mov", job.dst, job.imm)):
                self.emit(("mov", job.dst, job.imm), "immediate")
                continue
            r = self._imm_scratch(job, need)
            if r is None:
                r = self._imm_borrow(job, need)
            if r is None:
                raise Unsolvable(
                    f"no sequence exists: the constant {job.imm.value} for "
                    f"{_name(job.dst.name)} needs a register (the machine cannot "
                    "write an immediate there) and none is free or can be saved; "
                    "declare a temporary")
            self.emit(("mov", r, job.imm), "immediate via scratch")
            self.emit(("mov", job.dst, r), "immediate via scratch")
            self.ready_until_stuck()   # a borrowed register goes back at once
        self.ready_until_stuck()
        if self.open_jobs():
            raise AssertionError("resolve: a restore is left after the immediates")

    def _imm_scratch(self, job: Job, need: Counter) -> Place | None:
        cands = []
        for r in self.f.places:
            if r.kind != "reg" or r.width != job.dst.width:
                continue
            if not (self.legal(("mov", r, job.imm)) and self.legal(("mov", job.dst, r))):
                continue
            if not self.safe(r, job.want, need):
                continue
            wants_it = any(j.dst is r and j.want == job.want for j in self.jobs)
            cands.append((0 if wants_it else 1, r))
        cands.sort(key=lambda c: c[0])
        return cands[0][1] if cands else None

    def _imm_borrow(self, job: Job, need: Counter) -> Place | None:
        for r in self.f.places:
            if r.width != job.dst.width or not self._borrowable(r):
                continue
            if not (self.legal(("mov", r, job.imm)) and self.legal(("mov", job.dst, r))):
                continue
            save = self._free_place(self.values(r), r, need)
            if save is None or set(save.units) & set(job.dst.units):
                continue
            self.emit(("mov", save, r), "borrow: save")
            self.jobs.append(self._restore_job(r))
            return r
        return None

    # -- the loop -------------------------------------------------------------

    def ready_until_stuck(self) -> None:
        while self.ready_pass():
            pass

    def run(self) -> list[Op]:
        while True:
            self.ready_until_stuck()
            if not [j for j in self.open_jobs() if j.imm is None]:
                break
            if not self.break_cycle():
                stuck = [j for j in self.open_jobs() if j.imm is None]
                raise Unsolvable(
                    "no sequence exists: "
                    + ", ".join(f"{_name(j.dst.name)}" for j in stuck)
                    + " wait on each other (a cycle, or a move the machine can only "
                    "do through a register) and there is no free register or slot "
                    "to break it with and no swap that fits; declare a temporary")
        self.immediates()
        return self.ops


def _name(name: object) -> str:
    return "[" + ", ".join(map(str, name)) + "]" if isinstance(name, tuple) else str(name)


# ---------------------------------------------------------------------------
# From a request to jobs and goals
# ---------------------------------------------------------------------------


def plan(frame: Frame, moves: Sequence[tuple[Place, "Place | Imm"]],
         temps: Sequence[Place], preserve: str) -> tuple[list[Job], dict]:
    """The jobs (register lists split element-wise) and the unit goals."""
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
        temp_units = {u for t in temps for u in t.units}
        for u in frame.units:
            if u not in goal and u not in temp_units:
                goal[u] = u
    jobs = [j for j in jobs if j.dst.units != j.want]
    return jobs, goal


def _split_pair(dst: Place, src: Place) -> list[tuple[Place, Place]]:
    """A list location is moved element by element (no pair mov); the
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
                  trace: Trace | None = None) -> list[Op]:
    jobs, goal = plan(frame, moves, temps, preserve)
    return _Run(frame, jobs, goal, trace).run()
