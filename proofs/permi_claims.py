"""Claims about verified.permi (Buchwald, Mohr, Rutter), proved with Z3 for
every signature, or exhaustively for every RTG up to a register count.

* The real ``greedy.greedy_length`` (verified/algorithms/greedy.py, the
  code GREEDY's postcondition and every caller use) equals Lemma 3's
  closed form for all X, a2, a3 >= 0: the function itself is executed
  symbolically over Z3 integers (``symbolic_paths``: every path through
  it, each path's result proved equal to the formula, each path reachable).
* The real ``greedy_edges`` (GREEDY's body) emits exactly Lemma 3's count
  of operations, and its output implements the move, on every
  out-degree-1 move of up to n registers (enumerated: the code, not a
  model).
* GREEDY's count of steps 3-5 (the code's loop structure, transcribed as
  integer arithmetic: a MODEL) equals Lemma 3's closed form, for all
  a2, a3 >= 0; its link to the code is the enumerated row above.
* Lemma 5: a merge of two cycles (size classes i, j mod 4, signature change
  recomputed from real cycles with ``greedy.signature``) never lowers
  GREEDY's cost, for every signature that has such cycles.
* The DP (optimal_length) equals the brute-force search on every RTG with
  n registers: an exhaustive test (result "enumerated"), not a proof; the
  search is the ground truth of the tests.

Every Z3 query of this module goes through ``proofs.common.prove``: a
claim "for all a2, a3 >= 0: lhs == rhs" is ``prove(lhs == rhs, [a2 >= 0,
a3 >= 0])``.
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


class _Explorer:
    """Chooses the branches of one run of a function on symbolic integers
    (depth first: a run replays ``prefix``, takes True at each new branch
    and leaves False for a later run)."""

    def __init__(self, prefix: list[bool]) -> None:
        self.prefix, self.taken, self.conds = prefix, [], []

    def branch(self, cond) -> bool:
        k = len(self.taken)
        choice = self.prefix[k] if k < len(self.prefix) else True
        self.taken.append(choice)
        self.conds.append(cond if choice else z3.Not(cond))
        return choice


class _Sym:
    """A Z3 integer standing in for a Python int in the real code:
    arithmetic builds terms (``//`` and ``%`` by a positive constant are
    Python's floor division and modulo, which Z3's integer ``/`` and ``%``
    are for a positive divisor); a comparison asked for its truth takes
    the branch the explorer chooses and records it as a path condition."""

    def __init__(self, term, ex: _Explorer) -> None:
        self.t, self.ex = term, ex

    def _lift(self, o):
        return o.t if isinstance(o, _Sym) else z3.IntVal(o) if isinstance(o, int) else o

    def _new(self, term):
        return _Sym(term, self.ex)

    def __add__(self, o): return self._new(self.t + self._lift(o))
    __radd__ = __add__
    def __sub__(self, o): return self._new(self.t - self._lift(o))
    def __rsub__(self, o): return self._new(self._lift(o) - self.t)
    def __mul__(self, o): return self._new(self.t * self._lift(o))
    __rmul__ = __mul__
    def __neg__(self): return self._new(-self.t)

    def _divisor(self, o) -> int:
        if not (isinstance(o, int) and o > 0):
            raise TypeError(f"symbolic execution handles // and % by a positive constant, "
                            f"not {o!r}")
        return o

    def __floordiv__(self, o): return self._new(self.t / self._divisor(o))
    def __mod__(self, o): return self._new(self.t % self._divisor(o))

    def _cmp(self, cond) -> bool:
        return self.ex.branch(cond)

    def __lt__(self, o): return self._cmp(self.t < self._lift(o))
    def __le__(self, o): return self._cmp(self.t <= self._lift(o))
    def __gt__(self, o): return self._cmp(self.t > self._lift(o))
    def __ge__(self, o): return self._cmp(self.t >= self._lift(o))
    def __eq__(self, o): return self._cmp(self.t == self._lift(o))
    def __ne__(self, o): return self._cmp(self.t != self._lift(o))
    __hash__ = None  # type: ignore[assignment]

    def __bool__(self): return self._cmp(self.t != 0)


def symbolic_paths(fn, names: list[str], max_paths: int = 64) -> list[tuple[list, object]]:
    """Run the REAL ``fn`` on symbolic integers (Z3 Ints named ``names``,
    passed as one tuple, as ``greedy_length`` takes its signature): every
    path through it, as (path condition, result term).  A function that
    does something the proxy does not model raises (TypeError): an honest
    failure of the claim, not a silent pass."""
    out, todo = [], [[]]
    while todo:
        prefix = todo.pop()
        ex = _Explorer(prefix)
        args = tuple(_Sym(z3.Int(n), ex) for n in names)
        result = fn(args)
        res = result.t if isinstance(result, _Sym) else z3.IntVal(result)
        out.append((ex.conds, res))
        # every branch newly taken True leaves its False side to explore
        todo += [ex.taken[:k] + [False] for k in range(len(prefix), len(ex.taken))]
        if len(out) > max_paths:
            raise RuntimeError(f"more than {max_paths} paths")
    return out


def greedy_length_claim(fn=None) -> dict:
    """Lemma 3 for the shipped code: ``greedy.greedy_length`` executed
    symbolically; each path's result == Lemma 3 under its path condition,
    each path reachable (the vacuity check of its hypotheses)."""
    fn = fn or greedy.greedy_length
    led = Ledger()
    x, a2, a3 = z3.Ints("X a2 a3")
    paths = symbolic_paths(fn, ["X", "a2", "a3"])
    for conds, res in paths:
        prove(res == _lemma3(x, a2, a3), [x >= 0, a2 >= 0, a3 >= 0, *conds], 60_000, led)
    return row(f"GREEDY Lemma 3 (code): the real greedy.greedy_length (verified/algorithms/"
               f"greedy.py), executed symbolically over Z3 integers, equals X + "
               f"max(ceil((a2+a3)/2), ceil((a2+2*a3)/3)) for all X, a2, a3 >= 0 (every path "
               f"through it: {len(paths)}, each reachable) [unbounded]", None, led)


def greedy_enumerated_claim(n: int) -> dict:
    """The real GREEDY body (``greedy_edges`` on the move's RTG, as
    ``greedy.greedy`` runs it) on every out-degree-1 move on n registers
    (every partial injection: sources distinct): its length is Lemma 3's
    formula (the Z3 term the symbolic rows prove, evaluated) and its output
    implements the move (the oracle, permi model)."""
    from verified.core.oracle import implements

    led = Ledger()
    t = time.perf_counter()
    detail = ""
    formula: dict = {}
    x, a2, a3 = z3.Ints("X a2 a3")
    for srcs in itertools.product([None, *range(n)], repeat=n):
        used = [s for s in srcs if s is not None]
        if len(set(used)) != len(used):
            continue
        pm = ParallelMove.make([(d, s) for d, s in enumerate(srcs) if s is not None],
                               registers=n)
        led.enumerated += 1
        ops = greedy.greedy_edges(greedy.rtg(pm, "loops").edges)
        sig = greedy.signature(pm)
        if sig not in formula:
            formula[sig] = z3.simplify(z3.substitute(
                _lemma3(x, a2, a3), *zip((x, a2, a3), map(z3.IntVal, sig)))).as_long()
        verdict = implements(pm, ops, "permi", "loops")
        if len(ops) != formula[sig] or not verdict.ok:
            led.record(REFUTED)
            detail = (f"srcs={list(srcs)}: {len(ops)} operations, Lemma 3 says "
                      f"{formula[sig]}; {verdict.reason or 'implements'}")
            break
    led.seconds = time.perf_counter() - t
    return row(f"GREEDY (code): the real greedy_edges on every out-degree-1 move on n "
               f"registers ({led.enumerated} moves) emits exactly Lemma 3's count and "
               f"implements the move (inputs enumerated; refinement of the steps 3-5 model "
               f"row)", n, led, kind=ENUMERATED, detail=detail,
               family="greedy (code, enumerated)")


def greedy_steps_claim() -> dict:
    """Steps 3-5: m = min(a2, a3) perms of 5; then the 2-cycles left pair up
    (ceil(r2 / 2)); the 3-cycles left take 2 per triple plus one per
    leftover: 2 * (r3 div 3) + (r3 mod 3)."""
    a2, a3 = z3.Ints("a2 a3")
    m = z3.If(a2 <= a3, a2, a3)
    r2, r3 = a2 - m, a3 - m
    steps = m + _ceil_div(r2, 2) + 2 * (r3 / 3) + r3 % 3
    return _run("GREEDY steps 3-5 count == Lemma 3 (all a2, a3) (model: the loop structure "
                "of steps 3-5 transcribed as integer arithmetic; refinement: the enumerated "
                "GREEDY (code) row)", None,
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
        out.append(_run(f"Lemma 5: merging sizes {i},{j} mod 4 never lowers GREEDY (Lemma 3's "
                        f"formula, which the code row proves greedy_length equals; cycles "
                        f"from the real greedy.signature)",
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
    rows = [greedy_length_claim(), greedy_enumerated_claim(5 if quick else 7),
            greedy_steps_claim(), mutant_claim(), *merge_claims()]
    rows.append(exhaustive_claim(4 if quick else 5, "loops"))
    rows.append(exhaustive_claim(3 if quick else 4, "all"))
    return rows


if __name__ == "__main__":
    import sys

    for row in claims(quick="--quick" in sys.argv):
        print(row)
