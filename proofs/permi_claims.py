"""Claims about verified.permi (Buchwald, Mohr, Rutter), proved with Z3 for
every signature, or exhaustively for every RTG up to a register count.

* GREEDY's count of steps 3-5 (the Python code's loop structure, written as
  integer arithmetic) equals Lemma 3's closed form, for all a2, a3 >= 0.
* Lemma 5: a merge of two cycles (size classes i, j mod 4, signature change
  recomputed from real cycles with ``greedy.signature``) never lowers
  GREEDY's cost, for every signature that has such cycles.
* The DP (optimal_length) equals the brute-force search on every RTG with
  n registers: an exhaustive test (result "enumerated"), not a proof; the
  search is the ground truth of the tests.

Every Z3 query goes through ``proofs.common.prove``: a claim "for all
a2, a3 >= 0: lhs == rhs" is ``prove(lhs == rhs, [a2 >= 0, a3 >= 0])``.
"""

from __future__ import annotations

import itertools
import time

import z3

from verified.algorithms import copyset, greedy, search
from verified.core.semantics import ParallelMove

from .common import ENUMERATED, PROVED, REFUTED, Ledger, prove, row


def _ceil_div(x, k: int):
    return (x + (k - 1)) / k  # Z3 Int division is floor for x >= 0


def _lemma3(x, a2, a3):
    p = _ceil_div(a2 + a3, 2)
    q = _ceil_div(a2 + 2 * a3, 3)
    return x + z3.If(p >= q, p, q)


def _run(claim: str, n, goal, hypotheses, expect: str = PROVED,
         witnesses=None) -> dict:
    led = Ledger()
    prove(goal, hypotheses, 60_000, led, witnesses=witnesses)
    return row(claim, n, led, expect=expect)


def greedy_steps_claim() -> dict:
    """Steps 3-5: m = min(a2, a3) perms of 5; then the 2-cycles left pair up
    (ceil(r2 / 2)); the 3-cycles left take 2 per triple plus one per
    leftover: 2 * (r3 div 3) + (r3 mod 3)."""
    a2, a3 = z3.Ints("a2 a3")
    m = z3.If(a2 <= a3, a2, a3)
    r2, r3 = a2 - m, a3 - m
    steps = m + _ceil_div(r2, 2) + 2 * (r3 / 3) + r3 % 3
    return _run("GREEDY steps 3-5 count == Lemma 3 (all a2, a3)", None,
                steps == _lemma3(0, a2, a3), [a2 >= 0, a3 >= 0],
                witnesses={"more 2-cycles than 3-cycles": a2 > a3 + 3,
                           "more 3-cycles than 2-cycles": a3 > a2 + 3})


def mutant_claim() -> dict:
    """A mutant the encoding must refute: Lemma 3 with its first ceiling
    replaced by a floor (expected: counterexample)."""
    a2, a3 = z3.Ints("a2 a3")
    m = z3.If(a2 <= a3, a2, a3)
    r2, r3 = a2 - m, a3 - m
    steps = m + _ceil_div(r2, 2) + 2 * (r3 / 3) + r3 % 3
    p, q = (a2 + a3) / 2, _ceil_div(a2 + 2 * a3, 3)
    return _run("MUTANT: Lemma 3 with floor((a2+a3)/2)", None,
                steps == z3.If(p >= q, p, q), [a2 >= 0, a3 >= 0], expect=REFUTED)


def _merge_delta(i: int, j: int) -> tuple[int, int, int]:
    a = list(range(i or 4))
    b = list(range(100, 100 + (j or 4)))
    cyc = lambda vs: [(vs[k], vs[(k + 1) % len(vs)]) for k in range(len(vs))]
    before = greedy.signature(cyc(a) + cyc(b))
    after = greedy.signature(cyc(a + b))
    return tuple(q - p for p, q in zip(before, after))  # type: ignore[return-value]


def merge_claims() -> list[dict]:
    out = []
    for i, j in itertools.combinations_with_replacement(range(4), 2):
        dx, d2, d3 = _merge_delta(i, j)
        x, a2, a3 = z3.Ints("x a2 a3")
        # the signature must contain the two cycles being merged
        hyps = [x >= 0, a2 >= 0, a3 >= 0, x >= (i == 0) + (j == 0),
                a2 >= (i == 2) + (j == 2), a3 >= (i == 3) + (j == 3)]
        out.append(_run(f"Lemma 5: merging sizes {i},{j} mod 4 never lowers GREEDY",
                        None, _lemma3(x + dx, a2 + d2, a3 + d3) >= _lemma3(x, a2, a3),
                        hyps))
    return out


def exhaustive_claim(n: int, preserve: str) -> dict:
    """An exhaustive test, no Z3: the ledger counts the inputs."""
    led = Ledger()
    t = time.perf_counter()
    detail = ""
    for srcs in itertools.product([None, *range(n)], repeat=n):
        moves = [(d, s) for d, s in enumerate(srcs) if s is not None]
        pm = ParallelMove.make(moves, registers=n)
        led.enumerated += 1
        if copyset.optimal_length(pm, preserve) != search.search_optimum(pm, preserve, 12):
            led.record(REFUTED)
            detail = f"srcs={list(srcs)}"
            break
    led.seconds = time.perf_counter() - t
    return row(f"DP == brute-force optimum on every RTG ({preserve}; exhaustive test over "
               f"all {(n + 1) ** n} partial maps, not a proof)", n, led,
               kind=ENUMERATED, detail=detail)


def claims(quick: bool = False) -> list[dict]:
    rows = [greedy_steps_claim(), mutant_claim(), *merge_claims()]
    rows.append(exhaustive_claim(4 if quick else 5, "loops"))
    rows.append(exhaustive_claim(3 if quick else 4, "all"))
    return rows


if __name__ == "__main__":
    import sys

    for row in claims(quick="--quick" in sys.argv):
        print(row)
