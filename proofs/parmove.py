"""Proofs of ``verified.parmove`` (leroy, leroy_iterative, windmill, mincopy).

1. UNBOUNDED (every register count; locations are an uninterpreted sort):
   the rules of Rideau, Serpette and Leroy's non-deterministic system
   (CompCert ``lib/Parmov.v``: nop, start, push, loop, pop, last) on states
   (mu = moves to do, sigma = the stack of moves being moved, tau = moves
   emitted).  For each rule: it preserves the well-formedness invariant
   (mu ++ sigma has distinct destinations; no temporary in mu; none in sigma
   except the last move's source; sigma is a path: each move's source is
   the destination of the move below it) and the meaning of the state (for
   every location that is not a temporary, running the emitted moves and
   then mu ++ sigma in parallel gives the same value as before the rule),
   and strictly decreases the measure
       2 * (2 |mu| + |sigma|) + [sigma non-empty and its last source is not
       a temporary]
   (our own: CompCert's 2|mu| + |sigma| does not drop on ``loop``).  Side
   condition we add to ``loop`` for the measure: the last source is not a
   temporary yet (Leroy's algorithm breaks each cycle once).
   Encoding: mu is a pair of arrays (has a move into d; its source) plus a
   ghost counter |mu| that a rule decrements by exactly one when it removes
   a move present in mu (so it is |mu| by construction and never negative;
   Z3 is not asked to prove that cardinality fact);
   sigma is two Int-indexed arrays (sources, destinations) and a length,
   with a ghost position array (destination -> index) that makes "d is a
   destination of sigma" quantifier-free.
   NOT covered by these lemmas: that some rule applies whenever mu or sigma
   is non-empty (progress), and that ``leroy``'s recursion is an instance of
   the rules; the whole-algorithm claims below are where ``leroy`` itself
   is checked.  The Python code does not assert this invariant at run time
   (its run-time contract is the postcondition ``oracle.ensure`` in
   ``verified/parmove.py``).
2. BOUNDED, inputs enumerated (not symbolic): for every move on n registers
   (all n**n maps, self-moves included) and one temporary, the Python
   algorithm's output implements the move, proved per input with the Z3
   semantics of ``proofs/semantics_z3.py`` (contracts switched off, so Z3 is
   the judge).
"""

from __future__ import annotations

import z3

from verified import parmove

from . import COUNTEREXAMPLE, PROVED, UNKNOWN, Timer, claim, combine, prove
from .semantics_z3 import exhaustive

Loc = z3.DeclareSort("Loc")
V = z3.DeclareSort("PVal")
_FINITE: dict = {}


def finite_locs(k: int):
    if k not in _FINITE:
        _FINITE[k] = z3.EnumSort(f"Loc{k}", [f"l{j}" for j in range(k)])[0]
    return _FINITE[k]


class St:
    """A symbolic state over location sort L."""

    def __init__(self, L, tag: str, temp, is_temp):
        I = z3.IntSort()
        self.L = L
        self.mu = z3.Const(f"mu_{tag}", z3.ArraySort(L, z3.BoolSort()))
        self.msrc = z3.Const(f"msrc_{tag}", z3.ArraySort(L, L))
        self.mcount = z3.Int(f"mcount_{tag}")
        self.Ss = z3.Const(f"Ss_{tag}", z3.ArraySort(I, L))
        self.Sd = z3.Const(f"Sd_{tag}", z3.ArraySort(I, L))
        self.k = z3.Int(f"k_{tag}")
        self.pos = z3.Const(f"pos_{tag}", z3.ArraySort(L, I))
        self.e = z3.Const(f"e_{tag}", z3.ArraySort(L, V))
        self.temp, self.is_temp = temp, is_temp

    def copy(self, **kw):
        new = object.__new__(St)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(kw)
        return new

    def in_sigma(self, x):
        p = self.pos[x]
        return z3.And(0 <= p, p < self.k, self.Sd[p] == x)

    def par(self, x):
        """Value of x after running mu ++ sigma in parallel from e."""
        return z3.If(self.mu[x], self.e[self.msrc[x]],
                     z3.If(self.in_sigma(x), self.e[self.Ss[self.pos[x]]], self.e[x]))

    def wf(self):
        x = z3.Const("wx", self.L)
        j = z3.Int("wj")
        it = self.is_temp
        in_stack = z3.And(0 <= j, j < self.k)
        return z3.And(
            self.k >= 0,
            z3.ForAll([j], z3.Implies(in_stack, self.pos[self.Sd[j]] == j)),   # distinct dsts
            z3.ForAll([x], z3.Not(z3.And(self.mu[x], self.in_sigma(x)))),      # mill
            z3.ForAll([x], z3.Implies(self.mu[x],                              # no temp in mu
                                      z3.And(z3.Not(it(x)), z3.Not(it(self.msrc[x]))))),
            z3.ForAll([j], z3.Implies(in_stack, z3.Not(it(self.Sd[j])))),      # temp_last
            z3.ForAll([j], z3.Implies(z3.And(1 <= j, j < self.k),
                                      z3.Not(it(self.Ss[j])))),
            z3.ForAll([j], z3.Implies(z3.And(1 <= j, j < self.k),              # is_path
                                      self.Ss[j] == self.Sd[j - 1])),
        )

    def measure(self):
        last_plain = z3.And(self.k > 0, z3.Not(self.is_temp(self.Ss[0])))
        return 2 * (2 * self.mcount + self.k) + z3.If(last_plain, 1, 0)


def _no_read(st, d):
    y = z3.Const("nry", st.L)
    return z3.ForAll([y], z3.Implies(st.mu[y], st.msrc[y] != d))


def rule(name: str, st: St, mutant=None):
    """(side conditions, next state) of one rule; fresh constants name the
    rule's parameters (the move it takes)."""
    L = st.L
    r, s, d = z3.Consts(f"{name}_r {name}_s {name}_d", L)
    top = st.k - 1
    if name == "nop":
        side = [st.mu[r], st.msrc[r] == r]
        return side, st.copy(mu=z3.Store(st.mu, r, False), mcount=st.mcount - 1)
    if name == "start":
        side = [st.k == 0, st.mu[d], st.msrc[d] == s]
        return side, st.copy(mu=z3.Store(st.mu, d, False), mcount=st.mcount - 1,
                             Ss=z3.Store(st.Ss, 0, s), Sd=z3.Store(st.Sd, 0, d),
                             k=z3.IntVal(1), pos=z3.Store(st.pos, d, 0))
    if name == "push":
        # a move r <- Sd[top] of mu reads the top's destination: push it
        side = [st.k > 0, st.mu[r], st.msrc[r] == st.Sd[top]]
        return side, st.copy(mu=z3.Store(st.mu, r, False), mcount=st.mcount - 1,
                             Ss=z3.Store(st.Ss, st.k, st.Sd[top]),
                             Sd=z3.Store(st.Sd, st.k, r), k=st.k + 1,
                             pos=z3.Store(st.pos, r, st.k))
    if name == "loop":
        s0 = st.Ss[0]
        side = [st.k > 0, z3.Not(st.is_temp(s0))]
        t = st.temp(s0)
        saved = st.e[st.Sd[0]] if mutant == "loop_saves_dst" else st.e[s0]
        return side, st.copy(e=z3.Store(st.e, t, saved), Ss=z3.Store(st.Ss, 0, t))
    if name == "pop":
        d1, s1 = st.Sd[top], st.Ss[top]
        side = [st.k >= 2, d1 != st.Ss[0]]
        if mutant != "pop_without_no_read":
            side.append(_no_read(st, d1))
        return side, st.copy(e=z3.Store(st.e, d1, st.e[s1]), k=st.k - 1)
    if name == "last":
        d0, s0 = st.Sd[0], st.Ss[0]
        side = [st.k == 1]
        if mutant != "last_without_no_read":
            side.append(_no_read(st, d0))
        return side, st.copy(e=z3.Store(st.e, d0, st.e[s0]), k=z3.IntVal(0))
    raise ValueError(name)


RULES = ("nop", "start", "push", "loop", "pop", "last")


def lemma_rule(name: str, L, timer: Timer, mutant=None, timeout_ms=60_000) -> str:
    temp = z3.Function("temp", L, L)
    is_temp = z3.Function("is_temp", L, z3.BoolSort())
    q = z3.Const("q", L)
    st = St(L, "0", temp, is_temp)
    side, nxt = rule(name, st, mutant)
    x = z3.Const("x", L)
    hyp = [z3.ForAll([q], is_temp(temp(q))), st.wf(), *side]
    goal = z3.And(
        nxt.wf(),
        z3.ForAll([x], z3.Implies(z3.Not(is_temp(x)), nxt.par(x) == st.par(x))),
        nxt.measure() < st.measure(),
    )
    return prove(goal, hyp, timeout_ms, timer)[0]


def run_rule(name: str, mutant=None) -> tuple[str, float]:
    """Unbounded attempt first; if it does not prove, search finite location
    sets (1..4 locations) for a genuine counterexample."""
    t = Timer()
    r = lemma_rule(name, Loc, t, mutant, 60_000 if mutant is None else 3_000)
    if r == PROVED:
        return r, t.seconds
    for k in range(1, 5):
        if lemma_rule(name, finite_locs(k), t, mutant, 20_000) == COUNTEREXAMPLE:
            return COUNTEREXAMPLE, t.seconds
    return UNKNOWN, t.seconds


def unbounded_claims() -> list[dict]:
    rows = []
    for name in RULES:
        r, secs = run_rule(name)
        rows.append(claim(f"Leroy rule {name}: keeps well-formedness and the meaning on "
                          f"non-temporaries, measure drops [unbounded]", None, r, secs))
    for name, mut, text in [
        ("pop", "pop_without_no_read", "pop without 'nobody in mu reads d'"),
        ("loop", "loop_saves_dst", "loop saves the destination into the temporary"),
    ]:
        r, secs = run_rule(name, mut)
        rows.append(claim(f"MUTANT {mut}: rule {text} [unbounded]", None, r, secs,
                          expect=COUNTEREXAMPLE))
    return rows


ALGORITHMS = [
    ("leroy", parmove.leroy),
    ("leroy_iterative", parmove.leroy_iterative),
    ("windmill", parmove.windmill),
    ("mincopy", parmove.mincopy),
]


def bounded_claims(ns) -> list[dict]:
    rows = []
    for name, fn in ALGORITHMS:
        for n in ns:
            t = Timer()
            import time as _time
            t0 = _time.perf_counter()
            r, cex = exhaustive(fn, n, "temp", 1, t)
            wall = _time.perf_counter() - t0
            rows.append(dict(claim(
                f"{name}: output implements every move on n registers + 1 temporary "
                f"(inputs enumerated, each output proved by Z3; {wall:.1f} s wall)",
                n, r, t.seconds, detail=cex), family=f"{name} (enumerated)"))
    return rows


def mutant_claims(n: int = 3) -> list[dict]:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.mutants.proof_mutants import leroy_no_cycle_pm, mincopy_wrong_blade_pm

    rows = []
    for name, fn in [("leroy_no_cycle", leroy_no_cycle_pm),
                     ("mincopy_wrong_blade", mincopy_wrong_blade_pm)]:
        t = Timer()
        r, cex = exhaustive(fn, n, "temp", 1, t)
        rows.append(claim(f"MUTANT {name}: bounded whole-algorithm check", n, r, t.seconds,
                          expect=COUNTEREXAMPLE, detail=cex))
    return rows


def claims(quick: bool = False) -> list[dict]:
    return unbounded_claims() + bounded_claims((3,) if quick else (5,)) + mutant_claims()


if __name__ == "__main__":
    for row in claims():
        print(row)
