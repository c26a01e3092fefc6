"""Proofs of ``verified.algorithms.resolve`` (the machine resolver).

1. UNBOUNDED step lemmas (every unit count: units and values are
   uninterpreted Z3 sorts of any cardinality; the state is Z3 arrays).
   State: ``cur[u]`` the value unit u holds, ``goal[u]`` the value it must
   hold at the end, ``hg[u]`` u has a goal (a destination, or under "all" a
   unit that is no temporary's), ``imm(v)`` v is a constant's piece.
   u is *finished* when ``hg[u] and cur[u] == goal[u]``.  THE invariant
   (``_Run.keeps`` in the Python resolver, clauses (1) and (2)):

       INV(cur):  every unfinished unit's goal value, unless a constant,
                  is held by some unit.

   and a step is admitted when it keeps INV and unfinishes no finished
   unit (except the units of a borrowed register).  Lemmas, each for a
   single-unit operation:

   * ``move``: writing a pending unit d with its goal value (held by s),
     when d's old value is no unfinished unit's goal or is also held
     elsewhere (the "ready" guard), keeps INV, unfinishes nothing,
     finishes d: the number of unfinished units drops by one;
   * ``swap``: swapping a pending d with a unit h holding d's goal, h not
     finished, keeps INV, unfinishes nothing, finishes d;
   * ``park``: copying a blocked d's value into a unit p that is not
     finished and whose old value is no unfinished goal or held elsewhere
     keeps INV, unfinishes nothing, and makes d ready (its value now has a
     second holder): the cycle is open;
   * ``borrow``: saving a finished register r into such a p and then
     writing r keeps INV: r's goal value is held by p, so r's restore job
     can always run.
   Each lemma goes through ``proofs.common.prove`` with witnesses: its
   guard's interesting case is satisfiable with the hypotheses (e.g. the
   move's "d's old value is needed but held elsewhere"), so a lemma cannot
   be proved of states where the step never matters.
   Mutants of the lemmas (must be refuted): ``move`` without the
   ready guard (the JIT bug: a scratch holding a parked value is reused),
   ``swap`` with a finished holder.
   NOT covered here: that the loop always finds a step while jobs are open
   (the greedy can get stuck; then the search decides, see
   ``resolve._fall_back``), operations on places wider than one unit, and
   invariant (3) of ``keeps``.

2. BOUNDED, inputs enumerated (not symbolic): every request over the small
   machines of ``tests/machines/resolve_cases.py`` (2 registers + 2 slots +
   1 immediate: all 6**4 moves, both contracts): the resolver's output is
   proved to implement the move by the Z3 semantics of ``proofs/machine.py``
   (its own units and legality, written from the machine's JSON; contracts
   of the Python code switched off, so Z3 is the judge).  A mutant
   (``mutants/resolve.py``: swap_without_legality) gets a counterexample.

3. BOUNDED, symbolic requests (section 3 below): on the small machine
   with a temporary register (5 units), for every request at once and
   every INV state: progress of the greedy steps when a register is free,
   the measure (unfinished, blocked) dropping at every step, INV at the
   start and the contract at the end.

4. BOUNDED, symbolic requests, the whole run (``proofs/resolve_run.py``):
   on the same machine, every run of the model of the greedy steps (moves,
   parks, borrows of a finished register, constants last, in the code's
   order) from every request's initial state stops within K steps at the
   request's contract, states with no free register included; the real
   ``resolve.greedy``'s runs on every request of treg are runs of that
   model (enumerated).  The same on treg-swap (xchg) and on tpair (a
   two-unit slot md and pair moves md <-> [x, y]: 6 units); other
   machines are not in the bounded claims.
"""

from __future__ import annotations

import functools
import os
import time

import z3

from . import resolve_run as RUN
from .common import ENUMERATED, PROVED, REFUTED, Ledger, planted, prove, prove_all, row

U = z3.DeclareSort("RUnit")
V = z3.DeclareSort("RVal")


class S:
    """The symbolic state (arrays over the unit sort)."""

    def __init__(self, tag: str = "") -> None:
        self.cur = z3.Const(f"cur{tag}", z3.ArraySort(U, V))
        self.goal = z3.Const("goal", z3.ArraySort(U, V))
        self.hg = z3.Const("hg", z3.ArraySort(U, z3.BoolSort()))
        self.imm = z3.Function("imm", V, z3.BoolSort())


def fin(st: S, c, u):
    return z3.And(st.hg[u], c[u] == st.goal[u])


def inv(st: S, c):
    u, w = z3.Const("iu", U), z3.Const("iw", U)
    return z3.ForAll([u], z3.Implies(
        z3.And(st.hg[u], c[u] != st.goal[u], z3.Not(st.imm(st.goal[u]))),
        z3.Exists([w], c[w] == st.goal[u])))


def keeps(st: S, c, c2, allow=None):
    """INV after, and no finished unit unfinished (but ``allow``)."""
    u = z3.Const("ku", U)
    ok = z3.Not(allow(u)) if allow is not None else z3.BoolVal(True)
    return z3.And(inv(st, c2), z3.ForAll([u], z3.Implies(z3.And(fin(st, c, u), ok),
                                                          fin(st, c2, u))))


def no_new_unfinished(st: S, c, c2):
    u = z3.Const("nu", U)
    return z3.ForAll([u], z3.Implies(z3.Not(fin(st, c2, u)), z3.Not(fin(st, c, u))))


def free_to_overwrite(st: S, c, p):
    """p's old value is no unfinished unit's goal, or another unit holds it."""
    u, w = z3.Const("fu", U), z3.Const("fw", U)
    return z3.ForAll([u], z3.Implies(
        z3.And(st.hg[u], c[u] != st.goal[u], st.goal[u] == c[p]),
        z3.Exists([w], z3.And(w != p, c[w] == c[p]))))


def lemma_move(timer: Ledger, mutant: str | None = None, timeout_ms: int = 60_000) -> str:
    st = S()
    c = st.cur
    d, s = z3.Consts("d s", U)
    hyp = [inv(st, c), st.hg[d], c[d] != st.goal[d], c[s] == st.goal[d]]
    if mutant != "move_without_guard":
        hyp.append(free_to_overwrite(st, c, d))
    c2 = z3.Store(c, d, c[s])
    goal = z3.And(keeps(st, c, c2), fin(st, c2, d), z3.Not(fin(st, c, d)),
                  no_new_unfinished(st, c, c2))
    e, w = z3.Consts("we ww", U)
    witnesses = {
        # the guard's second branch: d's old value is needed, and held elsewhere
        "guard: d's old value is another unfinished unit's goal, also held by w != d":
            z3.And(e != d, st.hg[e], c[e] != st.goal[e], st.goal[e] == c[d], w != d,
                   c[w] == c[d]),
        "another unit is still unfinished after the step":
            z3.And(e != d, st.hg[e], c2[e] != st.goal[e]),
    }
    return prove(goal, hyp, timeout_ms, timer, witnesses=witnesses)[0]


def lemma_swap(timer: Ledger, mutant: str | None = None, timeout_ms: int = 60_000) -> str:
    st = S()
    c = st.cur
    d, h = z3.Consts("d h", U)
    hyp = [inv(st, c), d != h, st.hg[d], c[d] != st.goal[d], c[h] == st.goal[d]]
    if mutant != "swap_finished_holder":
        hyp.append(z3.Not(fin(st, c, h)))
    c2 = z3.Store(z3.Store(c, d, c[h]), h, c[d])
    goal = z3.And(keeps(st, c, c2), fin(st, c2, d), no_new_unfinished(st, c, c2))
    witnesses = {
        "the holder h has a goal of its own and is unfinished": z3.And(
            st.hg[h], c[h] != st.goal[h]),
        "the swap finishes h too (a 2-cycle)": z3.And(st.hg[h], c[d] == st.goal[h]),
    }
    return prove(goal, hyp, timeout_ms, timer, witnesses=witnesses)[0]


def lemma_park(timer: Ledger, timeout_ms: int = 60_000) -> str:
    st = S()
    c = st.cur
    d, p = z3.Consts("d p", U)
    hyp = [inv(st, c), d != p, z3.Not(fin(st, c, p)), free_to_overwrite(st, c, p)]
    c2 = z3.Store(c, p, c[d])
    goal = z3.And(keeps(st, c, c2), no_new_unfinished(st, c, c2), free_to_overwrite(st, c2, d))
    e, w = z3.Consts("we ww", U)
    witnesses = {
        # the case the step is for: d's value is needed and d is its only holder
        "d is blocked: its value is an unfinished unit's goal and no other unit holds it":
            z3.And(st.hg[e], c[e] != st.goal[e], st.goal[e] == c[d],
                   z3.ForAll([w], z3.Implies(w != d, c[w] != c[d]))),
        "d itself is pending": z3.And(st.hg[d], c[d] != st.goal[d]),
    }
    return prove(goal, hyp, timeout_ms, timer, witnesses=witnesses)[0]


def lemma_borrow(timer: Ledger, timeout_ms: int = 60_000) -> str:
    st = S()
    c = st.cur
    r, p = z3.Consts("r p", U)
    x = z3.Const("x", V)
    hyp = [inv(st, c), r != p, fin(st, c, r), z3.Not(fin(st, c, p)), free_to_overwrite(st, c, p)]
    c1 = z3.Store(c, p, c[r])            # save r in p
    c2 = z3.Store(c1, r, x)              # use r (any value)
    goal = z3.And(keeps(st, c, c2, allow=lambda u: u == r), c2[p] == st.goal[r])
    e = z3.Const("we", U)
    witnesses = {
        "the use of r unfinishes r": x != st.goal[r],
        "another unit is unfinished while r is borrowed": z3.And(
            e != r, e != p, st.hg[e], c[e] != st.goal[e]),
    }
    return prove(goal, hyp, timeout_ms, timer, witnesses=witnesses)[0]


LEMMAS = [
    ("resolve move: a ready write of a pending unit keeps INV, unfinishes nothing, "
     "finishes it (unfinished units drop by one) [unbounded, single-unit op; model: the resolver's invariant, refined by the enumerated code rows; witnesses: the "
     "guard's needed-but-held-elsewhere branch, another unit left unfinished]",
     lambda t: lemma_move(t)),
    ("resolve swap: swapping a pending unit with an unfinished holder of its goal keeps "
     "INV and finishes it [unbounded, single-unit op; model: the resolver's invariant, refined by the enumerated code rows; witnesses: the holder pending itself, "
     "a 2-cycle]", lambda t: lemma_swap(t)),
    ("resolve park: copying a blocked value into a free unit keeps INV and makes the "
     "blocked unit ready [unbounded, single-unit op; model: the resolver's invariant, refined by the enumerated code rows; witnesses: d blocked (the only holder of "
     "a needed value), d pending]", lambda t: lemma_park(t)),
    ("resolve borrow: save a finished register in a free unit, then use it: INV holds, "
     "the save holds its goal [unbounded, single-unit op; model: the resolver's invariant, refined by the enumerated code rows; witnesses: the use unfinishes r, "
     "another unit unfinished]", lambda t: lemma_borrow(t)),
]
MUTANT_LEMMAS = [
    ("MUTANT move_without_guard: write a pending unit whose value is the only copy of "
     "a needed value (a parked scratch reused) [unbounded]",
     lambda t: lemma_move(t, "move_without_guard", 20_000)),
    ("MUTANT swap_finished_holder: swap with a finished holder [unbounded]",
     lambda t: lemma_swap(t, "swap_finished_holder", 20_000)),
]


# ---------------------------------------------------------------------------
# 3. Bounded, symbolic requests: the greedy steps' progress and measure on
#    the small machine with a temporary register
# ---------------------------------------------------------------------------
#
# The same state and invariant as the step lemmas (cur, goal, hg, imm; INV;
# free_to_overwrite), on the finite units of the small machine "treg" of
# tests/machines/resolve_cases.py: registers a, b and the temporary t, slots
# m0, m1, the immediate 7; no swap, no slot-to-slot mov, constants into
# registers only.  The REQUEST is symbolic: each of a, b, m0, m1 gets a source
# (one of the four, the immediate, or none) and the contract is "all" or
# "loops" (every one of the 6**4 x 2 requests at once); the STATE is any
# assignment of values to the five units that satisfies INV (every state the
# steps can reach does, by the lemmas above, and more).  The steps, each with
# the machine's legality:
#
# * move d <- s (a pending d, s holding its goal, d free to overwrite; not
#   slot <- slot), or through a free register r (mov r <- s; mov d <- r), a
#   constant likewise (into a register directly, into a slot through r);
# * park: a blocked d's value copied into a free register r.
#
# A register is *free* when it is unfinished and holds a constant or a
# value no pending unit wants (a park into a register holding a copy of a
# needed value can block that value's other holder: two such parks undo
# each other, which the code detects and hands to the search).
#
# Claims (each a Z3 query over finite sorts: bounded to this machine, every
# request and state of it):
#
# * progress: in every INV state with a pending unit and a free register
#   some step applies (states with no free register are not covered: there
#   the code borrows, swaps, parks into a copy or asks the search);
# * measure: every step keeps INV and unfinishes no finished unit; a move
#   finishes its d (unfinished units drop by one), a park leaves them and
#   unblocks d without blocking r (blocked pending units drop by one): the
#   pair (unfinished, blocked) drops lexicographically, so every run stops;
# * init and final: INV holds at the start of every request, and a state
#   with no pending unit meets the request's contract (each destination
#   holds its source's value or the constant; under "all" every other
#   location but t its own).
#
# So every maximal run of these steps implements every request of this
# machine.  NOT covered: which step the Python code picks among those that
# apply (the enumerated code rows check its outputs on every request), its
# other steps (swaps, borrows, slots as parking places: the other machines,
# where progress needs them and the greedy can get stuck, then the search
# decides), register pairs, machines other than this one.

TREG_UNITS = ("a", "b", "t", "m0", "m1")
TREG_REGS = ("a", "b", "t")
REQUEST_LOCS = ("a", "b", "m0", "m1")


@functools.cache
def _treg_sorts():
    Uf, ue = z3.EnumSort("TregUnit", list(TREG_UNITS))
    Vf, ve = z3.EnumSort("TregVal", [f"v_{u}" for u in TREG_UNITS] + ["v_imm7"])
    return Uf, dict(zip(TREG_UNITS, ue)), Vf, dict(zip(TREG_UNITS, ve[:5])), ve[5]


class _Finite:
    """A symbolic request and state of the treg machine (finite sorts):
    the fields of ``S`` over them, the request's own variables, and INV
    and free_to_overwrite expanded over the five units."""

    def __init__(self, tag: str = "") -> None:
        Uf, self.u, Vf, self.val, self.imm7 = _treg_sorts()
        self.units = [self.u[n] for n in TREG_UNITS]
        self.regs = {self.u[n] for n in TREG_REGS}.__contains__
        self.cur = z3.Const(f"fcur{tag}", z3.ArraySort(Uf, Vf))
        # the request: src_of[d] (a value) when has_src[d]; "all" or "loops"
        self.src_of = {n: z3.Const(f"src_{n}", Vf) for n in REQUEST_LOCS}
        self.has_src = {n: z3.Bool(f"has_{n}") for n in REQUEST_LOCS}
        self.all = z3.Bool("preserve_all")
        self.hyps = [z3.Or(*[self.src_of[n] == v for v in
                             [self.val[m] for m in REQUEST_LOCS] + [self.imm7]])
                     for n in REQUEST_LOCS]

    def hg(self, n: str):
        return z3.BoolVal(False) if n == "t" else z3.Or(self.has_src[n], self.all)

    def goal(self, n: str):
        return self.val[n] if n == "t" else z3.If(self.has_src[n], self.src_of[n], self.val[n])

    def is_imm(self, v):
        return v == self.imm7

    def fin(self, c, n):
        return z3.And(self.hg(n), c[self.u[n]] == self.goal(n))

    def pending(self, c, n):
        return z3.And(self.hg(n), c[self.u[n]] != self.goal(n))

    def held(self, c, v, but=None):
        return z3.Or(*[c[self.u[w]] == v for w in TREG_UNITS if w != but])

    def inv(self, c):
        return z3.And(*[z3.Implies(z3.And(self.pending(c, n), z3.Not(self.is_imm(self.goal(n)))),
                                   self.held(c, self.goal(n))) for n in TREG_UNITS])

    def free(self, c, p):
        """p's value is no pending unit's goal, or a constant (it can be
        written again), or another unit holds it."""
        return z3.Or(self.is_imm(c[self.u[p]]), z3.And(*[
            z3.Implies(z3.And(self.pending(c, n), self.goal(n) == c[self.u[p]]),
                       self.held(c, c[self.u[p]], but=p)) for n in TREG_UNITS]))

    def dead(self, c, p):
        """p holds a constant or a value no pending unit wants: writing p
        touches no holder of a needed value."""
        v = c[self.u[p]]
        return z3.Or(self.is_imm(v), z3.And(*[z3.Not(z3.And(self.pending(c, n), self.goal(n) == v))
                                              for n in TREG_UNITS]))

    def blocked(self, c, d):
        return z3.And(self.pending(c, d), z3.Not(self.free(c, d)))

    def wanted(self, c):
        """R: every unit holds its own original value or a value some unit
        wants (the steps write nothing else: a move a goal, a park a
        blocked, hence wanted, value)."""
        return z3.And(*[z3.Or(c[self.u[n]] == self.val[n],
                              *[z3.And(self.hg(m), c[self.u[n]] == self.goal(m))
                                for m in TREG_UNITS])
                        for n in TREG_UNITS])

    def keeps(self, c, c2):
        return z3.And(self.inv(c2), self.wanted(c2),
                      *[z3.Implies(self.fin(c, n), self.fin(c2, n)) for n in TREG_UNITS])

    def count(self, c, pred):
        return z3.Sum(*[z3.If(pred(c, n), 1, 0) for n in TREG_UNITS])


def treg_steps(F: _Finite, c, mutant: str | None = None):
    """Every step of the repertoire as (name, guard, state after, the unit
    it finishes or None for a park, the parked unit)."""
    out = []
    slot = lambda n: n not in TREG_REGS  # noqa: E731
    for d in TREG_UNITS:
        if d == "t":
            continue
        g = F.goal(d)
        base = z3.And(F.pending(c, d), F.free(c, d))
        # a constant: into a register directly, into a slot through r
        if not slot(d):
            out.append((f"imm {d}", z3.And(base, F.is_imm(g)), z3.Store(c, F.u[d], g), d))
        for r in TREG_REGS:
            if r == d:
                continue
            rfree = z3.And(z3.Not(F.fin(c, r)), F.dead(c, r))
            if slot(d):
                out.append((f"imm {d} via {r}", z3.And(base, F.is_imm(g), rfree),
                            z3.Store(z3.Store(c, F.u[r], g), F.u[d], g), d))
        for s in TREG_UNITS:
            if s == d:
                continue
            has = z3.And(base, c[F.u[s]] == g)
            if not (slot(d) and slot(s)):
                out.append((f"mov {d} <- {s}", has, z3.Store(c, F.u[d], g), d))
            else:
                for r in TREG_REGS:
                    rfree = z3.And(z3.Not(F.fin(c, r)), F.dead(c, r))
                    out.append((f"mov {d} <- {s} via {r}", z3.And(has, rfree),
                                z3.Store(z3.Store(c, F.u[r], g), F.u[d], g), d))
        if mutant == "no_park":
            continue
        for r in TREG_REGS:
            if r == d:
                continue
            guard = z3.And(F.blocked(c, d), z3.Not(F.fin(c, r)))
            if mutant != "park_anywhere":
                guard = z3.And(guard, F.dead(c, r))
            out.append((f"park {d} in {r}", guard, z3.Store(c, F.u[r], c[F.u[d]]), None, d))
    return out


def treg_progress(ledger: Ledger, mutant: str | None = None, timeout_ms: int = 60_000) -> str:
    """In every INV state of every request with a pending unit, some step
    of the repertoire applies."""
    F = _Finite()
    c = F.cur
    some_pending = z3.Or(*[F.pending(c, n) for n in TREG_UNITS])
    goal = z3.Or(*[step[1] for step in treg_steps(F, c, mutant)])
    # a register is free: unfinished and holding a constant or a value no
    # pending unit wants (with none free the resolver borrows, swaps, parks
    # into a copy or asks the search: not covered here)
    free_reg = z3.Or(*[z3.And(z3.Not(F.fin(c, r)), F.dead(c, r)) for r in TREG_REGS])
    hyp = F.hyps + [F.inv(c), F.wanted(c), some_pending, free_reg]
    every_blocked = z3.And(*[z3.Implies(F.pending(c, n), F.blocked(c, n)) for n in TREG_UNITS])
    witnesses = {
        "every pending unit is blocked (only a park applies: a cycle)": every_blocked,
        "a pending slot whose goal is held only by a slot (slot <- slot, through a register)":
            z3.Or(*[z3.And(F.pending(c, d), F.has_src[d], F.src_of[d] == F.val[s],
                           c[F.u[s]] == F.val[s],
                           *[c[F.u[w]] != F.val[s] for w in TREG_UNITS if w != s])
                    for d in ("m0", "m1") for s in ("m0", "m1") if d != s]),
        "a pending slot whose goal is the constant (into a slot through a register)":
            z3.Or(*[z3.And(F.pending(c, d), F.is_imm(F.goal(d))) for d in ("m0", "m1")]),
        "the contract is all and a and b both have goals": z3.And(F.all, F.hg("a"), F.hg("b")),
    }
    return prove(goal, hyp, timeout_ms, ledger, witnesses=witnesses)[0]


def treg_measure(ledger: Ledger, mutant: str | None = None, timeout_ms: int = 60_000) -> str:
    """Every step keeps INV and unfinishes nothing; a move finishes its
    unit, a park unblocks its unit and blocks nothing: (unfinished,
    blocked) drops lexicographically."""
    F = _Finite()
    c = F.cur
    results = []
    unfinished = lambda st: F.count(st, F.pending)  # noqa: E731
    blocked = lambda st: F.count(st, F.blocked)  # noqa: E731
    for step in treg_steps(F, c, mutant):
        name, guard, c2, finishes = step[:4]
        if finishes is not None:
            drop = z3.And(F.fin(c2, finishes), unfinished(c2) < unfinished(c))
        else:
            drop = z3.And(unfinished(c2) <= unfinished(c), blocked(c2) < blocked(c),
                          z3.Not(F.blocked(c2, step[4])))
        witnesses = {f"the step {name} applies": guard}
        results.append(prove(z3.And(F.keeps(c, c2), drop),
                             F.hyps + [F.inv(c), F.wanted(c), guard],
                             timeout_ms, ledger, witnesses=witnesses)[0])
    from .common import combine
    return combine(results)


def treg_init_final(ledger: Ledger, timeout_ms: int = 60_000) -> str:
    """INV at the start (every unit holds its own value) of every request;
    no pending unit => the request's contract."""
    from .common import combine
    F = _Finite()
    init = F.cur
    ident = z3.And(*[init[F.u[n]] == F.val[n] for n in TREG_UNITS])
    r1 = prove(z3.And(F.inv(init), F.wanted(init)), F.hyps + [ident], timeout_ms, ledger)[0]
    c = F.cur
    done = z3.And(*[z3.Not(F.pending(c, n)) for n in TREG_UNITS])
    contract = z3.And(*[z3.And(
        z3.Implies(F.has_src[n], c[F.u[n]] == F.src_of[n]),
        z3.Implies(z3.And(z3.Not(F.has_src[n]), F.all), c[F.u[n]] == F.val[n]))
        for n in REQUEST_LOCS])
    r2 = prove(contract, F.hyps + [done], timeout_ms, ledger, witnesses={
        "some destination's source is another location": z3.Or(*[
            z3.And(F.has_src[n], F.src_of[n] != F.val[n], F.src_of[n] != F.imm7)
            for n in REQUEST_LOCS])})[0]
    return combine([r1, r2])


TREG_TEXT = ("the small machine 'treg' (registers a, b and the temporary t, slots m0, "
             "m1, the immediate 7; no swap, no slot-to-slot mov, constants into registers "
             "only), every request at once (symbolic: each of a, b, m0, m1 gets a source "
             "among the four locations, 7 or none; contract all or loops) and every state "
             "satisfying INV (finite Z3 sorts: bounded to this machine's 5 units; model: "
             "the resolver's steps as a repertoire, the code's choice among them is the "
             "enumerated rows')")
TREG_LEMMAS = [
    ("resolve progress (greedy steps, bounded): in every INV state with a pending unit "
     "and a free register (unfinished, holding a constant or a value no pending unit "
     "wants) some step applies: a move (direct, or through a free register for slot <- "
     "slot and a constant into a slot) or a park of a blocked value in a free register "
     "(with no free register the code borrows, swaps, parks into a copy or asks the "
     "search: not covered); on "
     + TREG_TEXT + "; witnesses: every pending unit blocked, slot <- slot, a constant "
     "into a slot, contract all", lambda t: treg_progress(t)),
    ("resolve measure (greedy steps, bounded): every step of that repertoire keeps INV and "
     "unfinishes nothing; a move finishes its unit (unfinished units drop), a park "
     "unblocks its unit and blocks nothing (blocked pending units drop): (unfinished, "
     "blocked) drops lexicographically, so every run stops; on " + TREG_TEXT +
     "; witnesses: each step applies somewhere", lambda t: treg_measure(t)),
    ("resolve init and final (bounded): INV holds at the start of every request, and a "
     "state with no pending unit meets the request's contract (with progress and the "
     "measure: every maximal run of the steps implements every request); on " + TREG_TEXT,
     lambda t: treg_init_final(t)),
]
TREG_MUTANTS = [
    ("MUTANT no_park: progress without the park step (a cycle of pending units blocks "
     "every move) [bounded, the treg machine]", lambda t: treg_progress(t, "no_park", 20_000)),
    ("MUTANT park_anywhere: a park into a register whose value is still needed and held "
     "nowhere else [bounded, the treg machine]",
     lambda t: treg_measure(t, "park_anywhere", 20_000)),
]


# ---------------------------------------------------------------------------
# 4. Bounded, symbolic requests: the whole greedy run on treg, borrows and
#    states with no free register included (proofs/resolve_run.py)
# ---------------------------------------------------------------------------

def run_text(moves: str, swaps: bool) -> str:
    machine = ("the small machine 'treg-swap' (treg with x86-64's xchg reg-reg and reg-mem)"
               if swaps else "the small machine 'treg'")
    return (f"on {machine} (registers a, b and the temporary t, slots m0, m1, the "
            "immediate 7; no slot-to-slot mov, constants into registers only), every "
            f"request at once (symbolic: {moves} x 2 contracts, each of a, b, m0, m1 a "
            "destination with a source among the four locations or 7, or not; contract all "
            "or loops) and every run of the model from the request's initial state (finite "
            "Z3 sorts: bounded to this machine's 5 units and K steps; model: the resolver's "
            "steps in the step lemmas' encoding, tried in the code's order: moves, then "
            + ("a cycle swap or " if swaps else "") + "a park of the first blocked job into "
            "a place holding no needed value, then borrows of a finished register (saved "
            "or not, for a scratch or a park written at once), constants last; any "
            "admitted step of the first class that has one)")


def run_rows(quick: bool) -> list:
    spare = QUICK_SPARE if quick else None
    moves = f"the 6**3 moves that leave {spare} alone" if spare else "6**4 moves"
    rows = []
    for swaps in (False, True):
        rows.append((
            f"resolve run{' (swap)' if swaps else ''} (greedy steps, bounded, whole run): "
            f"every run of the model stops within K = {RUN.K[swaps, spare]} steps, never "
            "stuck, with no pending unit left and the request's contract met (each "
            "destination holds its source's value or 7; under all every other location but "
            "t its own)" + ("" if swaps else ", states with no free register included "
                            "(there the model borrows)") + "; " + run_text(moves, swaps) +
            "; witnesses: a run still short after K - 1 steps (K is tight), loops with a "
            "location left alone, " + ("a swap, a park" if swaps else
                                      "a state with no free register, a borrow, a park"),
            lambda t, swaps=swaps: RUN.run_claim(t, spare=spare, swaps=swaps)))
    rows.append((
        "resolve run (pair) (greedy steps, bounded, whole run): every run of the model stops "
        f"within K = {RUN.K['tpair', None]} steps, never stuck, with no pending unit left and "
        "the request's contract met; on the small machine 'tpair' (registers a, b and the "
        "temporary t, the slot m0 and the two-unit slot md (units d0, d1), the immediate 7; "
        "no slot-to-slot mov, constants into registers only, md written and read only whole "
        "by a pair move with a list of two registers, AArch64 STP/LDP: mov md, [x, y] and "
        "mov [a, b], md), every request at once (symbolic: 380 moves x 2 contracts: md gets "
        "[a, b], [b, a] or nothing; [a, b] gets md, or each of a, b, m0 a source among a, b, "
        "m0 or 7, or nothing; never md <- [a, b] or [b, a] with [a, b] <- md, a cycle of a "
        "pair the greedy steps give up on) and every run of the model (finite Z3 sorts: "
        "bounded to this machine's 6 units and K steps; model: the treg steps in the step "
        "lemmas' encoding, md's units holders only of md's own values, plus the pair moves "
        "of the request's jobs, a store possibly after a load of one half from m0, each "
        "admitted only where it keeps THE invariant); witnesses: a pair move, a borrow, a "
        "park, a run still short after K - 1 steps (K is tight), loops with a location left "
        "alone", lambda t: RUN.run_claim(t, m=RUN.TPAIR)))
    part = "contract all, every location a destination"
    rows += [
        ("MUTANT pair_unchecked: a pair move admitted without THE invariant (the load "
         "[a, b] <- md overwrites a value still needed) [bounded, tpair, every request]",
         lambda t: RUN.run_claim(t, mutant="pair_unchecked", timeout_ms=120_000,
                                 m=RUN.TPAIR)),
        ("MUTANT no_borrow: the whole run without the borrow steps (a request whose "
         f"destinations leave no free register gets stuck) [bounded, treg, {part}]",
         lambda t: RUN.run_claim(t, mutant="no_borrow", timeout_ms=120_000,
                                 part=RUN.FULL_PART)),
        ("MUTANT borrow_unchecked: a borrow admitted without THE invariant (a finished "
         "register used as scratch or park with its value saved nowhere) [bounded, treg, "
         f"{part}]",
         lambda t: RUN.run_claim(t, mutant="borrow_unchecked", timeout_ms=120_000,
                                 part=RUN.FULL_PART)),
        ("MUTANT no_park_step: the whole run with swaps but without parks (a cycle of two "
         f"slots has no xchg mem-mem) [bounded, treg-swap, {part}]",
         lambda t: RUN.run_claim(t, mutant="no_park_step", timeout_ms=120_000,
                                 part=RUN.FULL_PART, swaps=True)),
    ]
    return rows


# ---------------------------------------------------------------------------
# 2. Bounded, inputs enumerated: every output judged by the Z3 semantics
# ---------------------------------------------------------------------------


#: ``--quick`` enumerates the moves that leave this location alone (6**3
#: of the 6**4; the untouched register is still preserved, and borrowable)
QUICK_SPARE = "b"


def enumerated(variant: dict, resolver, ledger: Ledger,
               spare: str | None = None) -> tuple[str, int, int, str]:
    """(result, outputs proved, refusals, first counterexample) for every
    request of one small-machine variant under both contracts (with
    ``spare``: every request that does not write that location): each
    output a goal of ``proofs.common.prove_all``; each refusal is correct
    only where the exhaustive state search of ``machine_optimum`` finds no
    sequence (inputs enumerated, counted in the ledger; ENUMERATED when
    every goal is proved and every refusal confirmed)."""
    from tests.machines.resolve_cases import requests, small
    from verified.algorithms import machine_optimum as O
    from verified.core import machine as PY
    from verified.core.semantics import PreconditionError

    from . import machine as ZM

    m = small(**variant)
    lay = ZM.layout(m.to_json(), immediates=[7])
    init = ZM.initial(lay)
    imm = ZM.pieces(lay)
    distinct = ZM.all_distinct(init, imm)

    refused: list[str] = []
    wrongly: list[str] = []

    def goals():
        for mm in requests(m, variant["temp"]):
            if spare and any(str(d) == spare for d, _ in mm.moves):
                continue
            for preserve in ("all", "loops"):
                try:
                    ops = resolver(mm, preserve)
                except PreconditionError as e:
                    ledger.enumerated += 1
                    refused.append(str(mm))
                    best, _ = O.search(mm, preserve)
                    if best is not None:     # a sequence exists: a wrong refusal
                        wrongly.append(f"{preserve} {mm}: refused ({e}) but the search "
                                       f"finds a sequence of cost {best}")
                        return
                    continue
                except Exception as e:  # a crash of the code under test: a wrong answer
                    wrongly.append(f"{preserve} {mm}: raised {type(e).__name__}: {e}")
                    return
                state, legal = list(init), []
                for op in ops:
                    state, ok = ZM.run_op(lay, state, imm, op)
                    legal.append(ok)
                ledger.enumerated += 1
                yield (z3.And(*legal, ZM.contract(lay, mm, state, init, imm, preserve)),
                       f"{preserve} {mm}: {[PY.format_mop(o) for o in ops]}")

    before = ledger.counts[PROVED]
    r, label = prove_all(goals(), [distinct], 20_000, ledger)
    proved = ledger.counts[PROVED] - before
    if wrongly and r == PROVED:
        r, label = ledger.record(REFUTED), wrongly[0]
    return (ENUMERATED if r == PROVED else r), proved, len(refused), label


def claims(quick: bool = False) -> list[dict]:
    rows = []
    for text, run in LEMMAS:
        led = Ledger()
        run(led)
        rows.append(row(text, None, led))
    for text, run in MUTANT_LEMMAS:
        led = Ledger()
        run(led)
        rows.append(row(text, None, led, expect=REFUTED))
    for text, run in TREG_LEMMAS:       # in --quick too: a few seconds
        led = Ledger()
        run(led)
        rows.append(row(text, 5, led))
    for text, run in TREG_MUTANTS:
        led = Ledger()
        run(led)
        rows.append(row(text, 5, led, expect=REFUTED))

    from mutants.resolve import BY_NAME
    from tests.machines.resolve_cases import VARIANTS
    from verified.algorithms import resolve as R

    os.environ.setdefault("VERIFIED_CONTRACTS", "1")
    real = lambda mm, preserve: R._resolve_machine(mm, preserve)   # no Python postcondition
    spare = QUICK_SPARE if quick else None
    moves = (f"the 6**3 moves that leave {spare} alone" if spare else "6**4 moves")
    for v in VARIANTS:      # every variant, in --quick too (on fewer moves)
        led = Ledger()
        t0 = time.perf_counter()
        _, n, k, cex = enumerated(v, real, led, spare)
        rows.append(row(
            f"resolve (code): output implements every move of the small machine {v} "
            f"(2 registers + 2 slots + 1 immediate, {moves} x 2 contracts; {n} outputs "
            f"proved by the Z3 machine semantics; {k} refusals, each confirmed by the "
            f"exhaustive state search (no sequence exists); inputs enumerated; "
            f"{time.perf_counter() - t0:.1f} s wall)", 4, led, kind=ENUMERATED, detail=cex,
            family="resolve (enumerated)"))
    # the whole-run model rows (the module's costliest queries) come after
    # the code's enumerated rows: a planted resolver bug stops a
    # --first-failure run at the enumerated row that catches it before
    # they run (docs/proofs.md, "Issue 20, sixth round")
    for text, run in run_rows(quick):   # in --quick too, on fewer requests
        led = Ledger()
        run(led)
        units = 6 if "tpair" in text else 5
        rows.append(row(text, units, led,
                        expect=REFUTED if text.startswith("MUTANT") else None))
    for swaps in (False, True):
        led = Ledger()
        _, n, cex = RUN.code_link(led, spare=spare, swaps=swaps)
        name = "treg-swap" if swaps else "treg"
        rows.append(row(
            f"resolve run{' (swap)' if swaps else ''} (code): the real greedy steps "
            f"(resolve.greedy) on every request of {name} ({moves} x 2 contracts: {n} runs), "
            "each run cut into the model's steps: every piece is a step the model admits in "
            "the first class that has one, and the run ends where the model's does (done, "
            "contract met); inputs enumerated", 5, led, kind=ENUMERATED, detail=cex))
    led = Ledger()
    _, n, cex = RUN.code_link(led, mach=RUN.TPAIR)
    rows.append(row(
        "resolve run (pair) (code): the real greedy steps (resolve.greedy) on every request "
        f"of tpair (380 moves x 2 contracts: {n} runs, in --quick too), each run cut into the "
        "model's steps (a pair move one step): every piece is a step the model admits in "
        "the first class that has one, and the run ends where the model's does (done, "
        "contract met); inputs enumerated", 6, led, kind=ENUMERATED, detail=cex))
    rows.append(planted("MUTANT scratch_unchecked (a scratch register taken without the "
                        "invariant) against the run model on treg (inputs enumerated)", 5,
                        BY_NAME["scratch_unchecked"],
                        lambda fn, led: RUN.code_link(led, lambda mm, p: fn(mm, preserve=p),
                                                      spare=spare)[2]))
    rows.append(planted("MUTANT swap_without_legality on the small machine (inputs "
                        "enumerated, each output judged by the Z3 semantics and legality)",
                        4, BY_NAME["swap_without_legality"],
                        lambda fn, led: enumerated(VARIANTS[0],
                                                   lambda mm, p: fn(mm, preserve=p), led,
                                                   spare)[3]))
    return rows
