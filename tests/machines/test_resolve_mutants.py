"""Every mutant of the machine resolver (``mutants/resolve.py``) is caught
on its witness by a verdict, never by a crash: the machine oracle rejects
its sequence (``ok`` false, with the reason pinned below), or, for the one
mutant that loses a value and knows it, it declines a request that has a
sequence (the real resolver answers it, the oracle accepts that answer,
and the search of ``machine_optimum`` finds one): what ``verified
conform`` reports as a declined solvable case."""

from __future__ import annotations

import json

import pytest

import mutants
from mutants.resolve import FALL_BACK_MUTANTS, MUTANTS
from verified.algorithms import machine_optimum as O, resolve as R
from verified.core import machine as M
from verified.core.semantics import PreconditionError

#: the verdict that catches each mutant on its witness
CAUGHT = {
    "scratch_unchecked": "declines a solvable case",
    "finished_unit_broken": "x0 (unit x0) is not a destination, so it must keep its own "
                            "value, but it was clobbered with that of m1",
    "pair_moved_at_once": "destination [a1, a2] (unit a2) must hold the original value of "
                          "a1 but holds that of a0",
    "immediate_first": "destination rbx (unit rbx) must hold the original value of rax but "
                       "holds the immediate piece #1",
    "swap_without_legality": "operation #0: swap m0, m1 is a memory-to-memory swap, which "
                             "x86-64 lacks (its swaps: reg-reg, reg-mem; no machine swaps "
                             "two slots)",
    "imm_piece_offset_lost": "destination d0 (unit s1) must hold the immediate piece #0 "
                             "but holds the immediate piece #7",
}


def test_catalogue_is_pinned():
    assert [m.name for m in MUTANTS] == list(CAUGHT)
    assert len({(m.old, m.new) for m in MUTANTS}) == len(MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_resolver_mutant_is_caught_on_its_witness(mutant):
    req = M.parse_machine_request(json.loads(mutant.witness), need_sequence=False)
    real = R.greedy(req.move, preserve=req.preserve)
    assert M.implements(req.move, real, req.preserve).ok   # the real resolver is right
    run = mutants.run(mutant)
    try:
        ops = run(req.move, preserve=req.preserve)
    except R.Stuck:
        assert CAUGHT[mutant.name] == "declines a solvable case"
        best, why = O.search(req.move, req.preserve)
        assert best is not None, why
        return
    verdict = M.implements(req.move, ops, req.preserve)
    assert not verdict.ok
    assert verdict.reason == CAUGHT[mutant.name]


#: how each fall-back mutant is caught on its witness
FALL_BACK_CAUGHT = {
    "fall_back_deleted": "declines a solvable case",
    "borrowed_not_given_back": "declines a solvable case",
    "refusal_unproved": "says no sequence exists on a solvable case",
}


def test_fall_back_catalogue_is_pinned():
    assert [m.name for m in FALL_BACK_MUTANTS] == list(FALL_BACK_CAUGHT)


@pytest.mark.parametrize("mutant", FALL_BACK_MUTANTS, ids=lambda m: m.name)
def test_every_fall_back_mutant_is_caught_on_its_witness(mutant):
    """The greedy steps are stuck on the witness and the real fall-back
    answers it (the oracle accepts the answer); the mutant declines it, or
    calls it impossible: a verdict, not a crash."""
    req = M.parse_machine_request(json.loads(mutant.witness), need_sequence=False)
    with pytest.raises(R.Stuck):
        R.greedy(req.move, preserve=req.preserve)
    real = R.resolve(req.move, preserve=req.preserve)
    assert M.implements(req.move, real, req.preserve).ok
    run = mutants.run(mutant)
    with pytest.raises(PreconditionError) as e:
        run(req.move, preserve=req.preserve)
    said = ("says no sequence exists on a solvable case" if isinstance(e.value, R.Unsolvable)
            else "declines a solvable case")
    assert said == FALL_BACK_CAUGHT[mutant.name], str(e.value)
