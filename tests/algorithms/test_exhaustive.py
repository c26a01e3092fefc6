"""The exhaustive runner's own parts (``verified.tools.exhaustive``): the
packed map generator it walks, and its second judgement (``direct_check``,
the operations against the map itself), which must decide exactly as the
oracle does on total maps, so that a failure is found and worded as the
oracle would."""

from __future__ import annotations

import pytest

import mutants
from mutants.core import MUTANTS
from verified import cases
from verified.algorithms import ALGORITHMS
from verified.core.oracle import implements
from verified.core.semantics import MODELS, Mov, ParallelMove, Swap
from verified.tools import exhaustive
from verified.tools.exhaustive import TEMP, check_all, direct_check


def test_register_map_moves_are_the_register_maps_as_moves():
    """Same maps, same order, each as tuple(enumerate(want)); also per
    first register (check_all's chunks) and on no registers at all."""
    for n in range(6):
        for first in (None, *range(n)):
            assert list(cases.register_map_moves(n, first)) == [
                tuple(enumerate(want)) for want in cases.register_maps(n, first)], (n, first)


def _sequences(pm: ParallelMove, model: str) -> list[list]:
    """Sequences to judge on ``pm``: each correct algorithm's of the model,
    the wrong published xchg's, and each of them cut short, extended with
    a write outside the file, reading outside it, and (swap model) with a
    move to the temporary."""
    n = pm.registers
    assert n is not None
    out = [ALGORITHMS[name].raw(pm) for name, a in ALGORITHMS.items()
           if a.model == model]
    for ops in list(out):
        out += [ops[:-1], ops + [Mov(n, 0)], ops + [Mov(0, n)], [Mov(0, n + 1)] + ops,
                ops + [Swap(0, n - 1)], ops + [Mov(TEMP, 0)], ops[1:]]
    return out


#: (sequences judged, rejected) per model: both answers seen many times
EXPECTED = {"swap": (7232, 6089), "temp": (9728, 7031)}


@pytest.mark.parametrize("model", ["swap", "temp"])
def test_direct_check_decides_as_the_oracle(model):
    """On every map of n <= 4 and the sequences above (correct and broken),
    and on every core mutant's output on n <= 3: the direct check rejects
    exactly what ``implements`` rejects."""
    temps = (TEMP,) if model == "temp" else ()
    kinds = MODELS[model]
    judged = rejected = 0
    for n in range(1, 5):
        names = frozenset((*range(n), *temps))
        for moves in cases.register_map_moves(n):
            pm = ParallelMove.make(moves, n, temps)
            runs = _sequences(pm, model)
            if n <= 3:
                runs += [mutants.run(m)(pm) for m in MUTANTS if m.model == model]
            for ops in runs:
                ok = implements(pm, ops, model).ok
                assert (direct_check(moves, ops, kinds, names) is None) == ok, (moves, ops)
                judged += 1
                rejected += not ok
    assert (judged, rejected) == EXPECTED[model]


def test_a_disagreement_between_the_two_judgements_is_a_failure(monkeypatch):
    """When the direct check rejects what the oracle accepts, check_all
    reports the map with both verdicts, in these words."""
    monkeypatch.setattr(exhaustive, "direct_check", lambda moves, ops, kinds, names:
                        "planted" if moves == ((0, 1), (1, 0)) else None)
    r = check_all("shuf", 2)
    assert (r.checked, r.failure_count) == (4, 1)
    assert (r.failures[0].want, r.failures[0].reason) == (
        (1, 0), "the oracle accepts this sequence, the direct check does not: planted")


def test_a_failure_only_the_direct_check_sees_is_worded_by_the_oracle():
    """xchg-as-published has no contract (it is wrong on purpose): the
    direct check alone finds its failures, worded as ``implements`` words
    them."""
    r = check_all("xchg-as-published", 3, keep=1)
    assert (r.failure_count, r.failures[0].want, r.failures[0].reason) == (
        6, (0, 2, 0), "destination r0 must hold the original value of r0 but holds that of r2")
