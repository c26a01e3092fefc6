"""verified.permi: the paper's examples (Figures 1 and 2, Table 1), Lemma 3,
the contracts, and the CLI.  Exhaustive and random comparisons with the
brute-force search live in test_permi_exhaustive.py.

Paper edges (u, v) ("u's content must end in v") are written as edges here
and turned into moves [v, u] by ``pm_of``."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from verified import cases
from verified.algorithms import copyset, greedy, search
from verified.algorithms.optimum import optimum
from verified.core.oracle import implements
from verified.core.semantics import Mov, ParallelMove, Perm, PreconditionError, execute


def pm_of(edges, **kw) -> ParallelMove:
    return ParallelMove.make([(v, u) for u, v in edges], **kw)


FIG1_LEFT = [(1, 2), (1, 3), (4, 5), (5, 6), (6, 4)]
FIG1_RIGHT = FIG1_LEFT + [(1, 1)]
# Figure 2 (the drawing is not in the text; reconstructed from its caption:
# pi_1 = (2 3 4 5 6) and c_1 = 3 -> 1 implement it, so G is the 5-cycle
# 2 -> 3 -> 4 -> 5 -> 6 -> 2 plus the edge (2, 1); the caption's "(1, 2)"
# is that edge between 1 and 2: (1, 2) itself would give 2 in-degree 2).
FIG2 = [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2), (2, 1)]


def kinds(ops):
    return (sum(isinstance(o, Perm) for o in ops), sum(isinstance(o, Mov) for o in ops))


# ---------------------------------------------------------------------------
# Figures 1 and 2
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("edges, best", [(FIG1_LEFT, 2), (FIG1_RIGHT, 3)])
def test_figure_1(edges, best):
    pm = pm_of(edges)
    ops = copyset.permi_optimal(pm)
    assert implements(pm, ops, "permi", "loops")
    assert len(ops) == copyset.optimal_length(pm) == best
    assert search.search_optimum(pm, "loops") == best
    # the naive code (two copies and a perm for the 3-cycle) is not optimal
    # on the left; on the right the loop forbids the trick
    naive = [Perm(((5, 4), (6, 5), (4, 6))), Mov(2, 1), Mov(3, 1)]
    assert implements(pm, naive, "permi", "loops")
    assert len(naive) == 3


def test_figure_1_left_trick_is_the_papers():
    """The paper's two-instruction code: a permi23 swapping 1 and 2 and
    rotating (4 5 6), then copying register 2 to 3."""
    pm = pm_of(FIG1_LEFT)
    code = [Perm(((2, 1), (1, 2), (5, 4), (6, 5), (4, 6))), Mov(3, 2)]
    assert implements(pm, code, "permi", "loops")
    assert not implements(pm_of(FIG1_RIGHT), code, "permi", "loops")


def test_figure_2():
    pm = pm_of(FIG2)
    ops = copyset.permi_optimal(pm)
    assert kinds(ops) == (1, 1)
    assert search.search_optimum(pm, "loops") == 2
    # the paper's code: pi_1 = (2 3 4 5 6), then copy 3 -> 1
    code = [Perm(((3, 2), (4, 3), (5, 4), (6, 5), (2, 6))), Mov(1, 3)]
    assert implements(pm, code, "permi", "loops")
    # vertex 2 has two out-edges, so there are two copy sets:
    good = [e for e in FIG2 if e != (2, 1)]  # copy (2, 1)
    bad = [e for e in FIG2 if e != (2, 3)]   # copy (2, 3)
    assert greedy.signature(good) == (1, 0, 0)
    assert greedy.greedy_length(greedy.signature(good)) == 1
    assert greedy.signature(bad) == (1, 1, 0)  # a path of 6 vertices
    assert greedy.greedy_length(greedy.signature(bad)) == 2
    assert len(greedy.greedy_edges(bad)) == 2
    kept, copies = copyset.copy_set(pm)
    assert copies == [(2, 1)]


# A cycle that must be broken twice.  On every RTG with <= 6 registers,
# keeping every cycle edge is optimal (the "cycle_never_broken" mutant agrees
# with the DP there); the smallest difference we found has 10 registers: a
# 2-cycle (0 1) with a 4-vertex path hanging off each of its vertices.
BROKEN_TWICE = [(0, 1), (1, 0), (0, 2), (2, 3), (3, 4), (4, 5),
                (1, 6), (6, 7), (7, 8), (8, 9)]


def test_cycle_must_be_broken_twice():
    pm = pm_of(BROKEN_TWICE)
    ops = copyset.permi_optimal(pm)
    assert implements(pm, ops, "permi", "loops")
    assert len(ops) == copyset.optimal_length(pm) == 4
    # the search proves no sequence of 3 exists (its bound is admissible)
    assert search.search_optimum(pm, "loops", max_len=3) is None
    # keeping the 2-cycle: two copies + GREEDY(2-cycle, two 4-paths) = 5
    keep = [(0, 1), (1, 0), (2, 3), (3, 4), (4, 5), (6, 7), (7, 8), (8, 9)]
    assert greedy.greedy_length(greedy.signature(keep)) == 3
    # breaking it at both vertices: two 5-paths
    both = [e for e in BROKEN_TWICE if e not in [(0, 1), (1, 0)]]
    assert greedy.greedy_length(greedy.signature(both)) == 2
    kept, copies = copyset.copy_set(pm)
    assert sorted(copies) == [(0, 1), (1, 0)]


@pytest.mark.slow
def test_cycle_must_be_broken_twice_search():
    assert search.search_optimum(pm_of(BROKEN_TWICE), "loops", max_len=4) == 4


# ---------------------------------------------------------------------------
# Table 1: signature changes of merges, recomputed
# ---------------------------------------------------------------------------

# Transcribed from the paper (Table 1a; rows/columns = size mod 4, i <= j).
TABLE_1A = {
    (0, 0): (0, 0, 0), (0, 1): (0, 0, 0), (0, 2): (0, 0, 0), (0, 3): (0, 0, 0),
    (1, 1): (0, 1, 0), (1, 2): (0, -1, 1), (1, 3): (1, 0, -1),
    (2, 2): (1, -2, 0), (2, 3): (1, -1, -1),
    (3, 3): (1, 1, -2),
}
TABLE_1B_PSI1 = {
    (0, 0): 0, (0, 1): 0, (0, 2): 0, (0, 3): 0, (1, 1): 1, (1, 2): 0,
    (1, 3): 1, (2, 2): 0, (2, 3): 0, (3, 3): 1,
}
TABLE_1B_PSI2 = {
    (0, 0): 0, (0, 1): 0, (0, 2): 0, (0, 3): 0, (1, 1): 1, (1, 2): 1,
    (1, 3): 1, (2, 2): 1, (2, 3): 0, (3, 3): 0,
}


def cycle_edges(vertices):
    k = len(vertices)
    return [(vertices[i], vertices[(i + 1) % k]) for i in range(k)]


def act(pi: dict, edges):
    """The group action pi G = {(pi(u), v) | (u, v) in E}."""
    return [(pi.get(u, u), v) for u, v in edges]


@pytest.mark.parametrize("i, j", sorted(TABLE_1A))
def test_table_1_merges(i, j):
    seen = set()
    for s1 in (i or 4, i + 4, i + 8):
        for s2 in (j or 4, j + 4):
            a = list(range(s1))
            b = list(range(100, 100 + s2))
            g = cycle_edges(a) + cycle_edges(b)
            for x, y in [(a[0], b[0]), (a[-1], b[s2 // 2])]:
                tau = {x: y, y: x}  # a transposition across the two cycles
                merged = act(tau, g)
                comps = greedy._paths_and_cycles(merged)
                assert [len(c) for c, _ in comps] == [s1 + s2]  # one cycle
                before, after = greedy.signature(g), greedy.signature(merged)
                delta = tuple(q - p for p, q in zip(before, after))
                seen.add(delta)
                dx, d2, d3 = delta
                assert 2 * dx + d2 + d3 == TABLE_1B_PSI1[(i, j)]
                assert 3 * dx + d2 + 2 * d3 == TABLE_1B_PSI2[(i, j)]
                # Lemma 5: a merge never lowers GREEDY's cost
                assert greedy.greedy_length(after) >= greedy.greedy_length(before)
    assert seen == {TABLE_1A[(i, j)]}


# ---------------------------------------------------------------------------
# Lemma 3 and GREEDY
# ---------------------------------------------------------------------------


def test_lemma_3_random():
    rng = random.Random(3)
    for _ in range(400):
        edges, sig, n = cases.out_degree_1_rtg(rng)
        pm = pm_of(edges, registers=n)
        assert greedy.signature(pm) == sig
        ops = greedy.greedy(pm)
        assert implements(pm, ops, "permi", "loops")
        x, a2, a3 = sig
        assert len(ops) == x + max(-(-(a2 + a3) // 2), -(-(a2 + 2 * a3) // 3))
        assert all(isinstance(o, Perm) for o in ops)
        # GREEDY never needs the dead registers the moves do not name
        named = {u for e in edges for u in e}
        assert {d for o in ops for d, _ in o.pairs} <= named


@pytest.mark.parametrize("a2, a3, ops", [
    (0, 0, 0), (1, 0, 1), (0, 1, 1), (1, 1, 1), (2, 0, 1), (0, 2, 2),
    (0, 3, 2), (0, 4, 3), (3, 0, 2), (2, 1, 2), (1, 3, 3),
])
def test_greedy_length_small_signatures(a2, a3, ops):
    """The formula by hand: 2-cycles pair up, a 2- and a 3-cycle share one
    perm, three 3-cycles take two perms."""
    assert greedy.greedy_length((0, a2, a3)) == ops
    edges, base = [], 0
    for size in [2] * a2 + [3] * a3:
        edges += cycle_edges(list(range(base, base + size)))
        base += size
    assert len(greedy.greedy_edges(edges)) == ops


def test_greedy_on_long_cycles():
    for k in range(1, 30):
        pm = pm_of(cycle_edges(list(range(k))))
        ops = greedy.greedy(pm)
        assert implements(pm, ops, "permi", "loops")
        assert len(ops) == greedy.greedy_length((k // 4, k % 4 == 2, k % 4 == 3))


def test_greedy_precondition():
    with pytest.raises(PreconditionError, match="out-degree-1"):
        greedy.greedy(pm_of(FIG1_LEFT))
    # under "all" a source that is not a destination keeps its value: a loop
    # plus its edge, so out-degree 2
    with pytest.raises(PreconditionError, match="r0"):
        greedy.greedy(ParallelMove.make([(1, 0)]), preserve="all")
    assert greedy.greedy(ParallelMove.make([(1, 0)]), preserve="loops") == [
        Perm(((1, 0), (0, 1)))
    ]


def test_signature_precondition_and_forms():
    with pytest.raises(PreconditionError):
        greedy.signature(FIG1_LEFT)
    edges = cycle_edges([0, 1, 2]) + [(5, 6), (6, 7)]
    pm = pm_of(edges)
    assert greedy.signature(edges) == greedy.signature(pm) == (0, 0, 2)
    assert greedy.signature(greedy.rtg(pm)) == (0, 0, 2)


# ---------------------------------------------------------------------------
# Contracts
# ---------------------------------------------------------------------------


def test_preserve_all_is_loops_on_every_non_destination():
    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(1, 9)
        moves = cases.random_moves(rng, n, 0.6)
        pm = ParallelMove.make(moves, registers=n)
        dsts = {d for d, _ in moves}
        looped = ParallelMove.make(moves + [(u, u) for u in range(n) if u not in dsts],
                                   registers=n)
        assert copyset.optimal_length(pm, "all") == copyset.optimal_length(looped, "loops")
        ops = copyset.permi_optimal(pm, "all")
        assert implements(pm, ops, "permi", "all")
        assert implements(looped, ops, "permi", "loops")
        assert copyset.optimal_length(pm, "all") >= copyset.optimal_length(pm, "loops")


def test_preserve_all_small_examples():
    swap = ParallelMove.make([(1, 0), (0, 1)])
    assert copyset.optimal_length(swap, "all") == 1
    fan = ParallelMove.make([(1, 0), (2, 0)])
    # loops: one value to two places: a perm moves it, one copy
    assert copyset.optimal_length(fan, "loops") == 2
    assert search.search_optimum(fan, "loops") == 2
    # all: r0 keeps its value, so two copies
    assert copyset.optimal_length(fan, "all") == 2
    assert copyset.permi_optimal(fan, "all") == [Mov(1, 0), Mov(2, 0)]
    # temporaries are dead registers; they get no loop under "all"
    with_t = ParallelMove.make([(1, 0), (0, 1)], temps=["t"])
    assert greedy.rtg(with_t, "all").edges == ((0, 1), (1, 0))
    assert search.search_optimum(with_t, "all") == 1


def test_empty_and_trivial():
    for pm in [ParallelMove.make([]), ParallelMove.make([(0, 0), (1, 1)]),
               ParallelMove.make([], registers=3)]:
        for preserve in ("loops", "all"):
            assert copyset.optimal_length(pm, preserve) == 0
            assert copyset.permi_optimal(pm, preserve) == []
            assert greedy.greedy(pm, preserve) == []
            assert search.search_optimum(pm, preserve) == 0


def test_copies_come_last_and_count():
    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(1, 16)
        moves = cases.random_moves(rng, n, 0.8)
        pm = ParallelMove.make(moves)
        ops = copyset.permi_optimal(pm)
        k = greedy.rtg(pm).copies()
        assert all(isinstance(o, Mov) for o in ops[len(ops) - k:])
        assert all(isinstance(o, Perm) for o in ops[:len(ops) - k])
        # Lemma 1 (i): no register is both a copy source and a copy target
        movs = ops[len(ops) - k:]
        assert not {m.dst for m in movs} & {m.src for m in movs}


def test_oracle_uses_the_dp():
    for edges, best in [(FIG1_LEFT, 2), (FIG1_RIGHT, 3), (FIG2, 2)]:
        assert optimum(pm_of(edges), "permi", "loops").length == best


def test_large_inputs_are_consistent():
    """n = 64 random RTGs: the sequence implements the move and its length
    is the DP's value (both asserted inside permi_optimal too)."""
    rng = random.Random(64)
    for _ in range(30):
        n = 64
        moves = cases.random_moves(rng, n, 0.75)
        pm = ParallelMove.make(moves, registers=n)
        ops = copyset.permi_optimal(pm)
        assert implements(pm, ops, "permi", "loops")
        assert len(ops) == copyset.optimal_length(pm)
        state = execute(ops)
        assert all(state.get(d, d) == s for d, s in moves)


# ---------------------------------------------------------------------------
# CLI (docs/protocol.md: solve and check speak the same protocol)
# ---------------------------------------------------------------------------


def run_cli(args, lines):
    proc = subprocess.run(
        [sys.executable, "-m", "verified.cli", *args],
        input="".join(json.dumps(x) + "\n" for x in lines),
        capture_output=True, text=True, timeout=60,
    )
    return proc.returncode, [json.loads(l) for l in proc.stdout.splitlines()]


def test_cli_solve_and_check():
    fig1 = [[v, u] for u, v in FIG1_LEFT]
    reqs = [
        {"moves": fig1, "model": "permi", "preserve": "loops"},
        {"moves": fig1 + [[1, 1]], "model": "permi", "preserve": "loops"},
        {"moves": [[v, u] for u, v in FIG2], "model": "permi", "preserve": "loops"},
        {"moves": [[1, 0], [0, 1], [2, 2]], "model": "permi", "preserve": "all"},
    ]
    code, answers = run_cli(["solve", "--algorithm", "permi-optimal"], reqs)
    assert code == 0
    checks = [dict(r, sequence=a["sequence"]) for r, a in zip(reqs, answers)]
    code, verdicts = run_cli(["check"], checks)
    assert code == 0
    assert [v["ok"] for v in verdicts] == [True] * 4
    assert [v["length"] for v in verdicts] == [2, 3, 2, 1]
    assert [v["optimal"] for v in verdicts] == [2, 3, 2, 1]
    # GREEDY: an out-degree-1 request is answered, a fan-out one refused
    code, answers = run_cli(["solve", "--algorithm", "greedy"], [
        {"moves": [[1, 0], [2, 1], [0, 2], [4, 3]], "model": "permi", "preserve": "loops"},
        {"moves": fig1, "model": "permi", "preserve": "loops"},
    ])
    assert code == 2
    # one permi23: the 2-path 3 -> 4 completed to a 2-cycle, and the 3-cycle
    [(kind, pairs)] = answers[0]["sequence"]
    assert kind == "perm"
    assert sorted(map(tuple, pairs)) == [(0, 2), (1, 0), (2, 1), (3, 4), (4, 3)]
    assert "out-degree-1" in answers[1]["error"]
    # a wrong sequence is caught and the optimum still reported
    code, verdicts = run_cli(["check"], [
        {"moves": fig1, "model": "permi", "preserve": "loops",
         "sequence": [["mov", 2, 1], ["mov", 3, 1]]},
    ])
    assert code == 1
    assert verdicts[0]["ok"] is False and verdicts[0]["optimal"] == 2
