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
3. BOUNDED, SYMBOLIC input (section 3 below): the whole corrected xchg on
   n registers by induction over its steps, with the invariant stated in Z3
   and in Python (``invariant_py``); n = 8 in ``make proofs``.
"""

from __future__ import annotations

import time

import z3

from verified.algorithms import xchg
from verified.algorithms.optimum import optimum

from .common import (COUNTEREXAMPLE, ENUMERATED, PROVED, REFUTED, Ledger, Timer, as_int,
                     combine, holds_at, declared_range, domain_query, mux, planted, prove, row,
                     enumerate_maps, run_lemma as _run_lemma, source_witnesses)
from .semantics_z3 import exhaustive

Loc = z3.DeclareSort("XLoc")
XV = z3.DeclareSort("XVal")


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


def run_lemma(mutant=None, ledger: Ledger | None = None) -> tuple[str, float]:
    t = ledger if ledger is not None else Ledger()
    lemma = lambda L, led, ms: lemma_kahn_mov(L, led, mutant, ms)
    r = _run_lemma(lemma, Loc, "XLoc", t, expect_false=mutant is not None)
    return r, t.seconds


#: register counts of the symbolic whole-algorithm claim in ``make proofs``
#: (8: the largest whose proof fits in 60 s of solver time here; the Kahn
#: end query, a pigeonhole argument, dominates: 18 s at n = 8, over 60 s at
#: n = 9); --moonshot adds n = 9 with a 600 s per-query budget.
SYMBOLIC_NS = (8,)
SYMBOLIC_MOONSHOT_NS = (9,)


_SYMBOLIC_TEXT = (
    "xchg (model: its steps in Z3 over its own state; refinement: the enumerated code row "
    "up to n = 4): output implements every move, and its length is non-loop moves - walks "
    "(ghost count of emitted operations; that walks = cycles is the enumerated row's "
    "length check, not this proof) (symbolic input, n = {n}; "
    "induction: init, each Kahn pop, Kahn's end, each for/while step keeps the invariant "
    "and drops the measure, done; range hypotheses proved implied by the declared domain "
    "(every source 0..n-1); witnesses: at init, for every register v, v a source and "
    "fan-out of v; fan-out among pending moves at every Kahn pop; both branches of the "
    "for loop at every i < n - 1 and of the while loop at every d = i < n - 1 (elsewhere "
    "one branch is unreachable and not asked))")


def refinement_claim(top: int) -> dict:
    """ENUMERATED: the real ``xchg`` against the model the symbolic rows
    prove (``agrees``, through its ``trace=`` hook) on every move of
    1..top registers."""
    from verified.core.semantics import ParallelMove

    def judge(srcs: list) -> list:
        steps: list = []
        out = xchg.xchg(ParallelMove.from_map(srcs), trace=steps)
        return agrees(srcs, steps, out, memo)

    memo: dict = {}     # holds_at's terms, for this enumeration only
    led, detail = enumerate_maps(top, judge)
    return row(f"real xchg (code) == the Z3 model of the symbolic rows, step by step through "
               f"its trace= hook (Python and Z3 invariant, ghost count, the Z3 step maps each "
               f"traced state to the next, the done state implements the move) on every move "
               f"of 1..{top} registers ({led.enumerated} moves; inputs enumerated: the "
               f"refinement of the symbolic row where cheap, about 50 s at 4 registers; beyond, "
               f"random moves of 4..7 in tests/proofs/test_proofs_symbolic.py)", top, led,
               kind=ENUMERATED, detail=detail)


def symbolic_claims(ns, budget: float = 60.0) -> list[dict]:
    rows = []
    for n in ns:
        led = Ledger()
        xchg_symbolic(n, timeout_ms=int(budget * 1000), ledger=led)
        rows.append(row(_SYMBOLIC_TEXT.format(n=n), n, led, family="xchg (symbolic input)"))
    return rows


def symbolic_mutant_claims(n: int = 4) -> list[dict]:
    rows = []
    for mut, text in [("no_alias_update", "exchange without alias[d] = where(s)"),
                      ("release_early", "a source enters the deque at edges <= 1"),
                      ("useless_swap", "emits swap d, d when the cycle closes")]:
        led = Ledger()
        xchg_symbolic(n, mutant=mut, ledger=led)
        rows.append(row(f"MUTANT xchg_{mut}: {text} (symbolic input, n = {n}, "
                        "whole-algorithm induction)", n, led, expect=REFUTED))
    return rows


def claims(quick: bool = False, moonshot: bool = False) -> list[dict]:
    rows = []
    led = Ledger()
    run_lemma(ledger=led)
    rows.append(row("xchg phase 1: mov d <- src[d] with no pending reader of d keeps the "
                    "invariant, pending edges drop [unbounded; model]", None, led))
    led = Ledger()
    run_lemma("mov_while_read", ledger=led)
    rows.append(row("MUTANT mov_while_read: phase-1 step without edges[d] == 0 [unbounded]",
                    None, led, expect=REFUTED))
    ns = (4,) if quick else (5,)
    for n in ns:
        t = Ledger()
        t0 = time.perf_counter()
        r, cex = exhaustive(xchg.xchg, n, "swap", 0, t,
                            length=lambda pm: optimum(pm, "swap").length)
        rows.append(row(
            f"xchg (code): output implements every move on n registers in exactly the optimal "
            f"number of operations (non-loop - cycles) (inputs enumerated, each output "
            f"proved by Z3; {time.perf_counter() - t0:.1f} s wall)",
            n, t, kind=ENUMERATED, detail=cex, family="xchg (enumerated)"))
    # the published algorithm: smallest n with a counterexample
    t = Ledger()
    found = None
    for n in range(1, 5):
        r, cex = exhaustive(xchg.xchg_as_published, n, "swap", 0, t)
        if r == REFUTED:
            found = (n, cex)
            break
    rows.append(row(
        "xchg_as_published implements every move (expected false; counterexample: "
        f"{found[1] if found else 'none found'})", found[0] if found else 4,
        t, kind=ENUMERATED, expect=REFUTED))
    from mutants.core import BY_NAME

    rows.append(planted("MUTANT xchg_no_alias_update: bounded whole-algorithm check", 3,
                        BY_NAME["xchg_no_alias_update"],
                        lambda fn, t: exhaustive(fn, 3, "swap", 0, t)[1]))
    ns = (3,) if quick else SYMBOLIC_NS
    rows += symbolic_claims(ns) + symbolic_mutant_claims(3 if quick else 4)
    rows.append(refinement_claim(3 if quick else 4))
    if moonshot and not quick:
        rows += symbolic_claims(SYMBOLIC_MOONSHOT_NS, budget=600.0)
    return rows


# ---------------------------------------------------------------------------
# 3. BOUNDED, SYMBOLIC input: the whole corrected xchg on n registers
# ---------------------------------------------------------------------------
#
# THE INVARIANT (the same one, twice):
#   * Python, checked at run time by tests/proofs/test_proofs_symbolic.py on random
#     runs of the real algorithm: ``invariant_py`` below;
#   * Z3, on n registers with symbolic srcs[0..n-1]: ``inv_kahn`` /
#     ``inv_between`` / ``inv_walk`` below (the same clauses, the same names).
#
# The state is the Python algorithm's own state (the real
# ``verified.algorithms.xchg.xchg`` reports it through its ``trace=`` hook;
# ``snapshot`` reads it, ``agrees`` checks it step by step):
# ``P`` = pending (a set), ``edges[l]`` = the counter,
# ``Q`` = the ready deque as a set, ``alias`` (``aset[l]`` = l has an
# alias), ``reader`` and ``P2`` = the pending set when phase 2 starts,
# ``i`` = the index of the outer ``for d0`` loop, ``d`` = the inner walk's
# current location; ``cur[l]`` = the original register whose value l holds
# (semantics.execute of the operations emitted so far); ghost h = srcs[i],
# the location the walk's exchanges all go through.
#
# Phase "kahn" (the ready loop):
#   K1  P[x] => srcs[x] != x                      (only non-loop moves)
#   K2  not P[x] => cur[x] == srcs[x]             (done moves are right;
#                                                  srcs[x] == x off the move)
#   K3  P[x] => cur[x] == x                       (pending: untouched)
#   K4  no alias set
#   K5  P[y] and srcs[y] == l => P[l] or srcs[l] == l
#                                                 (nobody pending reads a
#                                                  written location)
#   K6  edges[l] == #{y pending : srcs[y] == l}
#   K7  Q[x] == (P[x] and edges[x] == 0)         (the deque holds exactly
#                                                  the ready moves)
#   measure |P|.  Kahn ends (Q empty) => "between" with i = 0 (the cycle
#   argument: every pending location is read by a pending move, so srcs
#   is a permutation of P).
# Phase 2, common to "between" and "walk":
#   C1  P[x] => P2[x];  P2[x] => srcs[x] != x and P2[srcs[x]] and
#       reader[srcs[x]] == x;  P2[l] => P2[reader[l]] and
#       srcs[reader[l]] == l                     (P2 is a union of cycles,
#                                                  reader its inverse)
#   C2  not P[x] => cur[x] == srcs[x]
#   C3  P[x] => no alias for x
#   C4  x < i => not P[x];  i <= n               (the for loop's progress)
# "between" (at the top of the for loop, index i):
#   B1  P[x] => cur[x] == x
#   B2  P[x] => P[srcs[x]];   P2[x] and not P[x] => not P[srcs[x]]
#                                                 (whole cycles pending/done)
# "walk" (at the top of the while loop, index i, current d; h = srcs[i]):
#   either closing: d == i, not P[i], and B1, B2;
#   or active: P[d], P[h], where(srcs[d]) == h, cur[h] == srcs[d],
#       (not P[i] or d == i), P[x] and x != h => cur[x] == x,
#       P2[x] and not P[x] and P[srcs[x]] => srcs[x] == h,
#       P[x] and not P[srcs[x]] => x == d.
#   measure 4(n+1)|P| + 2(n - i) + [between].
# Done: "between" with i == n => every register holds its source's value.
#
# What is proved: for every input srcs on n registers (symbolic), init =>
# K; every Kahn step from the deque keeps K and drops |P|; the end of Kahn
# gives "between"; each between step and each walk step keeps the
# invariant and drops the measure; "between" at i == n implements the move.
# The step is the general one (ANY element of the deque), so the deque's
# order is covered.  NOT proved here: the length bound (tests, optimality).

from dataclasses import dataclass, field, replace as _replace  # noqa: E402


def _iw(n: int) -> int:
    return max(1, n.bit_length())          # holds 0..n


def _ew(n: int) -> int:
    return n.bit_length() + 1              # holds 0..n edges


_mux = mux


def _eq(j, x: int):
    return z3.BoolVal(j == x) if isinstance(j, int) else j == x


def _lt(x: int, j):
    return z3.BoolVal(x < j) if isinstance(j, int) else z3.ULT(x, j)


@dataclass
class XS:
    """A (symbolic or concrete) state of ``xchg``; lists of Z3 terms, one
    per register, and the Python-level phase."""
    mode: str                 # "kahn", "between", "walk"
    P: list
    Q: list
    edges: list
    aset: list
    alias: list
    cur: list
    P2: list
    reader: list
    i: object = 0             # int or Z3 term
    d: object = 0
    #: ghosts (proof only): operations emitted so far, walks finished
    ops: object = 0
    walks: object = 0


def fresh_state(n: int, mode: str, tag: str = "") -> XS:
    w, we = _iw(n), _ew(n)
    B = lambda name: [z3.Bool(f"{name}{tag}_{x}") for x in range(n)]
    V = lambda name, width=w: [z3.BitVec(f"{name}{tag}_{x}", width) for x in range(n)]
    return XS(mode, B("P"), B("Q"), V("edges", we), B("aset"), V("alias"), V("cur"),
              B("P2"), V("reader"), ops=z3.BitVec(f"ops{tag}", _gw(n)),
              walks=z3.BitVec(f"walks{tag}", _gw(n)))


def _gw(n: int) -> int:
    """Bits of the ghost counters (they stay within 0..2n; bit-vectors, not
    Ints: mixing integer arithmetic into these bit-vector queries made
    n = 8 three times slower)."""
    return (2 * n + 1).bit_length() + 1


def _bv(n: int, cond):
    return z3.If(cond, z3.BitVecVal(1, _gw(n)), z3.BitVecVal(0, _gw(n)))


def nonloop(srcs, n):
    """The number of non-loop moves (a bit-vector term)."""
    return z3.Sum([_bv(n, srcs[x] != x) for x in range(n)])


def ghost_count(S: XS, srcs, n) -> z3.BoolRef:
    """The length invariant: every pending move still to be written, every
    operation emitted and every finished walk account for one non-loop move
    (a walk's closing step, ``where(s) == d``, emits nothing):
    ops + |P| + walks + [a walk has just closed] == non-loop moves.
    At the end (P empty, no walk open): length == non-loop - walks."""
    size = z3.Sum([_bv(n, p) for p in S.P])
    total = S.ops + size + S.walks
    N = nonloop(srcs, n)
    if S.mode == "kahn":
        return z3.And(total == N, S.walks == 0)
    if S.mode == "between":
        return total == N
    closed = z3.And(_eq(S.d, S.i), z3.Not(_mux(S.P, S.i)))
    return total + _bv(n, closed) == N


def _range(n, xs):
    return [z3.ULT(x, n) for x in xs] if (1 << _iw(n)) != n else []


def where(S: XS, v):
    return z3.If(_mux(S.aset, v), _mux(S.alias, v), v)


def _count(n, conds):
    we = _ew(n)
    return z3.Sum([z3.If(c, z3.BitVecVal(1, we), z3.BitVecVal(0, we)) for c in conds]) \
        if len(conds) > 1 else z3.If(conds[0], z3.BitVecVal(1, we), z3.BitVecVal(0, we))


def inv_kahn(S: XS, srcs, n) -> z3.BoolRef:
    c = []
    for x in range(n):
        c += [z3.Implies(S.P[x], srcs[x] != x),                     # K1
              z3.Implies(z3.Not(S.P[x]), S.cur[x] == srcs[x]),      # K2
              z3.Implies(S.P[x], S.cur[x] == x),                    # K3
              z3.Not(S.aset[x])]                                    # K4
        for l in range(n):
            c.append(z3.Implies(z3.And(S.P[x], srcs[x] == l),        # K5
                                z3.Or(S.P[l], srcs[l] == l)))
        c.append(S.edges[x] == _count(n, [z3.And(S.P[y], srcs[y] == x)   # K6
                                          for y in range(n)]))
        c.append(S.Q[x] == z3.And(S.P[x], S.edges[x] == 0))         # K7
    return z3.And(*c)


def _common(S: XS, srcs, n, i) -> list:
    c = []
    for x in range(n):
        c += [z3.Implies(S.P[x], S.P2[x]),                                    # C1
              z3.Implies(S.P2[x], z3.And(srcs[x] != x, _mux(S.P2, srcs[x]),
                                         _mux(S.reader, srcs[x]) == x)),
              z3.Implies(S.P2[x], z3.And(_mux(S.P2, S.reader[x]),
                                         _mux(srcs, S.reader[x]) == x)),
              z3.Implies(z3.Not(S.P[x]), S.cur[x] == srcs[x]),                # C2
              z3.Implies(S.P[x], z3.Not(S.aset[x])),                          # C3
              z3.Implies(_lt(x, i), z3.Not(S.P[x]))]                          # C4
    c.append(z3.ULE(i, n) if not isinstance(i, int) else z3.BoolVal(i <= n))
    return c


def _between_clauses(S: XS, srcs, n) -> list:
    c = []
    for x in range(n):
        c += [z3.Implies(S.P[x], S.cur[x] == x),                              # B1
              z3.Implies(S.P[x], _mux(S.P, srcs[x])),                         # B2
              z3.Implies(z3.And(S.P2[x], z3.Not(S.P[x])), z3.Not(_mux(S.P, srcs[x])))]
    return c


def inv_between(S: XS, srcs, n) -> z3.BoolRef:
    return z3.And(*_common(S, srcs, n, S.i), *_between_clauses(S, srcs, n))


def inv_walk(S: XS, srcs, n) -> z3.BoolRef:
    i, d = S.i, S.d
    h = _mux(srcs, i)
    closing = z3.And(_eq(d, i), z3.Not(_mux(S.P, i)), *_between_clauses(S, srcs, n))
    act = [_mux(S.P, d), _mux(S.P, h), where(S, _mux(srcs, d)) == h,
           _mux(S.cur, h) == _mux(srcs, d),
           z3.Or(z3.Not(_mux(S.P, i)), d == i)]
    for x in range(n):
        act += [z3.Implies(z3.And(S.P[x], h != x), S.cur[x] == x),
                z3.Implies(z3.And(S.P2[x], z3.Not(S.P[x]), _mux(S.P, srcs[x])), srcs[x] == h),
                z3.Implies(z3.And(S.P[x], z3.Not(_mux(S.P, srcs[x]))), _eq(d, x))]
    # i is always a Python int (the for loop's index only moves by + 1)
    if not 0 <= i < n:
        return z3.BoolVal(False)
    return z3.And(S.P2[i], *_common(S, srcs, n, i), z3.Or(closing, z3.And(*act)))


def invariant(S: XS, srcs, n) -> z3.BoolRef:
    return {"kahn": inv_kahn, "between": inv_between, "walk": inv_walk}[S.mode](S, srcs, n)


def measure(S: XS, n):
    """An Int term; phase 1: |P| + M0, M0 above any phase-2 value."""
    size = z3.Sum([z3.If(p, 1, 0) for p in S.P])
    i = S.i if isinstance(S.i, int) else z3.BV2Int(S.i)
    if S.mode == "kahn":
        return size + 4 * (n + 1) * n + 2 * n + 2
    return 4 * (n + 1) * size + 2 * (n - i) + (1 if S.mode == "between" else 0)


def init_state(srcs, n) -> XS:
    """xchg's state just before the ready loop (cur = identity)."""
    w, we = _iw(n), _ew(n)
    P = [srcs[x] != x for x in range(n)]
    zero = z3.BitVecVal(0, _gw(n))
    edges = [_count(n, [z3.And(P[y], srcs[y] == x) for y in range(n)]) for x in range(n)]
    Q = [z3.And(P[x], edges[x] == 0) for x in range(n)]
    F = [z3.BoolVal(False)] * n
    Z = [z3.BitVecVal(0, w)] * n
    return XS("kahn", P, Q, edges, F, Z, [z3.BitVecVal(x, w) for x in range(n)], F, Z,
              ops=zero, walks=zero)


def kahn_step(S: XS, srcs, n, d: int, mutant=None):
    """``d = ready.popleft()`` and the loop body; returns (side, S')."""
    s = srcs[d]
    wsrc = where(S, s)
    v = _mux(S.cur, wsrc)
    cur = [v if x == d else S.cur[x] for x in range(n)]
    P = [z3.BoolVal(False) if x == d else S.P[x] for x in range(n)]
    edges = [z3.If(s == x, S.edges[x] - 1, S.edges[x]) for x in range(n)]
    # ``if edges[s] == 0 and s in pending: ready.append(s)`` (the mutant
    # xchg_release_early of tests/mutants/core_mutants.py: ``<= 1``)
    zero = (lambda e: z3.ULE(e, 1)) if mutant == "release_early" else (lambda e: e == 0)
    Q = []
    for x in range(n):
        q = z3.BoolVal(False) if x == d else S.Q[x]
        newly = z3.And(s == x, zero(edges[x]), P[x])
        Q.append(z3.Or(q, newly))
    return [S.Q[d]], _replace(S, P=P, Q=Q, edges=edges, cur=cur, ops=S.ops + 1)


def kahn_end(S: XS, srcs, n):
    """``while ready`` exits; ``reader = {source_of[d]: d for d in pending}``;
    the for loop starts at i = 0."""
    w = _iw(n)
    reader = []
    for l in range(n):
        r = z3.BitVecVal(0, w)
        for dd in range(n):
            r = z3.If(z3.And(S.P[dd], srcs[dd] == l), z3.BitVecVal(dd, w), r)
        reader.append(r)
    return [z3.Not(q) for q in S.Q], _replace(S, mode="between", P2=list(S.P),
                                              reader=reader, i=0, d=0)


def between_step(S: XS, srcs, n):
    """The for loop at index i (< n): skip a done d0, or start its walk.
    Returns [(condition, S'), ...]."""
    i = S.i
    return [(z3.Not(S.P[i]), _replace(S, mode="between", i=i + 1)),
            (S.P[i], _replace(S, mode="walk", d=i))]


def walk_step(S: XS, srcs, n, mutant=None):
    """The while loop at (i, d): exit (d not pending) or one exchange."""
    i, d = S.i, S.d
    s = srcs[d]
    wsrc = where(S, s)
    swap = wsrc != d
    cd, cw = S.cur[d], _mux(S.cur, wsrc)
    cur = []
    for x in range(n):
        if x == d:
            cur.append(z3.If(swap, cw, cd))
        else:
            cur.append(z3.If(z3.And(swap, wsrc == x), cd, S.cur[x]))
    P = [z3.BoolVal(False) if x == d else S.P[x] for x in range(n)]
    if mutant == "no_alias_update":
        aset, alias = S.aset, S.alias
    else:
        aset = [z3.Or(S.aset[x], swap) if x == d else S.aset[x] for x in range(n)]
        alias = [z3.If(swap, wsrc, S.alias[x]) if x == d else S.alias[x] for x in range(n)]
    emitted = 1 if mutant == "useless_swap" else _bv(n, swap)
    nxt = _replace(S, P=P, aset=aset, alias=alias, cur=cur, d=S.reader[d],
                   ops=S.ops + emitted)
    return [(z3.Not(S.P[d]), _replace(S, mode="between", i=i + 1, walks=S.walks + 1)),
            (S.P[d], nxt)]


def done_goal(S: XS, srcs, n):
    return z3.And(*[S.cur[x] == srcs[x] for x in range(n)])


def _srcs(n):
    w = _iw(n)
    s = [z3.BitVec(f"srcs_{x}", w) for x in range(n)]
    return s, _range(n, s)


_DEBUG = False


def _fanout(srcs, n, P=None):
    """Two different (pending) non-loop moves read the same register."""
    live = (lambda y: srcs[y] != y) if P is None else (lambda y: P[y])
    return z3.Or(*[z3.And(live(y), live(z), srcs[y] == srcs[z])
                   for y in range(n) for z in range(y + 1, n)] or [z3.BoolVal(False)])


def xchg_symbolic(n: int, timeout_ms: int = 60_000, mutant=None,
                  ledger: Ledger | None = None) -> tuple[str, float]:
    """Every obligation for n registers; a fresh solver per query (see
    proofs/shuf.py: incremental mode is much slower here).  Each invariant
    is conjoined with ``ghost_count`` (the length).  Witnesses (must be
    satisfiable with the query's hypotheses, else the claim is vacuous):
    at init, for every register v: v a source, fan-out of v (and the
    range hypotheses proved implied by the declared domain); fan-out among
    the pending moves at every Kahn pop, both branches of the for loop at
    every i < n - 1 and of the while loop at every d = i < n - 1."""
    timer = ledger if ledger is not None else Ledger()
    srcs, rng = _srcs(n)
    results = []
    inv = lambda S: invariant(S, srcs, n)
    ghost = lambda S: ghost_count(S, srcs, n)

    def ob(goal, hyp, what="", **kw):
        t0 = timer.seconds
        results.append(prove(goal, hyp, timeout_ms, timer, **kw)[0])
        if _DEBUG and timer.seconds - t0 > 0.3:
            print("xchg_symbolic:", what, f"{timer.seconds - t0:.2f} s")
        if results[-1] != PROVED and _DEBUG:
            print("xchg_symbolic:", what, results[-1])
        return results[-1] == PROVED

    def step(S, hyp, succ, what, **kw):
        """The invariant and the measure (without the ghost: it does not
        take part in them), then the ghost count on its own query (the
        two together made n = 8 about 2.5 times slower)."""
        goal = z3.And(*[z3.Implies(c, z3.And(inv(S2), measure(S2, n) < measure(S, n)))
                        for c, S2 in succ])
        ggoal = z3.And(*[z3.Implies(c, ghost(S2)) for c, S2 in succ])
        return (ob(goal, hyp, what, **kw)
                and ob(ggoal, hyp + [inv(S), ghost(S)], what + " (ghost)"))

    # init => K
    S0 = init_state(srcs, n)
    top = source_witnesses(srcs, n)
    # the range hypotheses every query assumes cut no input out
    results.append(domain_query(declared_range(srcs, n), rng, timeout_ms, timer))
    if results[-1] != PROVED:
        return combine(results), timer.seconds
    if not ob(z3.And(inv(S0), ghost(S0)), rng, "init", witnesses=top if n > 1 else None):
        return combine(results), timer.seconds
    # Kahn steps: one query per popped d
    S = fresh_state(n, "kahn")
    K = [inv(S), *rng, *_range(n, S.cur)]
    for d in range(n):
        side, S2 = kahn_step(S, srcs, n, d, mutant)
        wit = {"fan-out among pending moves": _fanout(srcs, n, S.P)} if n > 2 else None
        if not step(S, K + side, [(z3.BoolVal(True), S2)], f"kahn d={d}", witnesses=wit):
            return combine(results), timer.seconds
    # end of Kahn
    side, S2 = kahn_end(S, srcs, n)
    if not step(S, K + side, [(z3.BoolVal(True), S2)], "kahn end"):
        return combine(results), timer.seconds
    # the for loop: between at i = 0..n
    for i in range(n + 1):
        S = _replace(fresh_state(n, "between"), i=i)
        hyp = [inv(S), *rng, *_range(n, S.cur), *_range(n, S.reader), *_range(n, S.alias)]
        if i == n:
            ok = (ob(done_goal(S, srcs, n), hyp, "done")
                  and ob(S.ops == nonloop(srcs, n) - S.walks, hyp + [ghost(S)], "done (ghost)"))
        else:
            # both branches at every i but the last: a move still pending at
            # i = n - 1 would be a cycle of one register (a loop), so the
            # walk branch is unreachable there (it is still proved)
            ok = step(S, hyp, between_step(S, srcs, n), f"between i={i}",
                      branches=i < n - 1)
        if not ok:
            return combine(results), timer.seconds
    # the while loop: walk at (i, d)
    # (d < i cannot happen: C4 and "active => P[d]", "closing => d == i";
    # the query would be vacuous, so it is not asked)
    for i in range(n):
        for d in range(i, n):
            S = _replace(fresh_state(n, "walk"), i=i, d=d)
            hyp = [inv(S), *rng, *_range(n, S.cur), *_range(n, S.reader), *_range(n, S.alias)]
            if not step(S, hyp, walk_step(S, srcs, n, mutant), f"walk i={i} d={d}",
                        branches=d == i < n - 1):
                return combine(results), timer.seconds
    return combine(results), timer.seconds


# -- the Python twin of the invariant, and the algorithm run step by step ----


def snapshot(srcs: list[int], step, ops: list, walks: int) -> dict:
    """A ``Step`` of the real ``xchg``'s ``trace=`` hook (on d <- srcs[d])
    as the proof's state: the phase and loop indices from the label, P =
    pending, Q = the ready deque, P2 = the cycles' moves (``reader``'s
    values), cur from the emitted operations (the one interpreter), and
    the ghosts: ops = operations emitted, walks = walks finished."""
    from verified.core.semantics import execute

    n = len(srcs)
    mode, i, d = {"start": ("kahn", 0, 0), "kahn": ("kahn", 0, 0),
                  "kahn_end": ("between", 0, 0), "between": ("between", step.d0, 0),
                  "walk": ("walk", step.d0, step.at), "done": ("between", n, 0)}[step.label]
    st = execute(ops[:step.emitted])
    return {"mode": mode, "P": set(step.pending), "Q": set(step.ready),
            "edges": dict(step.edges), "alias": dict(step.alias),
            "cur": [st.get(x, x) for x in range(n)], "P2": set(step.reader.values()),
            "reader": dict(step.reader), "i": i, "d": d, "ops": step.emitted,
            "walks": walks}


def invariant_py(srcs: list[int], st: dict) -> list[str]:
    """The invariant of section 3, in Python (the Z3 twin: ``inv_kahn``,
    ``inv_between``, ``inv_walk``; clause names as in the comment there).
    Returns the violated clauses (empty: it holds)."""
    n = len(srcs)
    P, Q, edges, alias, cur = st["P"], st["Q"], st["edges"], st["alias"], st["cur"]
    P2, reader, i, d = st["P2"], st["reader"], st["i"], st["d"]
    where = lambda v: alias.get(v, v)
    bad = []

    def need(ok, name):
        if not ok:
            bad.append(name)

    X = range(n)
    if st["mode"] == "kahn":
        need(all(srcs[x] != x for x in P), "K1")
        need(all(cur[x] == srcs[x] for x in X if x not in P), "K2")
        need(all(cur[x] == x for x in P), "K3")
        need(not alias, "K4")
        need(all(srcs[y] in P or srcs[srcs[y]] == srcs[y] for y in P), "K5")
        need(all(edges.get(l, 0) == sum(1 for y in P if srcs[y] == l) for l in X), "K6")
        need(Q == {x for x in P if edges.get(x, 0) == 0}, "K7")
        return bad
    need(P <= P2 and all(srcs[x] != x and srcs[x] in P2 and reader.get(srcs[x]) == x
                         for x in P2)
         and all(reader.get(l) in P2 and srcs[reader[l]] == l for l in P2), "C1")
    need(all(cur[x] == srcs[x] for x in X if x not in P), "C2")
    need(all(x not in alias for x in P), "C3")
    need(all(x not in P for x in range(min(i, n))) and i <= n, "C4")
    between = (all(cur[x] == x for x in P) and all(srcs[x] in P for x in P)
               and all(srcs[x] not in P for x in P2 - P))
    if st["mode"] == "between":
        need(between, "B1/B2")
        return bad
    need(i < n and i in P2, "walk: i")
    if bad:
        return bad
    h = srcs[i]
    closing = d == i and i not in P and between
    active = (d in P and h in P and where(srcs[d]) == h and cur[h] == srcs[d]
              and (i not in P or d == i)
              and all(cur[x] == x for x in P if x != h)
              and all(srcs[x] == h for x in P2 - P if srcs[x] in P)
              and all(x == d for x in P if srcs[x] not in P))
    need(closing or active, "walk: closing or active")
    return bad


def to_state(srcs: list[int], st: dict) -> XS:
    """A Python snapshot as a concrete XS (Z3 values)."""
    n = len(srcs)
    w, we = _iw(n), _ew(n)
    B = lambda s: [z3.BoolVal(x in s) for x in range(n)]
    V = lambda m, width=w: [z3.BitVecVal(m.get(x, 0), width) for x in range(n)]
    return XS(st["mode"], B(st["P"]), B(st["Q"]), V(st["edges"], we), B(set(st["alias"])),
              V(st["alias"]), [z3.BitVecVal(c, w) for c in st["cur"]], B(st["P2"]),
              V(st["reader"]), st["i"], st["d"], ops=z3.BitVecVal(st.get("ops", 0), _gw(n)),
              walks=z3.BitVecVal(st.get("walks", 0), _gw(n)))


def z3_reach(srcs: list[int], prev: dict, label: str, at, st: dict) -> XS | None:
    """Apply the Z3 step relation to the concrete state ``prev`` until it
    reaches the point of the next traced state ``st``: one step for "kahn"
    (the popped d, ``at``) and "kahn_end"; for the for/while loop the enabled
    branch of ``between_step``/``walk_step``, repeated while the Z3 loop
    index is behind (the real for loop runs over the non-loop moves only,
    the model over every register: a loop register is a skip step).  None
    if a side condition fails or the point is never reached."""
    n = len(srcs)
    S = to_state(srcs, prev)
    sv = [z3.BitVecVal(x, _iw(n)) for x in srcs]
    ev = lambda t: z3.is_true(z3.simplify(t))
    if label in ("kahn", "kahn_end"):
        side, S2 = (kahn_step(S, sv, n, at) if label == "kahn"
                    else kahn_end(S, sv, n))
        return S2 if all(ev(c) for c in side) else None
    target = (st["mode"], st["i"], st["d"] if st["mode"] == "walk" else 0)
    if (S.mode, S.i) == target[:2] and S.mode == "between":
        return S  # "kahn_end" and the first "between" are the same point
    for _ in range(2 * n + 2):
        if S.mode == "kahn" or (S.mode == "between" and S.i >= n):
            return None
        step = between_step if S.mode == "between" else walk_step
        taken = [S2 for c, S2 in step(S, sv, n) if ev(c)]
        if len(taken) != 1:
            return None
        S = taken[0]
        d = S.d if isinstance(S.d, int) else z3.simplify(S.d).as_long()
        S = _replace(S, d=d)  # concrete: the next step indexes with it
        if (S.mode, S.i, d if S.mode == "walk" else 0) == target:
            return S
    return None


def agrees(srcs: list[int], steps: list, ops: list, memo: dict | None = None) -> list[str]:
    """The real ``xchg``'s trace on d <- srcs[d] against the proof: at
    every traced state the Python invariant (``invariant_py``), the Z3
    invariant and the ghost count hold, and the Z3 step relation maps the
    previous state to exactly this one (every field compared, ``same_state``,
    and the ghost operation count == operations emitted); the run ends in
    the done state.  Returns the problems (empty: it agrees).  ``memo``:
    ``holds_at``'s terms, shared by the caller's runs (else this run's)."""
    memo = {} if memo is None else memo
    n = len(srcs)
    sv = [z3.BitVecVal(x, _iw(n)) for x in srcs]
    ev = lambda t: z3.is_true(z3.simplify(t))
    if not steps or steps[0].label != "start" or steps[-1].label != "done":
        return ["the trace does not run from start to done"]
    prev, walks = None, 0
    for k, step in enumerate(steps):
        st = snapshot(srcs, step, ops, walks)
        where_ = f"step {k} ({step.label} {step.at})"
        bad = invariant_py(srcs, st)
        if bad:
            return [f"{where_}: Python invariant fails: {bad}"]
        S = to_state(srcs, st)
        if not _holds(invariant, S, sv, n, memo):
            return [f"{where_}: Z3 invariant fails"]
        if not _holds(ghost_count, S, sv, n, memo):
            return [f"{where_}: ghost operation count fails"]
        if prev is not None:
            S2 = z3_reach(srcs, prev, step.label, step.at, st)
            if S2 is None:
                return [f"{where_}: no Z3 step leads here"]
            if not same_state(srcs, S2, st):
                return [f"{where_}: the Z3 step gives another state"]
            counted = z3.simplify(S2.ops).as_long()
            if counted != st["ops"]:
                return [f"{where_}: Z3 counts {counted} operations, {st['ops']} emitted"]
        if step.label == "walk" and step.at not in step.pending:
            walks += 1  # this walk's loop test fails: it is finished
        prev = st
    last = to_state(srcs, snapshot(srcs, steps[-1], ops, walks))
    if steps[-1].emitted != len(ops) or not ev(done_goal(last, sv, n)):
        return ["the done state does not implement the move"]
    return []


_TERM_FIELDS = ("P", "Q", "edges", "aset", "alias", "cur", "P2", "reader")


def _holds(fn, S: XS, sv: list, n: int, memo: dict) -> bool:
    """``fn(S, sv, n)`` (``invariant`` or ``ghost_count``) at a concrete
    state, through ``holds_at``: the term is built once per phase and
    Python-int indices (i, d), over constants the state's values replace."""
    if not (isinstance(S.i, int) and isinstance(S.d, int)):
        return z3.is_true(z3.simplify(fn(S, sv, n)))
    values = [v for f in _TERM_FIELDS for v in getattr(S, f)] + [S.ops, S.walks, *sv]

    def build(consts: list) -> z3.BoolRef:
        m = len(_TERM_FIELDS) * n
        lists = {f: consts[k * n:(k + 1) * n] for k, f in enumerate(_TERM_FIELDS)}
        state = XS(S.mode, **lists, i=S.i, d=S.d, ops=consts[m], walks=consts[m + 1])
        return fn(state, consts[-n:], n)

    return holds_at(memo, (fn.__name__, n, S.mode, S.i, S.d), build, values)


def same_state(srcs: list[int], S: XS, st: dict) -> bool:
    """Does the Z3 state S (concrete terms) equal the Python snapshot?
    (alias and reader compared where Python has an entry: elsewhere the
    Z3 value is an unused leftover.)"""
    n = len(srcs)
    ev = lambda t: z3.simplify(t)
    b = lambda t: z3.is_true(ev(t))
    v = lambda t: ev(t).as_long()
    d = S.d if isinstance(S.d, int) else v(S.d)
    return (S.mode == st["mode"] and S.i == st["i"]
            and (S.mode != "walk" or d == st["d"])
            and {x for x in range(n) if b(S.P[x])} == st["P"]
            and (S.mode != "kahn" or {x for x in range(n) if b(S.Q[x])} == st["Q"])
            and all(v(S.edges[x]) == st["edges"].get(x, 0) for x in range(n))
            and {x for x in range(n) if b(S.aset[x])} == set(st["alias"])
            and all(v(S.alias[x]) == a for x, a in st["alias"].items())
            and [v(c) for c in S.cur] == st["cur"]
            and (S.mode == "kahn" or {x for x in range(n) if b(S.P2[x])} == st["P2"])
            and all(v(S.reader[l]) == r for l, r in st["reader"].items()))
