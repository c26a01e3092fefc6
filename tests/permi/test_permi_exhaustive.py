"""The DP and GREEDY against the brute-force search (verified.permi.
search_sequence, iterative deepening through semantics.step), and the search
against a plain breadth-first search with no pruning at all.

Every RTG on n labelled registers: each register is a destination of one of
the n registers (itself: a loop) or of none, so (n + 1) ** n RTGs.

Run ``pytest -s tests/test_permi_exhaustive.py`` to see the counts; the slow
ones (``-m slow``) extend the exhaustive runs."""

from __future__ import annotations

import itertools
import random
from collections import deque

import pytest

from verified import cases
from verified.algorithms import copyset, greedy, search
from verified.core.oracle import implements
from verified.core.semantics import ParallelMove, execute, step


def all_rtgs(n: int):
    for case in cases.exhaustive_cases(n, smallest=n):
        yield list(case.moves)


def out_degree_1(pm: ParallelMove, preserve: str) -> bool:
    srcs = [u for u, _ in greedy.rtg(pm, preserve).edges]
    return len(srcs) == len(set(srcs))


def compare(pm: ParallelMove, preserve: str, stats: dict) -> None:
    """The search's optimum == the DP == permi_optimal's length; on
    out-degree-1 RTGs also == GREEDY == Lemma 3's formula."""
    best = search.search_optimum(pm, preserve, max_len=10)
    assert best is not None
    dp = copyset.optimal_length(pm, preserve)
    ops = copyset.permi_optimal(pm, preserve)
    assert implements(pm, ops, "permi", preserve)
    assert (best, dp, len(ops)) == (best, best, best), (pm, preserve)
    stats["dp"] = stats.get("dp", 0) + 1
    if out_degree_1(pm, preserve):
        g = greedy.greedy(pm, preserve)
        assert len(g) == greedy.greedy_length(greedy.signature(pm, preserve)) == best, pm
        stats["greedy"] = stats.get("greedy", 0) + 1


@pytest.mark.parametrize("preserve, n_max", [("loops", 5), ("all", 4)])
def test_exhaustive_dp_equals_search(preserve, n_max):
    stats: dict = {}
    for n in range(1, n_max + 1):
        for moves in all_rtgs(n):
            compare(ParallelMove.make(moves, registers=n), preserve, stats)
    assert stats["dp"] == sum((n + 1) ** n for n in range(1, n_max + 1))
    print(f"\n{preserve}: DP == search on all {stats['dp']} RTGs with 1..{n_max} "
          f"registers; GREEDY == formula == search on the {stats['greedy']} "
          f"out-degree-1 ones")


@pytest.mark.slow
def test_exhaustive_all_5():
    stats: dict = {}
    for moves in all_rtgs(5):
        compare(ParallelMove.make(moves, registers=5), "all", stats)
    assert stats["dp"] == 6 ** 5
    print(f"\nall: DP == search on all {stats['dp']} RTGs with 5 registers; "
          f"GREEDY on {stats['greedy']}")


@pytest.mark.huge  # ~20 min wall on 2 cores: `make test-huge`, outside `make verify`
def test_exhaustive_6():
    stats: dict = {}
    for moves in all_rtgs(6):
        compare(ParallelMove.make(moves, registers=6), "loops", stats)
    assert stats["dp"] == 7 ** 6
    print(f"\nloops: DP == search on all {stats['dp']} RTGs with 6 registers; "
          f"GREEDY on {stats['greedy']}")


@pytest.mark.parametrize("n, count", [(6, 150), (7, 40)])
def test_random_6_7(n, count):
    rng = random.Random(1000 + n)
    stats: dict = {}
    for _ in range(count):
        preserve = rng.choice(["loops", "loops", "all"])
        compare(ParallelMove.make(cases.random_moves(rng, n, 0.75), registers=n), preserve, stats)
    assert stats["dp"] == count


@pytest.mark.slow
@pytest.mark.parametrize("n, count", [(6, 2000), (7, 600)])
def test_random_6_7_slow(n, count):
    rng = random.Random(2000 + n)
    stats: dict = {}
    for _ in range(count):
        preserve = rng.choice(["loops", "loops", "all"])
        compare(ParallelMove.make(cases.random_moves(rng, n, 0.75), registers=n), preserve, stats)
    assert stats["dp"] == count


def test_extra_dead_registers_never_help():
    """Declared registers the moves do not name (and temporaries) are dead
    under "loops"; the search may use them, the DP ignores them: equal."""
    cases = 0
    for n, extra in [(1, 3), (2, 3), (3, 2), (4, 1)]:
        for moves in all_rtgs(n):
            pm = ParallelMove.make(moves, registers=n)
            wide = ParallelMove.make(moves, registers=n + extra)
            best = copyset.optimal_length(pm)
            assert copyset.optimal_length(wide) == best
            assert search.search_optimum(wide, "loops") == best, moves
            cases += 1
    # temporaries under "all" are dead registers too
    for moves in all_rtgs(3):
        pm = ParallelMove.make(moves, registers=3)
        tmp = ParallelMove.make(moves, registers=3, temps=["t", "u"])
        assert search.search_optimum(tmp, "all") == copyset.optimal_length(pm, "all")
        cases += 1
    assert cases == 2 + 9 + 64 + 625 + 64


# ---------------------------------------------------------------------------
# The search itself, against breadth-first search with no pruning
# ---------------------------------------------------------------------------


def plain_bfs(pm: ParallelMove, preserve: str) -> int:
    """Breadth-first over full machine states (every value distinct), every
    operation of the model, goal decided by oracle.implements."""
    universe = list(pm.locations()) + list(pm.temps)
    ops = search._all_ops(universe)

    def key(state):
        return tuple(state.get(r, r) for r in universe)

    def done(path):
        return implements(pm, path, "permi", preserve).ok

    if done([]):
        return 0
    frontier = deque([((), {})])
    seen = {key({})}
    while frontier:
        path, state = frontier.popleft()
        for op in ops:
            child = dict(state)
            step(child, op)
            k = key(child)
            if k in seen:
                continue
            seen.add(k)
            new = path + (op,)
            assert execute(new) == child
            if done(list(new)):
                return len(new)
            frontier.append((new, child))
    raise AssertionError(f"no sequence implements {pm}")


def test_search_equals_plain_bfs():
    """Every RTG on up to 4 registers (with dead extra registers for n <= 3),
    both contracts: the pruned search's optimum is the true optimum."""
    checked = 0
    for n, regs in [(1, 3), (2, 3), (3, 4), (4, 4)]:
        for moves in all_rtgs(n):
            pm = ParallelMove.make(moves, registers=regs)
            for preserve in ("loops", "all"):
                assert search.search_optimum(pm, preserve) == plain_bfs(pm, preserve), moves
                checked += 1
    assert checked == 2 * (2 + 9 + 64 + 625)


@pytest.mark.slow
def test_search_equals_plain_bfs_5():
    rng = random.Random(5)
    for _ in range(150):
        pm = ParallelMove.make(cases.random_moves(rng, 5, 0.75), registers=5)
        preserve = rng.choice(["loops", "all"])
        assert search.search_optimum(pm, preserve) == plain_bfs(pm, preserve)


# ---------------------------------------------------------------------------
# The DP as an optimiser: against every copy set, on larger RTGs
# ---------------------------------------------------------------------------


def best_over_all_copy_sets(pm: ParallelMove, preserve: str) -> int:
    g = greedy.rtg(pm, preserve)
    out = g.out_edges()
    sources = list(out)
    best = None
    for choice in itertools.product(*(out[u] for u in sources)):
        kept = list(zip(sources, choice))
        cost = greedy.greedy_length(greedy.signature(kept))
        best = cost if best is None else min(best, cost)
    return g.copies() + (best or 0)


def test_dp_equals_min_over_copy_sets():
    """For RTGs of 8..20 registers (too big for the search) the DP is the
    minimum over every copy set of |C| + Lemma 3's formula (Lemma 2 and
    Theorem 2 reduce the optimum to that minimum)."""
    rng = random.Random(7)
    done = 0
    while done < 300:
        n = rng.randint(8, 20)
        moves = cases.random_moves(rng, n, rng.choice([0.5, 0.8, 1.0]))
        pm = ParallelMove.make(moves, registers=n)
        preserve = rng.choice(["loops", "all"])
        g = greedy.rtg(pm, preserve)
        size = 1
        for vs in g.out_edges().values():
            size *= len(vs)
        if size > 3000:
            continue
        assert copyset.optimal_length(pm, preserve) == best_over_all_copy_sets(pm, preserve), moves
        done += 1
