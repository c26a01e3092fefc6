"""Golden tests of the algorithms' own checks and of the published xchg:
``shuf.check_invariant`` clause by clause (each rejects a state that breaks
it, with its own message; a weakened clause survived ``make mutation``, as
the random runs in tests/proofs only show that correct states pass), the
shape postcondition ``originals_or_temps``, and xchg-as-published's exact
output where no register map reaches."""

from __future__ import annotations

import pytest

from verified.algorithms.shuf import check_invariant


@pytest.mark.parametrize("forward, cur, want, message", [
    # (a) slot 1 forwards to itself
    ([0, 0b10], [0, 1], [0, 0], r"\(a\): slot 1 forwards to itself"),
    # (b) bit 1 of slot 0, but slot 1 already holds what it wants
    ([0b10, 0], [0, 1], [0, 1], r"\(b\): bit 1 of slot 0"),
    # (b) slot 0 wants r1's value (cur 0 < want 1) and nobody forwards it
    ([0, 0], [0, 0], [1, 0], r"\(b\): unsatisfied slot 0 has sources \[\]"),
    # (b) slot 1 wants r0's value (cur 1 > want 0) and nobody forwards it
    ([0, 0], [0, 1], [0, 0], r"\(b\): unsatisfied slot 1 has sources \[\]"),
    # (e) slots 0 and 1 both hold r2's value and both forward it (to 2 and 3)
    ([0b100, 0b1000, 0, 0], [2, 2, 0, 1], [2, 2, 2, 2],
     r"\(e\): two busy slots hold the same value"),
])
def test_each_clause_rejects_its_own_breach(forward, cur, want, message):
    with pytest.raises(AssertionError, match=message):
        check_invariant(forward, cur, want)


def test_states_that_keep_the_invariant_pass():
    check_invariant([0, 0], [0, 1], [0, 1])  # nothing to do
    check_invariant([0b10, 0b01], [0, 1], [1, 0])  # a swap pending: each forwards to the other


# -- the other shape postcondition and the published xchg, exactly -------------

from verified.algorithms import xchg  # noqa: E402
from verified.algorithms.temporary import originals_or_temps  # noqa: E402
from verified.core.semantics import Mov, ParallelMove, Swap, format_op  # noqa: E402


def test_originals_or_temps_names_the_first_bad_operation():
    pm = ParallelMove.make([(1, 0), (0, 1)], temps=["t"])
    assert originals_or_temps(pm, [Mov("t", 0), Mov(0, 1), Mov(1, "t")]) is None
    assert originals_or_temps(pm, [Swap(0, 1)]) == "emitted Swap(a=0, b=1), which is not a mov"
    assert originals_or_temps(pm, [Mov("t", 0), Mov(0, 0)]) == (
        "emitted Mov(dst=0, src=0), which is neither an original move nor a move to or "
        "from a temporary")


def test_xchg_as_published_exact_outputs():
    """Including a source that no move writes (a plain mov, emitted first),
    which no register map has."""
    cases = {
        ((1, 0), (2, 1)): ["mov r1, r0", "mov r2, r1"],  # wrong: r2 gets r0
        ((0, 0), (1, 2), (2, 0)): ["swap r2, r0", "mov r1, r0"],
        (("a", "x"), ("b", "a")): ["mov a, x", "mov b, a"],
    }
    for moves, expected in cases.items():
        assert [format_op(op) for op in xchg.xchg_as_published(ParallelMove.make(moves))] == expected
