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

A whole-algorithm proof for symbolic inputs is NOT done for this resolver.
"""

from __future__ import annotations

import os
import time

import z3

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
    rows.append(planted("MUTANT swap_without_legality on the small machine (inputs "
                        "enumerated, each output judged by the Z3 semantics and legality)",
                        4, BY_NAME["swap_without_legality"],
                        lambda fn, led: enumerated(VARIANTS[0],
                                                   lambda mm, p: fn(mm, preserve=p), led,
                                                   spare)[3]))
    return rows
