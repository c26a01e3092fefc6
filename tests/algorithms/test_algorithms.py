"""Every parallel-move algorithm against the oracle: exhaustively on all
register maps (n <= 6 here, n = 7 behind the ``slow`` mark), with
Hypothesis on fan-out, self-moves, named locations and up to 64 registers,
and on the source write-ups' own examples."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified import cases
from verified.algorithms import leroy, shuf, windmill, xchg
from verified.core import oracle
from verified.tools.exhaustive import check_all, smallest_failure
from verified.core.graph import analyse
from verified.algorithms.optimum import optimum
from verified.core.oracle import implements
from verified.core.semantics import Mov, ParallelMove, PreconditionError, Swap, format_op
from verified.algorithms import ALGORITHMS, solve

#: the algorithms that must be correct (xchg-as-published is wrong on purpose)
CORE = [name for name, a in ALGORITHMS.items() if a.correct and a.model in ("swap", "temp")]


def test_core_is_every_correct_swap_and_temp_algorithm():
    assert CORE == ["shuf", "leroy", "leroy-iterative", "windmill", "mincopy", "xchg"]


def test_contracts_are_on():
    """Every test below relies on the run-time postconditions as well as
    on its own oracle calls; a test run with them off would prove less."""
    assert oracle.CONTRACTS_ON


# -- exhaustive ----------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", CORE)
def test_exhaustive(name, n):
    result = check_all(name, n, processes=2 if n >= 6 else 1)
    assert result.checked == n ** n
    assert result.failure_count == 0, result.failures[:3]


@pytest.mark.slow
@pytest.mark.parametrize("name", CORE)
def test_exhaustive_n7(name):
    result = check_all(name, 7, processes=os.cpu_count() or 2)
    print(f"{name}: {result.checked} maps on 7 registers in {result.seconds:.1f} s")
    assert result.checked == 7 ** 7 == 823_543
    assert result.failure_count == 0, result.failures[:3]


# -- the published xchg algorithm is wrong -----------------------------------


def test_xchg_as_published_smallest_counterexample():
    """The oracle finds and shrinks the counterexample: nothing fails on 1
    or 2 registers; the smallest failure has 3 registers and 2 moves."""
    for n in (1, 2):
        assert check_all("xchg-as-published", n).failure_count == 0
    f = smallest_failure("xchg-as-published", 4)
    assert f is not None
    assert f.registers == 3 and f.non_loop_moves == 2
    # the README's example: {0, 2, 0} becomes swap r2, r0; mov r1, r0, which
    # leaves r2's value in r0
    assert f.want == (0, 2, 0)
    pm = ParallelMove.from_map(f.want)
    ops = xchg.xchg_as_published(pm)
    assert [format_op(op) for op in ops] == ["swap r2, r0", "mov r1, r0"]
    verdict = implements(pm, ops, "swap")
    assert (verdict.ok, verdict.location, verdict.expected, verdict.got) == (False, 0, 0, 2)
    assert verdict.reason == f.reason == (
        "destination r0 must hold the original value of r0 but holds that of r2")
    print("xchg-as-published fails on", pm, "emitting",
          "; ".join(map(format_op, ops)), "->", verdict.reason)


def test_xchg_as_published_failure_counts():
    """How often the published algorithm is wrong, per register count: the
    algorithm and the oracle are deterministic, so the counts are exact
    (6 of 27 maps at n = 3, 112 of 256 at n = 4, 1,909 of 3,125 at n = 5),
    and at n = 3 the failing maps are these six."""
    results = {n: check_all("xchg-as-published", n, keep=10) for n in (1, 2, 3, 4, 5)}
    assert {n: (r.checked, r.failure_count) for n, r in results.items()} == {
        1: (1, 0), 2: (4, 0), 3: (27, 6), 4: (256, 112), 5: (3125, 1909)}
    assert sorted(tuple(f.want) for f in results[3].failures) == [
        (0, 2, 0), (1, 2, 1), (1, 2, 2), (2, 0, 0), (2, 0, 1), (2, 1, 1)]


# -- seed examples ----------------------------------------------------------


def test_shuffling_writeup_examples():
    # want = {1, 0, 2, 2}: SWAP 0, 1; MOVE 2 -> 3
    ops = shuf.shuf(ParallelMove.from_map([1, 0, 2, 2]))
    assert ops == [Swap(1, 0), Mov(3, 2)]
    # want = {3, 0, 1, 2}: SWAP 0, 3; SWAP 1, 3; SWAP 2, 3 (the write-up's listing)
    ops = shuf.shuf(ParallelMove.from_map([3, 0, 1, 2]))
    assert ops == [Swap(3, 0), Swap(3, 1), Swap(3, 2)]


def test_shuf_iterator_mirrors_shuf_next():
    s = shuf.Shuf(4)
    for dst, src in enumerate([3, 0, 1, 2]):
        s.add(dst, src)
    actions = list(s)
    assert [(a.kind, a.src, a.dst) for a in actions] == [
        ("swap", 3, 0), ("swap", 3, 1), ("swap", 3, 2)]
    assert s.pending() == 0 and s.next_action() is None


def test_lowering_writeup_BDC_from_AAB():
    """(B, D, C) := (A, A, B): no cycle, three moves, C := B first."""
    pm = ParallelMove.make([("B", "A"), ("D", "A"), ("C", "B")], temps=["t"])
    for name in ("leroy", "leroy-iterative", "windmill", "mincopy"):
        ops = solve(name, pm)
        assert len(ops) == 3 and implements(pm, ops, "temp").ok
        assert ops.index(Mov("C", "B")) < ops.index(Mov("B", "A"))


def test_lowering_writeup_BDCA_from_AABC():
    """(B, D, C, A) := (A, A, B, C): the write-up's trace of Leroy's
    algorithm is t := A; D := A; A := C; C := B; B := t."""
    pm = ParallelMove.make([("B", "A"), ("D", "A"), ("C", "B"), ("A", "C")], temps=["t"])
    assert leroy.leroy(pm) == [Mov("t", "A"), Mov("D", "A"), Mov("A", "C"),
                                 Mov("C", "B"), Mov("B", "t")]
    assert leroy.leroy_iterative(pm) == leroy.leroy(pm)
    # the cycle has a blade (A -> D), so the minimum needs no temporary
    ops = windmill.mincopy(pm)
    assert len(ops) == 4 and all("t" not in (op.dst, op.src) for op in ops)


def test_phi_swap_a_b():
    """a <- b, b <- a: one xchg (PHI write-up); temp model: three moves."""
    pm = ParallelMove.make([("a", "b"), ("b", "a")], temps=["t"])
    assert xchg.xchg(pm) == [Swap("a", "b")]
    assert xchg.xchg_as_published(pm) == [Swap("b", "a")]  # worklist pops b <- a first
    assert len(leroy.leroy(pm)) == 3


def test_cycle_without_temporary_is_a_precondition_error():
    pm = ParallelMove.make([(0, 1), (1, 0)])
    with pytest.raises(PreconditionError, match="needs a temporary"):
        leroy.leroy(pm)


# -- Hypothesis: fan-out, self-moves, names, up to 64 registers ---------------


@st.composite
def parallel_moves(draw, max_registers: int = 64):
    """A register map on n <= 64 registers, some registers left out (not a
    destination) and some mapped to themselves; fan-out happens naturally."""
    n = draw(st.integers(1, max_registers))
    srcs = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    moves = [(d, s) for d, (s, k) in enumerate(zip(srcs, keep)) if k]
    names = draw(st.booleans())
    if names:  # the same move over named locations
        moves = [(f"x{d}", f"x{s}") for d, s in moves]
    return ParallelMove.make(moves, temps=["tmp"])


@settings(max_examples=300, deadline=None)
@given(parallel_moves())
def test_hypothesis_every_algorithm(pm):
    g = analyse(pm)
    for name in CORE:
        model = ALGORITHMS[name].model
        ops = solve(name, pm)
        assert implements(pm, ops, model).ok, (name, pm)
        best = optimum(pm, model).length
        if name in ("shuf", "xchg"):
            assert len(ops) == best == g.non_loop_moves - g.cycles
        elif name == "mincopy":
            assert len(ops) == best == g.non_loop_moves + g.bare_cycles
        else:
            assert len(ops) == g.non_loop_moves + g.cycles


@settings(max_examples=100, deadline=None)
@given(parallel_moves(max_registers=40))
def test_leroy_iterative_equals_recursive(pm):
    assert leroy.leroy_iterative(pm) == leroy.leroy(pm)


def test_long_chain_needs_the_iterative_twin():
    """A chain r1 <- r0, r2 <- r1, ..., of 10^5 moves: the recursive
    algorithm refuses clearly; the iterative ones finish."""
    n = 100_000
    pm = ParallelMove.make([(i + 1, i) for i in range(n)] + [(0, n)], temps=["t"])
    with pytest.raises(PreconditionError, match="use leroy-iterative"):
        leroy.leroy(pm)
    for fn in (leroy.leroy_iterative, windmill.windmill, windmill.mincopy):
        ops = fn(pm)
        assert len(ops) == n + 2  # one cycle of n + 1 moves, bare: +1
    assert len(xchg.xchg(pm)) == n


def test_mincopy_without_temporary_answers_exactly_when_a_sequence_exists():
    """No temporary declared: mincopy borrows a leaf destination, so it
    answers every register map (n <= 5) that has a temp-model sequence
    (algorithms.optimum), with the optimum's length, and refuses the rest."""
    answered = refused = 0
    for n in range(1, 6):
        for want in cases.register_maps(n):
            pm = ParallelMove.from_map(want)
            best = optimum(pm, "temp").length
            if best is None:
                with pytest.raises(PreconditionError, match="needs a temporary"):
                    windmill.mincopy(pm)
                refused += 1
                continue
            ops = windmill.mincopy(pm)
            assert implements(pm, ops, "temp").ok and len(ops) == best
            answered += 1
    assert (answered, refused) == (3265, 148)


def test_mincopy_leaf_must_be_used_before_it_is_written():
    """Mutant: the bare cycles are broken *after* the borrowed leaf got its
    final value; the oracle catches it on the smallest such move."""
    import mutants

    broken = mutants.run(mutants.Mutant(
        "mincopy_leaf_written_first", "verified.algorithms.windmill",
        "windmills.sort(key=lambda w: not w.is_bare_cycle)",
        "windmills.sort(key=lambda w: w.is_bare_cycle)",
        "bare cycles broken after the borrowed leaf got its value",
        entry="mincopy", scope="mincopy"))
    pm = ParallelMove.make([(1, 0), (0, 1), (3, 2)])  # bare cycle + leaf r3
    verdict = implements(pm, broken(pm), "temp")
    assert not verdict.ok and verdict.location == 3
