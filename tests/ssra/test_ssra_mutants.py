"""The checker catches every mutant of the allocator
(``mutants/ssra.py``): each mutant's allocation of its
witness program is REJECTED, while the real allocator's allocation of the
same program is accepted.  Performance mutants (correct but unfaithful)
are accepted by the checker and caught by the write-up's counts."""

from __future__ import annotations

import os

import pytest

import mutants
from mutants import ssra as M
from verified import ssra

BENCH_TAPE = os.path.join(os.path.dirname(__file__), "..", "data", "ssra-bench-6362.tape")


def test_at_least_five_mutants_with_witnesses():
    assert len(M.MUTANTS) >= 5
    assert all(m.witness for m in M.MUTANTS)
    assert len({m.name for m in M.MUTANTS + M.PERFORMANCE_MUTANTS}) == len(
        M.MUTANTS + M.PERFORMANCE_MUTANTS)


@pytest.mark.parametrize("mutant", M.MUTANTS, ids=[m.name for m in M.MUTANTS])
def test_checker_rejects_mutant(mutant):
    text, registers = mutant.witness
    tape = ssra.parse_tape(text)
    good = ssra.allocate(tape, registers)
    assert ssra.check(tape, good, registers).ok
    bad = M.allocate(mutant, tape, registers)
    assert bad.lines() != good.lines()
    verdict = ssra.check(tape, bad.text(), registers)
    assert not verdict.ok, (
        f"mutant {mutant.name} ({mutant.why}) was accepted on\n{text}")
    assert not ssra.check(tape, bad, registers, strict=True).ok
    print(f"{mutant.name}: rejected at line {verdict.line}: {verdict.reason}")


def test_unmutated_build_is_the_allocator():
    """The mutant machinery itself: with an edit that changes nothing, the
    rebuilt allocator gives the real allocator's output (so a rejection
    above is due to the edit, not to the rebuilding)."""
    identity = M._m("identity", "RegisterAllocator.get_register",
                    old="mem = self.get_memory()", new="mem = self.get_memory()",
                    why="no change")
    for mutant in M.MUTANTS:
        tape = ssra.parse_tape(mutant.witness[0])
        assert (M.allocate(identity, tape, mutant.witness[1]).lines()
                == ssra.allocate(tape, mutant.witness[1]).lines())


def test_a_stale_mutant_fails_loudly():
    stale = M._m("stale", "RegisterAllocator.get_register",
                 old="this text is not in the method", new="pass", why="-")
    with pytest.raises(AssertionError, match="occurs 0 times"):
        mutants.load(stale)


@pytest.mark.parametrize("mutant", M.PERFORMANCE_MUTANTS,
                         ids=[m.name for m in M.PERFORMANCE_MUTANTS])
def test_performance_mutants_are_correct_but_unfaithful(mutant):
    tape = ssra.load_tape(BENCH_TAPE)
    table = {24: (582, 582, 102), 10: (1151, 1151, 116), 8: (1424, 1424, 118)}
    differs = []
    for registers, expected in table.items():
        allocation = M.allocate(mutant, tape, registers)
        assert ssra.check(tape, allocation, registers, strict=True).ok
        c = allocation.counts()
        differs.append((c["loads"], c["stores"], c["highest_offset"]) != expected)
    assert any(differs), f"{mutant.name} reproduces the write-up's table"
