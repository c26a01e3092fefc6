"""Machine-checked claims about the algorithms in ``verified/``.

One module per algorithm, under the same name as in ``verified/``:

* ``proofs/semantics_z3.py``: the Z3 encoding of the semantics (symbolic
  initial values; temp, swap and permi models) and its cross-check against
  the one Python interpreter ``verified.semantics.execute``;
* ``proofs/shuf.py``: ``verified.shuf`` (unbounded step lemma, bounded
  whole-algorithm proof by induction on the walk's actions);
* ``proofs/parmove.py``: ``verified.parmove`` (Leroy's rules, unbounded;
  bounded whole-algorithm proofs of leroy);
* ``proofs/xchg.py``: ``verified.xchg`` (the corrected algorithm's step
  lemma and bounded proofs; the counterexample to the published one);
* ``proofs/optimality.py``: lower bounds by bounded synthesis;
* ``proofs/machine.py``: the Z3 semantics of machines (units, aliases,
  pairs, immediates, legality; ``verified.core.machine``), its cross-check
  against the oracle, and bounded facts over symbolic sequences on machine
  fragments (n is the number of units);
* ``proofs/xor_swap.py``: three XORs swap two 64-bit registers.

Every module exposes ``claims() -> list[dict]`` with dicts
``{"claim", "n", "result", "seconds"}`` (and, in ours, ``"expect"``: the
result the claim must have; a mutant's claim expects "counterexample").
``python -m proofs`` collects them all and prints one table.

Words used in the claims: **unbounded** means over every register count
(locations are an uninterpreted Z3 sort of any cardinality, state is Z3
arrays); **n = k** means for every input on exactly k registers (bounded).
"""

from __future__ import annotations

import time
from typing import Iterable

import z3

PROVED, COUNTEREXAMPLE, UNKNOWN = "proved", "counterexample", "unknown"


def claim(
    text: str, n: int | None, result: str, seconds: float,
    expect: str = PROVED, detail: str = "",
) -> dict:
    """One row of the proofs table."""
    out = {"claim": text, "n": n, "result": result, "seconds": round(seconds, 3),
           "expect": expect}
    if detail:
        out["detail"] = detail
    return out


class Timer:
    """Accumulates solver seconds over several ``check`` calls."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def check(self, solver: z3.Solver, *assumptions) -> z3.CheckSatResult:
        t = time.perf_counter()
        r = solver.check(*assumptions)
        self.seconds += time.perf_counter() - t
        return r


def prove(
    goal: z3.BoolRef, hypotheses: Iterable[z3.BoolRef] = (),
    timeout_ms: int = 60_000, timer: Timer | None = None,
) -> tuple[str, z3.ModelRef | None]:
    """Prove ``hypotheses => goal`` (valid for every assignment of the free
    constants).  A proof whose hypotheses are contradictory is reported as
    UNKNOWN (vacuous), never as PROVED.  Returns (PROVED | COUNTEREXAMPLE | UNKNOWN, model of the
    counterexample or None)."""
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*hypotheses)
    s.add(z3.Not(goal))
    timer = timer or Timer()
    r = timer.check(s)
    if r == z3.unsat:
        # Guard against a vacuous proof: the hypotheses alone must be
        # satisfiable (or at least not refuted), else "proved" means nothing.
        v = z3.Solver()
        v.set("timeout", timeout_ms)
        v.add(*hypotheses)
        if timer.check(v) == z3.unsat:
            return UNKNOWN, None
        return PROVED, None
    if r == z3.sat:
        return COUNTEREXAMPLE, s.model()
    return UNKNOWN, None


def combine(results: Iterable[str]) -> str:
    """Several sub-queries make one claim: any counterexample wins, then
    any unknown; proved only if all are proved."""
    results = list(results)
    if COUNTEREXAMPLE in results:
        return COUNTEREXAMPLE
    if UNKNOWN in results or not results:
        return UNKNOWN
    return PROVED
