"""proofs/optimality.py's reachable query, asked first with its operations
pinned to a candidate (xchg's or mincopy's output): the candidate is what
the query proves on every move it is asked on, and a candidate it does not
prove leaves the verdict to the unpinned search (the same statement)."""

from __future__ import annotations

import itertools

import pytest

from proofs import optimality as O
from proofs.common import PROVED, REFUTED, Ledger, exists
from verified.algorithms.optimum import optimum
from verified.core.semantics import ParallelMove


def _k(srcs, model: str) -> int:
    n = len(srcs)
    return optimum(ParallelMove.from_map(list(srcs), temps=[n] if model == "temp" else []),
                   model).length


@pytest.mark.parametrize("model", ["swap", "temp"])
def test_the_candidate_is_proved_on_every_map_of_three_registers(model):
    pinned = 0
    for srcs in itertools.product(range(3), repeat=3):
        k = _k(srcs, model)
        pin = O.candidate(srcs, model, k)
        assert bool(pin) == (k > 0), srcs  # only the empty sequence pins nothing
        if pin:
            hyps, ok = O._sequence(list(srcs), model, k)
            assert exists(ok, [*hyps, *pin], 60_000, Ledger())[0] == PROVED, srcs
            pinned += 1
    assert pinned == 26  # 27 maps, the identity needs no operation


@pytest.mark.parametrize("model", ["swap", "temp"])
def test_a_candidate_that_is_not_proved_leaves_it_to_the_search(model):
    # a 3-cycle's candidate pinned on another 3-cycle of the same length:
    # not a sequence for it, yet one exists, and the search finds it
    srcs, other = [1, 2, 0], [2, 0, 1]
    k = _k(srcs, model)
    assert k == _k(other, model)
    wrong = O.candidate(other, model, k)
    hyps, ok = O._sequence(srcs, model, k)
    assert exists(ok, [*hyps, *wrong], 60_000, Ledger())[0] == REFUTED
    led = Ledger()
    assert O.reachable(srcs, model, k, led, pin=wrong) == PROVED
    assert led.counts[PROVED] == 1 and led.counts[REFUTED] == 0  # the failed pin is not a verdict
    # one operation short, neither the pin nor the search gives a sequence
    led = Ledger()
    assert O.reachable(srcs, model, k - 1, led, pin=wrong) == REFUTED


def test_a_candidate_of_another_length_pins_nothing():
    assert O.candidate([1, 0], "swap", 2) == []  # xchg swaps them in 1
    assert O.candidate([1, 0], "swap", 1) != []
