"""Lower bounds by bounded synthesis, and the bound reached in the same
encoding (BOUNDED: every move on n registers, enumerated up to renaming).

For every parallel move on n registers (contract "all"), with k =
``optimum`` (the closed form of ``verified/algorithms/optimum.py``):

* swap model (mov, swap; no temporary): k = non-loop moves - cycles;
* temp model (mov only; one temporary, location n): k = non-loop moves +
  bare cycles;

two Z3 queries over symbolic operations (each operation's kind and
operands are unknowns ranging over the model's operations and the register
file + temporary; run through ``proofs/semantics_z3.step``, the encoding
cross-checked against the Python interpreter):

* **no shorter**: no sequence of k - 1 operations implements the move
  (``prove``: valid that the sequence does not implement it).  Since
  ``mov r, r`` is a legal no-op this excludes every shorter sequence;
* **reachable**: some sequence of exactly k operations implements it
  (``exists``), so the bound is the optimum, not merely a lower bound,
  and a search space that lost an operation or a location (the temporary)
  cannot pass: it fails here.  The same query is first asked with its
  operations pinned to a candidate (the sequence xchg, in the swap model,
  or mincopy, in the temp model, emits: ``candidate``): the statement is
  the same existence, Z3 only checks the candidate instead of searching
  (about two thirds of this module's solver time at n = 6 went into that
  search).  A candidate of another length, or one the query does not
  prove (an illegal operation makes it vacuous, a wrong one refutes it),
  is dropped and the unpinned search decides, as before.

Inputs: n <= 4 every map srcs (n**n, self-moves included); n = 5..7 one
representative per renaming class (``verified.cases.shapes``: 47, 130, 343
classes).  Hypothesis (stated, not proved here): renaming registers maps
sequences to sequences of the same length and moves to moves, and the
closed form is invariant under renaming, so one representative per class
covers the class.
"""

from __future__ import annotations

import itertools
import time

import z3

from verified.algorithms.optimum import optimum
from verified.cases.shapes import shapes
from verified.core.semantics import ParallelMove

from .common import PROVED, REFUTED, Ledger, exists, prove, row
from .semantics_z3 import MODEL_KINDS, _from_python, distinct, implements, initial, legal, run


def _sequence(srcs, model: str, length: int):
    """(hypotheses, "the sequence implements the move") for ``length``
    symbolic operations."""
    n = len(srcs)
    nlocs = n + (1 if model == "temp" else 0)
    ops = []
    for j in range(length):
        kind = z3.Int(f"k{j}") if len(MODEL_KINDS[model]) > 1 else MODEL_KINDS[model][0]
        ops.append((kind, z3.Int(f"a{j}"), z3.Int(f"b{j}")))
    init = initial(nlocs)
    final = run(ops, list(init))
    allowed = list(range(nlocs))
    # one fixed injective assignment of initial values: a sequence correct
    # for all initial values is correct for this one (enough for the lower
    # bound); the reachable sequence is then checked for all values by the
    # semantics (distinct symbolic values are the general case)
    hyps = [*[legal(op, model, allowed) for op in ops], distinct(init)]
    return hyps, implements(dict(enumerate(srcs)), n, final, init)


def no_shorter(srcs, model: str, length: int, timer: Ledger, timeout_ms=60_000) -> str:
    """Proved: no sequence of ``length`` operations implements the move."""
    hyps, ok = _sequence(srcs, model, length)
    return prove(z3.Not(ok), hyps, timeout_ms, timer)[0]


def reachable(srcs, model: str, length: int, timer: Ledger, timeout_ms=60_000,
              pin: list | None = None) -> str:
    """Proved: some sequence of ``length`` operations implements the move.
    ``pin``: constraints fixing the operations to a candidate (``candidate``);
    tried first, and when that query is not proved the search decides
    (its solver seconds still count)."""
    hyps, ok = _sequence(srcs, model, length)
    if pin:
        pinned = Ledger()
        if exists(ok, [*hyps, *pin], timeout_ms, pinned)[0] == PROVED:
            timer.absorb(pinned)
            return PROVED
        timer.seconds += pinned.seconds
    return exists(ok, hyps, timeout_ms, timer)[0]


#: the algorithm whose output is the candidate of ``reachable``, per model
#: (each emits exactly the closed form: the enumerated rows of xchg and
#: mincopy, and the registry's run-time bound)
CANDIDATE = {"swap": "xchg", "temp": "mincopy"}


def candidate(srcs, model: str, length: int) -> list:
    """Constraints pinning the ``length`` symbolic operations of
    ``_sequence`` to the candidate algorithm's output on the move, or []
    when its output has another length or kind (then nothing is pinned)."""
    from verified.algorithms import ALGORITHMS

    n = len(srcs)
    pm = ParallelMove.from_map(list(srcs), temps=[n] if model == "temp" else [])
    ops = [_from_python(op) for op in ALGORITHMS[CANDIDATE[model]].raw(pm)]
    if len(ops) != length or any(op[0] not in MODEL_KINDS[model] for op in ops):
        return []
    pin = []
    for j, (kind, a, b) in enumerate(ops):
        pin += [z3.Int(f"a{j}") == a, z3.Int(f"b{j}") == b]
        if len(MODEL_KINDS[model]) > 1:
            pin.append(z3.Int(f"k{j}") == kind)
    return pin


def moves(n: int, classes: bool | None = None):
    """Every map for n <= 4; one per renaming class above (or wherever
    ``classes`` says: --quick runs the renaming-class variant at n = 4)."""
    if not (n > 4 if classes is None else classes):
        return list(itertools.product(range(n), repeat=n))
    return list(shapes(n))


def optimality(n: int, model: str, mutant: str | None = None,
               ledger: Ledger | None = None,
               classes: bool | None = None) -> tuple[str, float, str]:
    ledger = ledger or Ledger()
    for srcs in moves(n, classes):
        pm = ParallelMove.from_map(list(srcs), temps=[n] if model == "temp" else [])
        k = optimum(pm, model).length
        if mutant == "bound_too_high":  # claim one more operation is needed
            k += 1
        if k and no_shorter(list(srcs), model, k - 1, ledger) != PROVED:
            return ledger.result(), ledger.seconds, f"srcs={list(srcs)}: a sequence of {k - 1} exists"
        if reachable(list(srcs), model, k, ledger, pin=candidate(srcs, model, k)) != PROVED:
            return ledger.result(), ledger.seconds, f"srcs={list(srcs)}: no sequence of {k}"
    return ledger.result(), ledger.seconds, ""


#: register counts of ``make proofs``; 5 and 6 by renaming classes (47 and
#: 130); --moonshot adds 7 (343 classes; see docs/proofs.md for its time)
DEFAULT_NS = (1, 2, 3, 4, 5, 6)
MOONSHOT_NS = (7,)
QUICK_NS = (1, 2, 3)
#: --quick also runs the renaming-class variant (the one n = 5, 6 use), here
QUICK_CLASSES_N = 4


def claims(quick: bool = False, moonshot: bool = False) -> list[dict]:
    rows = []
    ns = QUICK_NS if quick else DEFAULT_NS + (MOONSHOT_NS if moonshot else ())
    for model, formula in [("swap", "non-loop moves - cycles"),
                           ("temp", "non-loop moves + bare cycles (one temporary)")]:
        runs = [(n, n > 4) for n in ns] + ([(QUICK_CLASSES_N, True)] if quick else [])
        for n, classes in runs:
            t0 = time.perf_counter()
            led = Ledger()
            _, _, cex = optimality(n, model, ledger=led, classes=classes)
            how = f"{len(moves(n, True))} renaming classes" if classes else "every map"
            rows.append(row(
                f"optimality {model}: no sequence shorter than {formula}, and one of "
                f"exactly that length exists, every move on n registers (code: the closed form "
                f"of verified/algorithms/optimum.py; {how}; "
                f"{time.perf_counter() - t0:.1f} s wall)", n, led, detail=cex,
                family=f"optimality {model}"))
    led = Ledger()
    _, _, cex = optimality(3, "swap", mutant="bound_too_high", ledger=led)
    rows.append(row("MUTANT bound_too_high: 'no sequence shorter than the optimum + 1' "
                    "(swap)", 3, led, expect=REFUTED, detail=cex))
    return rows
