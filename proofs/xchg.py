"""Proofs of ``verified.xchg``: the corrected PHI-to-mov/xchg algorithm and
the counterexample to the published one.

1. UNBOUNDED step lemma of the corrected algorithm's first phase (Kahn over
   pending edges), over an uninterpreted location sort (every register
   count): state = the values now in each location (array ``e``), the
   pending moves (array ``P``: d still to be written; ``src``), and
   ``edges[l]`` = number of pending moves reading l, abstracted as the
   predicate "some pending move reads l".  Invariant: for every location x,
   "x's final value" = if P[x] then e[src[x]] else e[x] equals the goal
   value G[x] (the original move applied to the original state).  Step
   ``mov d <- src[d]`` when no pending move reads d (edges[d] == 0): keeps
   the invariant, and the pending set strictly shrinks (d leaves it), so
   the pending edge count drops by one.
   NOT covered: the second phase (the cycles walked with the alias table);
   for it only the bounded claims below hold.
2. BOUNDED, inputs enumerated (not symbolic): for every move on n registers,
   ``xchg``'s output implements the move (proved per input by the Z3
   semantics), and ``xchg_as_published`` has a counterexample: the
   smallest register count with one and the first such move are reported.
"""

from __future__ import annotations

import time

import z3

from verified import xchg

from . import COUNTEREXAMPLE, PROVED, UNKNOWN, Timer, claim, prove
from .semantics_z3 import exhaustive

Loc = z3.DeclareSort("XLoc")
XV = z3.DeclareSort("XVal")
_FINITE: dict = {}


def _finite(k):
    if k not in _FINITE:
        _FINITE[k] = z3.EnumSort(f"XLoc{k}", [f"x{j}" for j in range(k)])[0]
    return _FINITE[k]


def lemma_kahn_mov(L, timer, mutant=None, timeout_ms=60_000) -> str:
    e = z3.Const("e", z3.ArraySort(L, XV))
    G = z3.Const("G", z3.ArraySort(L, XV))
    P = z3.Const("P", z3.ArraySort(L, z3.BoolSort()))
    src = z3.Const("src", z3.ArraySort(L, L))
    d, x, y = z3.Consts("d x y", L)
    final = lambda e_, P_, z: z3.If(P_[z], e_[src[z]], e_[z])
    inv = lambda e_, P_: z3.ForAll([x], final(e_, P_, x) == G[x])
    reads = lambda z: z3.Exists([y], z3.And(P[y], src[y] == z, y != z))
    hyp = [inv(e, P), P[d]]
    if mutant != "mov_while_read":
        hyp.append(z3.Not(reads(d)))
    e2 = z3.Store(e, d, e[src[d]])
    P2 = z3.Store(P, d, False)
    goal = z3.And(inv(e2, P2), z3.ForAll([x], z3.Implies(P2[x], P[x])), P[d], z3.Not(P2[d]))
    return prove(goal, hyp, timeout_ms, timer)[0]


def run_lemma(mutant=None) -> tuple[str, float]:
    t = Timer()
    r = lemma_kahn_mov(Loc, t, mutant, 60_000 if mutant is None else 3_000)
    if r == PROVED:
        return r, t.seconds
    for k in range(1, 5):
        if lemma_kahn_mov(_finite(k), t, mutant, 20_000) == COUNTEREXAMPLE:
            return COUNTEREXAMPLE, t.seconds
    return UNKNOWN, t.seconds


def claims(quick: bool = False) -> list[dict]:
    rows = []
    r, s = run_lemma()
    rows.append(claim("xchg phase 1: mov d <- src[d] with no pending reader of d keeps the "
                      "invariant, pending edges drop [unbounded]", None, r, s))
    r, s = run_lemma("mov_while_read")
    rows.append(claim("MUTANT mov_while_read: phase-1 step without edges[d] == 0 [unbounded]",
                      None, r, s, expect=COUNTEREXAMPLE))
    ns = (3,) if quick else (5,)
    for n in ns:
        t = Timer()
        t0 = time.perf_counter()
        r, cex = exhaustive(xchg.xchg, n, "swap", 0, t)
        rows.append(dict(claim(
            f"xchg: output implements every move on n registers (inputs enumerated, "
            f"each output proved by Z3; {time.perf_counter() - t0:.1f} s wall)",
            n, r, t.seconds, detail=cex), family="xchg (enumerated)"))
    # the published algorithm: smallest n with a counterexample
    t = Timer()
    found = None
    for n in range(1, 5):
        r, cex = exhaustive(xchg.xchg_as_published, n, "swap", 0, t)
        if r == COUNTEREXAMPLE:
            found = (n, cex)
            break
    rows.append(claim(
        "xchg_as_published implements every move (expected false; counterexample: "
        f"{found[1] if found else 'none found'})", found[0] if found else 4,
        COUNTEREXAMPLE if found else PROVED, t.seconds, expect=COUNTEREXAMPLE))
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.mutants.proof_mutants import xchg_no_alias_update_pm

    t = Timer()
    r, cex = exhaustive(xchg_no_alias_update_pm, 3, "swap", 0, t)
    rows.append(claim("MUTANT xchg_no_alias_update: bounded whole-algorithm check", 3, r,
                      t.seconds, expect=COUNTEREXAMPLE, detail=cex))
    return rows
