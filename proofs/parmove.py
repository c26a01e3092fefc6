"""Proofs of ``verified.algorithms.windmill`` (windmill, mincopy).  Leroy's
rule system and the refinement check of ``leroy``/``leroy_iterative`` are
in ``proofs/leroy.py``.

1. BOUNDED, SYMBOLIC input (section 3 below): windmill's and mincopy's
   step systems on n registers + 1 temporary, by induction, with the
   invariant in Z3 and in Python (``windmill_invariant_py``); n = 8 in
   ``make proofs``.
2. BOUNDED, inputs enumerated (not symbolic): for every move on n registers
   (all n**n maps, self-moves included) and one temporary, the Python
   algorithm's output implements the move, proved per input with the Z3
   semantics of ``proofs/semantics_z3.py`` (contracts switched off, so Z3 is
   the judge).
"""

from __future__ import annotations

import z3

from verified.algorithms import windmill as _windmill
from verified.algorithms.optimum import moves_plus_bare_cycles, moves_plus_cycles

from .common import (ENUMERATED, PROVED, REFUTED, Ledger, as_int, combine, declared_range,
                     enumerate_maps, holds_at,
                     domain_query, mux, planted, prove, row, source_witnesses)
from .semantics_z3 import exhaustive

ALGORITHMS = [
    ("windmill", _windmill.windmill, moves_plus_cycles, "non-loop moves + cycles"),
    ("mincopy", _windmill.mincopy, moves_plus_bare_cycles, "non-loop moves + bare cycles"),
]


def bounded_claims(ns) -> list[dict]:
    rows = []
    for name, fn, bound, bound_text in ALGORITHMS:
        for n in ns:
            t = Ledger()
            import time as _time
            t0 = _time.perf_counter()
            r, cex = exhaustive(getattr(_windmill, fn.__name__), n, "temp", 1, t,
                                length=bound)
            wall = _time.perf_counter() - t0
            rows.append(row(
                f"{name} (code): output implements every move on n registers + 1 temporary, in "
                f"exactly {bound_text} operations (inputs enumerated, each output proved "
                f"by Z3; {wall:.1f} s wall)", n, t, kind=ENUMERATED, detail=cex,
                family=f"{name} (enumerated)"))
    return rows


def mutant_claims(n: int = 3) -> list[dict]:
    from mutants.core import BY_NAME

    return [planted("MUTANT mincopy_wrong_blade: bounded whole-algorithm check", n,
                    BY_NAME["mincopy_restore_from_axle"],
                    lambda fn, t: exhaustive(fn, n, "temp", 1, t)[1])]


#: register counts of the symbolic windmill claim in ``make proofs``;
#: --moonshot adds larger ones (see README "Proofs" for the timings)
WINDMILL_NS = (8,)
WINDMILL_MOONSHOT_NS = (9,)


_SYSTEM = {
    "windmill": "Kahn movs, save to the temporary, unroll, restore",
    "mincopy": "Kahn movs, save in a blade copy or the temporary, unroll, restore",
}


def symbolic_claims(ns, budget: float = 60.0) -> list[dict]:
    rows = []
    for algo in ("windmill", "mincopy"):
        for n in ns:
            led = Ledger()
            windmill_symbolic(n, timeout_ms=int(budget * 1000), algorithm=algo, ledger=led)
            rows.append(row(
                f"{algo} step system ({_SYSTEM[algo]}; model, refined by the enumerated "
                f"code row up to n = 4): every maximal run implements the "
                f"move in non-loop moves + (axles saved in the temporary) operations "
                f"(ghost count) (symbolic input, n = {n} + 1 temporary; induction: init, "
                "each step keeps the invariant and drops the measure, progress, done; "
                "range hypotheses proved implied by the declared domain (every source "
                "0..n-1); witnesses: at init, for every register v, v a source and fan-out "
                "of v; fan-out among pending moves at every Kahn step; both axle branches "
                "at every axle c0 and position x != c0"
                + ("; a blade copy saves the axle, at every c0" if algo == "mincopy" else "")
                + ")",
                n, led, family=f"{algo} (symbolic input, step system)"))
    return rows


def symbolic_mutant_claims(n: int = 4) -> list[dict]:
    rows = []
    for algo, mut, text in [
            ("windmill", "no_save", "breaks the axle without mov T <- c0"),
            ("windmill", "restore_from_axle", "closes the axle from c0, not the temporary"),
            ("mincopy", "copy_is_source", "records the axle location as its own blade copy"),
            ("mincopy", "restore_from_axle", "closes the axle from c0, not the saved copy")]:
        led = Ledger()
        windmill_symbolic(n, mutant=mut, algorithm=algo, ledger=led)
        rows.append(row(f"MUTANT {algo}_{mut}: {text} (symbolic input, n = {n}, "
                        "whole-algorithm induction)", n, led, expect=REFUTED))
    return rows


def claims(quick: bool = False, moonshot: bool = False) -> list[dict]:
    ns = (3,) if quick else WINDMILL_NS + (WINDMILL_MOONSHOT_NS if moonshot else ())
    return (bounded_claims((3,) if quick else (5,)) + mutant_claims()
            + symbolic_claims(ns) + symbolic_mutant_claims(3 if quick else 4)
            + refinement_claims(3 if quick else 4))


def refinement_claims(top: int) -> list[dict]:
    """ENUMERATED: the real windmill and mincopy against the step system
    the symbolic rows prove (``windmill_agrees``, through their ``trace=``
    hooks) on every move of 1..top registers + 1 temporary."""
    from verified.algorithms import windmill as algos
    from verified.core.semantics import ParallelMove

    rows = []
    for name in ("windmill", "mincopy"):
        fn = getattr(algos, name)

        def judge(srcs: list, fn=fn, name=name) -> list:
            steps: list = []
            out = fn(ParallelMove.from_map(srcs, temps=[len(srcs)]), trace=steps)
            return windmill_agrees(srcs, steps, out, name == "mincopy", memo)

        memo: dict = {}     # holds_at's terms, for this enumeration only
        led, detail = enumerate_maps(top, judge)
        rows.append(row(
            f"real {name} (code) == the step system of the symbolic rows, step by step "
            f"through its trace= hook (Python and Z3 invariants, the Z3 step named by each "
            f"label maps the state to the traced one, ends with nothing unwritten) on every "
            f"move of 1..{top} registers + 1 temporary ({led.enumerated} moves; inputs "
            f"enumerated: the refinement of the symbolic row where cheap, about 13 s at 4 "
            f"registers; beyond, random moves of 5..7 in tests/proofs/"
            f"test_proofs_symbolic.py)", top, led, kind=ENUMERATED, detail=detail))
    return rows


if __name__ == "__main__":
    for row in claims():
        print(row)


# ---------------------------------------------------------------------------
# 3. BOUNDED, SYMBOLIC input: windmill's step system on n registers
# ---------------------------------------------------------------------------
#
# THE INVARIANT (the same one, twice): Python ``windmill_invariant_py``
# (checked by tests/proofs/test_proofs_symbolic.py, ``windmill_agrees``,
# after every operation of the real ``windmill``/``mincopy``, reported by
# their ``trace=`` hook) and Z3
# ``wm_invariant`` below.  Registers 0..n-1, the temporary T = n; srcs[d]
# symbolic in 0..n-1 (srcs[d] == d: no move into d); cur[l] = the original
# register whose value l holds; P = the moves not yet written.
#
#   M1  P[y] => srcs[y] != y;   P[y] => cur[y] == y;
#       not P[y] => cur[y] == srcs[y]                 (y a register)
# "kahn" mode (blades):
#   M2  P[y] and srcs[y] == l and not P[l] => srcs[l] == l
#                                   (no pending move reads a written register)
# "axle" mode (start c0, hole x, ghost A = the axle's unwritten locations):
#   A1  cur[T] == c0                              (the saved value)
#   A2  P[y] and srcs[y] == l and not P[l] and srcs[l] != l => l == c0 and A[y]
#   A3  A[x]; A <= P; A[y] => A[srcs[y]] or srcs[y] == c0
#   A4  A[y], A[z], y != z => srcs[y] != srcs[z]
#   A5  P[y] and A[srcs[y]] => A[y]               (no pending blade reads A)
#   A6  P[y] and srcs[y] == x => x == c0;   x != c0 => not P[c0]
#
# Steps (the windmill system; ``verified.algorithms.windmill.windmill`` takes one of
# them at every operation, which the test checks):
#   kahn d:  P[d], no pending y reads d   -> mov d <- srcs[d]
#   start c0 with A: P[c0], A[c0], A <= P, srcs maps A into A injectively,
#            every pending reader of an A location is in A (the axle, after
#            its windmill's blades)       -> mov T <- c0; axle(c0, x = c0)
#   axle:    srcs[x] != c0 -> mov x <- srcs[x]; x := srcs[x]
#            srcs[x] == c0 -> mov x <- T; back to kahn
#   measure 2|P| + [kahn mode]
# Proved for every input on n registers: init => Inv; each step keeps Inv
# and drops the measure; in kahn mode with P non-empty some step is enabled
# (a ready d, or A = P is an axle: the cycle argument); kahn mode with P
# empty => every register holds its source's value.  So every maximal run
# of the system implements the move.
# NOT proved: that Python's control flow (analyse's components and cycles,
# one windmill after the other) only takes these steps and stops only when
# P is empty; the test checks it through the trace hook, exhaustively on
# n <= 4 and on random inputs, step by step.


def _wm_vars(n, tag=""):
    w = max(1, n.bit_length())
    P = [z3.Bool(f"wP{tag}_{x}") for x in range(n)]
    A = [z3.Bool(f"wA{tag}_{x}") for x in range(n)]
    cur = [z3.BitVec(f"wcur{tag}_{x}", w) for x in range(n + 1)]
    return P, A, cur


_wmux = mux


def _m1(P, cur, srcs, n):
    c = []
    for y in range(n):
        c += [z3.Implies(P[y], srcs[y] != y), z3.Implies(P[y], cur[y] == y),
              z3.Implies(z3.Not(P[y]), cur[y] == srcs[y])]
    return c


def wm_inv_kahn(P, cur, srcs, n):
    c = _m1(P, cur, srcs, n)
    for y in range(n):
        for l in range(n):
            c.append(z3.Implies(z3.And(P[y], srcs[y] == l, z3.Not(P[l])), srcs[l] == l))
    return z3.And(*c)


def _saved_ok(P, cur, srcs, n, c0, b):
    """A1: the saved location b holds c0's value and is the temporary or a
    written blade root (not pending, its source is c0: mincopy)."""
    if isinstance(b, int) and b == n:
        return cur[n] == c0
    return z3.And(_wmux(cur, b) == c0,
                  z3.Or(b == n, z3.And(z3.ULT(b, n), z3.Not(_wmux(P, b)),
                                       _wmux(srcs, b) == c0)))


def wm_inv_axle(P, A, cur, srcs, n, c0, x, b=None):
    """c0 a Python int, x an int or a term, b the saved location (default:
    the temporary n)."""
    b = n if b is None else b
    c = _m1(P, cur, srcs, n) + [_saved_ok(P, cur, srcs, n, c0, b), _wmux(A, x), z3.Implies(x != c0, z3.Not(P[c0]))
                                if not isinstance(x, int) else
                                z3.BoolVal(True) if x == c0 else z3.Not(P[c0])]
    for y in range(n):
        for l in range(n):
            c.append(z3.Implies(z3.And(P[y], srcs[y] == l, z3.Not(P[l]), srcs[l] != l),
                                z3.And(l == c0, A[y])))
        c += [z3.Implies(A[y], P[y]),
              z3.Implies(A[y], z3.Or(_wmux(A, srcs[y]), srcs[y] == c0)),
              z3.Implies(z3.And(P[y], _wmux(A, srcs[y])), A[y]),
              z3.Implies(z3.And(P[y], srcs[y] == x), x == c0 if not isinstance(x, int)
                         else z3.BoolVal(x == c0))]
        for z in range(y + 1, n):
            c.append(z3.Implies(z3.And(A[y], A[z]), srcs[y] != srcs[z]))
    return z3.And(*c)


def _size(P):
    return z3.Sum([z3.If(p, 2, 0) for p in P])


def _set(xs, k, v):
    return [v if j == k else xs[j] for j in range(len(xs))]


def _wset(xs, j, v):
    """xs with index j (int or term) set to v."""
    if isinstance(j, int):
        return _set(xs, j, v)
    return [z3.If(j == k, v, xs[k]) for k in range(len(xs))]


def wm_kahn_step(P, cur, srcs, n, d):
    side = [P[d]] + [z3.Not(z3.And(P[y], srcs[y] == d)) for y in range(n)]
    return side, _set(P, d, z3.BoolVal(False)), _set(cur, d, _wmux(cur, srcs[d]))


def wm_start_side(P, A, srcs, n, c0):
    side = [P[c0], A[c0]]
    for y in range(n):
        side += [z3.Implies(A[y], P[y]), z3.Implies(A[y], _wmux(A, srcs[y])),
                 z3.Implies(z3.And(P[y], _wmux(A, srcs[y])), A[y])]
        for z in range(y + 1, n):
            side.append(z3.Implies(z3.And(A[y], A[z]), srcs[y] != srcs[z]))
    return side


def wm_start(cur, n, c0, mutant=None):
    return cur if mutant == "no_save" else _set(cur, n, cur[c0])


def wm_axle_step(P, A, cur, srcs, n, c0, x, mutant=None, b=None):
    """Returns (closing condition, P', A', cur', next x)."""
    b = n if b is None else b
    s = srcs[x]
    closing = s == c0
    restore = cur[c0] if mutant == "restore_from_axle" else _wmux(cur, b)
    v = z3.If(closing, restore, _wmux(cur, s))
    return closing, _set(P, x, z3.BoolVal(False)), _set(A, x, z3.BoolVal(False)), \
        _set(cur, x, v), s


def mincopy_start(P, cur, srcs, n, c0, b, mutant=None):
    """mincopy's axle start: the saved location b is a written blade root x
    with srcs[x] == c0 (no operation), or the temporary (mov T <- c0).
    Returns (side, cur')."""
    root = z3.And(z3.ULT(b, n), z3.Not(_wmux(P, b)), _wmux(srcs, b) == c0)
    if mutant == "copy_is_source":  # copy_of.setdefault(s, s): c0 as its own copy
        root = b == c0
    cur2 = [cur[y] for y in range(n)] + [z3.If(b == n, cur[c0], cur[n])]
    return [z3.Or(b == n, root)], cur2


_DEBUG = False


def _count(P, ops, saves, srcs, n):
    """The length invariant (ghost counters ops, saves): every emitted
    operation writes a pending move or saves an axle in the temporary, so
    ops + |P| == non-loop moves + saves; at the end ops == non-loop + saves."""
    return ops + z3.Sum([z3.If(p, 1, 0) for p in P]) == \
        z3.Sum([z3.If(srcs[y] != y, 1, 0) for y in range(n)]) + saves


def _wfanout(srcs, n, P):
    return z3.Or(*[z3.And(P[y], P[z], srcs[y] == srcs[z])
                   for y in range(n) for z in range(y + 1, n)] or [z3.BoolVal(False)])


def windmill_symbolic(n: int, timeout_ms: int = 60_000, mutant=None,
                      algorithm: str = "windmill",
                      ledger: Ledger | None = None) -> tuple[str, float]:
    """windmill's (or, with algorithm="mincopy", mincopy's) step system.
    Witnesses (satisfiable with the query's hypotheses, else vacuous):
    at init, for every register v: v a source, fan-out of v (and the
    range hypotheses proved implied by the declared domain); fan-out among
    pending moves at a Kahn step, both branches of an axle step, and for
    mincopy an axle saved in a blade copy."""
    timer = ledger if ledger is not None else Ledger()
    mc = algorithm == "mincopy"
    w = max(1, n.bit_length())
    srcs = [z3.BitVec(f"wsrcs_{x}", w) for x in range(n)]
    rng = [z3.ULT(s, n) for s in srcs] if (1 << w) != n else []
    results = []
    ops, saves = z3.Ints("wops wsaves")

    def ob(goal, hyp, **kw):
        t0 = timer.seconds
        results.append(prove(goal, hyp, timeout_ms, timer, **kw)[0])
        if _DEBUG and timer.seconds - t0 > 0.3:
            print("windmill_symbolic:", len(results), results[-1], f"{timer.seconds - t0:.2f} s")
        return results[-1] == PROVED

    P, A, cur = _wm_vars(n)
    crng = [z3.ULT(c, n) for c in cur] if (1 << w) != n else []
    # init
    P0 = [srcs[y] != y for y in range(n)]
    cur0 = [z3.BitVecVal(y, w) for y in range(n)] + [cur[n]]
    top = source_witnesses(srcs, n)
    # the range hypotheses every query assumes cut no input out
    results.append(domain_query(declared_range(srcs, n), rng, timeout_ms, timer))
    if results[-1] != PROVED:
        return combine(results), timer.seconds
    if not ob(z3.And(wm_inv_kahn(P0, cur0, srcs, n), _count(P0, 0, 0, srcs, n)), rng,
              witnesses=top if n > 1 else None):
        return combine(results), timer.seconds
    K = [wm_inv_kahn(P, cur, srcs, n), _count(P, ops, saves, srcs, n), *rng, *crng]
    # kahn steps
    for d in range(n):
        side, P2, cur2 = wm_kahn_step(P, cur, srcs, n, d)
        wit = {"fan-out among pending moves": _wfanout(srcs, n, P)} if n > 2 else None
        if not ob(z3.And(wm_inv_kahn(P2, cur2, srcs, n), _size(P2) < _size(P),
                         _count(P2, ops + 1, saves, srcs, n)), K + side, witnesses=wit):
            return combine(results), timer.seconds
    # progress and done
    ready = z3.Or(*[z3.And(*wm_kahn_step(P, cur, srcs, n, d)[0]) for d in range(n)])
    axle = z3.Or(*[z3.And(*wm_start_side(P, P, srcs, n, c)) for c in range(n)])
    if not ob(z3.Or(z3.And(*[z3.Not(p) for p in P]), ready, axle), K):
        return combine(results), timer.seconds
    nonloop = z3.Sum([z3.If(srcs[y] != y, 1, 0) for y in range(n)])
    if not ob(z3.And(*[cur[y] == srcs[y] for y in range(n)], ops == nonloop + saves),
              K + [z3.Not(p) for p in P]):
        return combine(results), timer.seconds
    # axle start (measure: 2|P| + 1 in kahn mode, 2|P| in axle mode, so the
    # start drops it by one with P unchanged: nothing to ask)
    b = z3.BitVec("wsaved", w) if mc else n
    for c0 in range(n):
        side = wm_start_side(P, A, srcs, n, c0)
        if mc:
            bside, cur2 = mincopy_start(P, cur, srcs, n, c0, b, mutant)
            side = side + bside
            saved = z3.If(b == n, 1, 0)
        else:
            cur2 = wm_start(cur, n, c0, mutant)
            saved = 1
        wit = {"a blade copy saves the axle": b != n} if mc and n > 2 else None
        if not ob(z3.And(wm_inv_axle(P, A, cur2, srcs, n, c0, c0, b),
                         _count(P, ops + saved, saves + saved, srcs, n)), K + side,
                  witnesses=wit):
            return combine(results), timer.seconds
    # axle steps
    for c0 in range(n):
        for x in range(n):
            hyp = [wm_inv_axle(P, A, cur, srcs, n, c0, x, b), _count(P, ops, saves, srcs, n),
                   *rng, *crng]
            closing, P2, A2, cur2, x2 = wm_axle_step(P, A, cur, srcs, n, c0, x, mutant, b)
            counted = _count(P2, ops + 1, saves, srcs, n)
            goal = z3.And(
                z3.Implies(closing, z3.And(wm_inv_kahn(P2, cur2, srcs, n),
                                           _size(P2) + 1 < _size(P), counted)),
                z3.Implies(z3.Not(closing), z3.And(wm_inv_axle(P2, A2, cur2, srcs, n, c0, x2, b),
                                                   _size(P2) < _size(P), counted)))
            if not ob(goal, hyp, branches=x != c0 and n > 2):
                return combine(results), timer.seconds
    return combine(results), timer.seconds


def windmill_snapshot(srcs: list[int], step, ops: list) -> tuple[object, dict]:
    """A ``Step`` of the real ``windmill``/``mincopy``'s ``trace=`` hook (on
    d <- srcs[d], temporary n) as (the label of section 3's step system,
    its state): ("kahn", d), ("start", c0, A, saved) or "axle"; the state's
    P = the unwritten destinations, cur from the emitted operations (the one
    interpreter), and in an axle c0, the hole x, A = the axle's unwritten
    locations, b = where c0's value is saved."""
    from verified.core.semantics import execute

    n = len(srcs)
    values = execute(ops[:step.emitted])
    st = {"mode": "axle" if step.hole is not None else "kahn", "P": set(step.unwritten),
          "cur": [values.get(x, x) for x in range(n + 1)], "A": set(), "c0": 0, "x": 0,
          "b": n}
    if step.hole is not None:
        st.update(c0=step.axle[0], x=step.hole, A=set(step.axle) & set(step.unwritten),
                  b=step.saved)
    if step.label == "kahn":
        return ("kahn", step.at), st
    if step.label == "start":
        return ("start", step.at, set(step.axle), step.saved), st
    return "axle", st


def _wm_inv_holds(st: dict, P: list, cur: list, sv: list, n: int, w: int,
                  memo: dict) -> bool:
    """``wm_inv_kahn`` or ``wm_inv_axle`` at a concrete state (Z3 values),
    through ``holds_at``: built once per phase, register count and the
    Python-level c0, x and whether b is the temporary; P, A, cur, the
    sources and a blade root b are the constants the values replace."""
    if st["mode"] == "kahn":
        return holds_at(memo, ("wm_inv_kahn", n, w), lambda c: wm_inv_kahn(
            c[:n], c[n:2 * n + 1], c[2 * n + 1:], n), [*P, *cur, *sv])
    A = [z3.BoolVal(y in st["A"]) for y in range(n)]
    c0, x, temp = st["c0"], st["x"], st["b"] == n
    b = [] if temp else [z3.BitVecVal(st["b"], w)]
    return holds_at(memo, ("wm_inv_axle", n, w, c0, x, temp), lambda c: wm_inv_axle(
        c[:n], c[n:2 * n], c[2 * n:3 * n + 1], c[3 * n + 1:4 * n + 1], n, c0, x,
        n if temp else c[4 * n + 1]), [*P, *A, *cur, *sv, *b])


def windmill_agrees(srcs: list[int], steps: list, ops: list,
                    reuse_blade: bool = False, memo: dict | None = None) -> list[str]:
    """The real run's trace against section 3: the Python and Z3
    invariants hold at every state, the Z3 step named by the label maps
    the previous state to exactly this one (``windmill_z3_agrees``), every
    operation is one step, and the run ends in kahn mode with nothing
    unwritten.  Returns the problems (empty: it agrees).  ``memo``:
    ``holds_at``'s terms, shared by the caller's runs (else this run's)."""
    memo = {} if memo is None else memo
    n = len(srcs)
    w = max(1, n.bit_length())
    sv = [z3.BitVecVal(s, w) for s in srcs]
    prev = {"mode": "kahn", "P": {d for d in range(n) if srcs[d] != d}, "A": set(),
            "c0": 0, "x": 0, "b": n, "cur": list(range(n + 1))}
    labelled = [("init", prev)] + [windmill_snapshot(srcs, s, ops) for s in steps]
    for k, (label, st) in enumerate(labelled):
        where_ = f"step {k} ({label})"
        bad = windmill_invariant_py(srcs, st)
        if bad:
            return [f"{where_}: Python invariant fails: {bad}"]
        P = [z3.BoolVal(y in st["P"]) for y in range(n)]
        cur = [z3.BitVecVal(c % (1 << w), w) for c in st["cur"]]
        if not _wm_inv_holds(st, P, cur, sv, n, w, memo):
            return [f"{where_}: Z3 invariant fails"]
        if k and not windmill_z3_agrees(srcs, prev, label, st, reuse_blade):
            return [f"{where_}: the Z3 step does not give this state"]
        prev = st
    last = steps[-1].emitted if steps else 0
    if last != len(ops) or prev["mode"] != "kahn" or prev["P"]:
        return ["the run does not end with every destination written by its steps"]
    return []


def windmill_invariant_py(srcs: list[int], st: dict) -> list[str]:
    """The invariant of section 3 in Python (Z3 twin: ``wm_inv_kahn``,
    ``wm_inv_axle``).  Returns the violated clauses."""
    n = len(srcs)
    P, cur, A = st["P"], st["cur"], st["A"]
    bad = []
    X = range(n)
    if not (all(srcs[y] != y and cur[y] == y for y in P)
            and all(cur[y] == srcs[y] for y in X if y not in P)):
        bad.append("M1")
    written = lambda l: l not in P and srcs[l] != l
    if st["mode"] == "kahn":
        if any(written(srcs[y]) for y in P):
            bad.append("M2")
        return bad
    c0, x, b = st["c0"], st["x"], st.get("b", n)
    if not (cur[b] == c0 and (b == n or (b < n and b not in P and srcs[b] == c0))):
        bad.append("A1")
    if not all(srcs[y] == c0 and y in A for y in P if written(srcs[y])):
        bad.append("A2")
    if not (x in A and A <= P and all(srcs[y] in A or srcs[y] == c0 for y in A)):
        bad.append("A3")
    if len({srcs[y] for y in A}) != len(A):
        bad.append("A4")
    if not all(y in A for y in P if srcs[y] in A):
        bad.append("A5")
    if not (all(x == c0 for y in P if srcs[y] == x) and (x == c0 or c0 not in P)):
        bad.append("A6")
    return bad


def windmill_z3_agrees(srcs: list[int], prev: dict, label, st: dict,
                       reuse_blade: bool = False) -> bool:
    """The Z3 step (side conditions and effect) on the concrete snapshot
    ``prev``, for the transition ``label`` the Python code took, gives the
    snapshot ``st``."""
    n = len(srcs)
    w = max(1, n.bit_length())
    sv = [z3.BitVecVal(s, w) for s in srcs]
    P = [z3.BoolVal(y in prev["P"]) for y in range(n)]
    cur = [z3.BitVecVal(c, w) for c in prev["cur"]]
    ev = lambda t: z3.simplify(t)
    ok = lambda conds: all(z3.is_true(ev(c)) for c in conds)
    if isinstance(label, tuple) and label[0] == "kahn":
        side, P2, cur2 = wm_kahn_step(P, cur, sv, n, label[1])
        mode2, x2 = "kahn", None
    elif isinstance(label, tuple):
        _, c0, Aset, b = label
        A = [z3.BoolVal(y in Aset) for y in range(n)]
        side, P2, cur2 = wm_start_side(P, A, sv, n, c0), P, wm_start(cur, n, c0)
        if reuse_blade:
            bside, cur2 = mincopy_start(P, cur, sv, n, c0, z3.BitVecVal(b, w))
            side = side + bside
        elif b != n:
            return False
        mode2, x2 = "axle", c0
    else:
        A = [z3.BoolVal(y in prev["A"]) for y in range(n)]
        b = prev.get("b", n)
        closing, P2, A2, cur2, x2 = wm_axle_step(P, A, cur, sv, n, prev["c0"], prev["x"],
                                                b=b if b == n else z3.BitVecVal(b, w))
        side, mode2 = [], "kahn" if z3.is_true(ev(closing)) else "axle"
    if not ok(side) or mode2 != st["mode"]:
        return False
    if mode2 == "axle" and ev(z3.BitVecVal(0, w) + x2).as_long() != st["x"]:
        return False
    if mode2 == "axle" and not isinstance(label, tuple):  # the axle's unwritten part
        if {y for y in range(n) if z3.is_true(ev(A2[y]))} != st["A"]:
            return False
    return ({y for y in range(n) if z3.is_true(ev(P2[y]))} == st["P"]
            and [ev(c).as_long() for c in cur2[:n]] == st["cur"][:n]
            and (mode2 != "axle" or ev(cur2[n]).as_long() == st["cur"][n]))
