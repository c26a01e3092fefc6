"""Lower bounds by bounded synthesis (BOUNDED: every move on n registers).

For every parallel move on n registers (all n**n maps srcs[d], self-moves
included; contract "all"), with k = ``oracle.optimum`` (the closed form):

* swap model (mov, swap; no temporary): k = non-loop moves - cycles;
* temp model (mov only; one temporary, location n): k = non-loop moves +
  bare cycles;

Z3 proves that NO sequence of k - 1 symbolic operations (each operation's
kind and operands are unknowns ranging over the model's operations and the
register file + temporary) implements the move: UNSAT.  Since ``mov r, r``
is a legal no-op, this also excludes every shorter sequence.  The sequences
run through ``proofs/semantics_z3.step``, the encoding cross-checked against
the Python interpreter.  That k itself is reached is shown by the
algorithms (shuf/xchg and mincopy emit exactly k operations; their
postconditions check it).
"""

from __future__ import annotations

import itertools
import time

import z3

from verified.algorithms.optimum import optimum
from verified.core.semantics import ParallelMove

from . import COUNTEREXAMPLE, PROVED, UNKNOWN, Timer, claim
from .semantics_z3 import MODEL_KINDS, distinct, implements, initial, legal, run


def no_shorter(srcs, model: str, length: int, timer: Timer, timeout_ms=60_000) -> str:
    """UNSAT: no sequence of ``length`` operations implements the move."""
    n = len(srcs)
    ntemps = 1 if model == "temp" else 0
    nlocs = n + ntemps
    ops = []
    for j in range(length):
        kind = z3.Int(f"k{j}") if len(MODEL_KINDS[model]) > 1 else MODEL_KINDS[model][0]
        ops.append((kind, z3.Int(f"a{j}"), z3.Int(f"b{j}")))
    init = initial(nlocs)
    final = run(ops, list(init))
    source_of = {d: s for d, s in enumerate(srcs)}
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    allowed = list(range(nlocs))
    s.add(*[legal(op, model, allowed) for op in ops])
    # The sequence must work for these distinct initial values: symbolic
    # operations, one fixed injective assignment is enough for a lower bound
    # (a sequence correct for all initial values is correct for this one).
    s.add(distinct(init))
    s.add(implements(source_of, n, final, init))
    r = timer.check(s)
    if r == z3.unsat:
        return PROVED
    return COUNTEREXAMPLE if r == z3.sat else UNKNOWN


def optimality(n: int, model: str, mutant: str | None = None) -> tuple[str, float, str]:
    timer = Timer()
    for srcs in itertools.product(range(n), repeat=n):
        pm = ParallelMove.from_map(list(srcs), temps=[n] if model == "temp" else [])
        k = optimum(pm, model).length
        if mutant == "bound_too_high":  # claim one more operation is needed
            k += 1
        if not k:
            continue
        r = no_shorter(list(srcs), model, k - 1, timer)
        if r != PROVED:
            return r, timer.seconds, f"srcs={list(srcs)}: a sequence of {k - 1} exists"
    return PROVED, timer.seconds, ""


def claims(quick: bool = False) -> list[dict]:
    rows = []
    ns = (1, 2, 3) if quick else (1, 2, 3, 4)
    for model, formula in [("swap", "non-loop moves - cycles"),
                           ("temp", "non-loop moves + bare cycles (one temporary)")]:
        for n in ns:
            t0 = time.perf_counter()
            r, secs, cex = optimality(n, model)
            rows.append(dict(claim(
                f"optimality {model}: no sequence shorter than {formula}, every move "
                f"on n registers ({time.perf_counter() - t0:.1f} s wall)", n, r, secs,
                detail=cex), family=f"optimality {model}"))
    r, secs, cex = optimality(3, "swap", mutant="bound_too_high")
    rows.append(claim("MUTANT bound_too_high: 'no sequence shorter than the optimum + 1' "
                      "(swap)", 3, r, secs, expect=COUNTEREXAMPLE, detail=cex))
    return rows
