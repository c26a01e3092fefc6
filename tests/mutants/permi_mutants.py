"""Mutants of verified.permi (GREEDY, the copy-set DP, and the brute-force
search that judges them), and the checks that must catch each one.

Each mutant is one snippet of the real source replaced (``derive``, see
tests/mutants/__init__.py), compiled with its asserts stripped, and every
other function of verified.permi is re-bound into the mutated namespace, so
``ns["permi_optimal"]`` calls the mutated helper and nothing in the module
catches the mutant by its own run-time postconditions: the checks below
must.  tests/test_permi_mutants.py asserts that every mutant is caught and
that the real module passes every check (so a catch is not a harness that
always fails)."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Callable

from verified import permi
from verified.oracle import implements
from verified.semantics import ParallelMove

from . import derive

#: every function of verified.permi that the algorithms and the search use;
#: all are re-bound in a mutant's namespace
CHAIN = (
    permi.greedy_length, permi.greedy_edges, permi.greedy, permi._prepend,
    permi._merge, permi._rooted, permi._cycle_table, permi._graph_table,
    permi._best, permi.copy_set, permi.optimal_length, permi.permi_optimal,
    permi.search_sequence, permi.search_optimum,
)


def mutate(target: Callable, old: str, new: str) -> dict:
    """The namespace of verified.permi with ``target``'s source mutated."""
    chain = [f for f in CHAIN if f is not target]
    fn = derive(target, old, new, entry=chain[0], extra=tuple(chain[1:]))
    return fn.__globals__


@dataclass(frozen=True)
class PermiMutant:
    name: str
    description: str
    ns: dict


MUTANTS = [
    # -- GREEDY ---------------------------------------------------------------
    PermiMutant("permi5_reduces_by_5",
                "step 2 believes one 5-register perm shortens a cycle by 5",
                mutate(permi.greedy_edges, "cyc = cyc[:1] + cyc[MAX_PERM:]",
                       "cyc = cyc[:1] + cyc[MAX_PERM + 1:]")),
    PermiMutant("greedy_skips_step_3",
                "no permi23 for a 2-cycle with a 3-cycle",
                mutate(permi.greedy_edges, "while twos and threes:", "while False:")),
    PermiMutant("greedy_skips_step_4",
                "2-cycles are resolved one per perm, never in pairs",
                mutate(permi.greedy_edges, "while len(twos) >= 2:", "while False:")),
    PermiMutant("greedy_step_5_transposition_reversed",
                "the 3-cycle shortened in step 5 is left as the wrong 2-cycle",
                mutate(permi.greedy_edges, "two = [b[0], b[2]]", "two = [b[1], b[2]]")),
    PermiMutant("greedy_path_wrong_way",
                "paths completed against the data flow",
                mutate(permi.greedy_edges,
                       "    for cyc, _ in _paths_and_cycles(edges):\n",
                       "    for cyc, _ in _paths_and_cycles(edges):\n"
                       "        cyc = cyc[::-1]\n")),
    # -- the DP ---------------------------------------------------------------
    PermiMutant("dp_cost_correction_at_new_size",
                "Lemma 14's cost correction indexed by the new root-path size",
                mutate(permi._rooted, "cc = c2 + _DC[s2]", "cc = c2 + _DC[s]")),
    PermiMutant("dp_diff_correction_at_new_size",
                "Lemma 14's diff correction indexed by the new root-path size",
                mutate(permi._rooted, "dd = d2 + _DD[s2]", "dd = d2 + _DD[s]")),
    PermiMutant("dp_root_path_size_not_advanced",
                "adding v on top of its child's root path keeps the size mod 4",
                mutate(permi._rooted, "s = (s2 + 1) % 4", "s = s2")),
    PermiMutant("dp_tree_keeps_first_child",
                "every tree vertex keeps its first out-edge (no choice)",
                mutate(permi._rooted, "for j, c in enumerate(children):",
                       "for j, c in enumerate(children[:1]):")),
    PermiMutant("dp_cost1_only",
                "Lemma 7 without the a3 > a2 branch (cost1 used for every diff)",
                mutate(permi._best, "(c + max(0, -d))", "(c)")),
    PermiMutant("dp_floor",
                "Lemma 7 rounds the table value down",
                mutate(permi._best, "-(-(c + max(0, -d)) // 6)", "((c + max(0, -d)) // 6)")),
    PermiMutant("cycle_never_broken",
                "a cycle vertex always keeps its cycle edge (no breakers)",
                mutate(permi._cycle_table, "if bk is not None:", "if False:")),
    PermiMutant("cycle_wrap_not_closed",
                "the wrap-around segment's tail is never paid for",
                mutate(permi._cycle_table, "dc, dd = _prepend(r, m)  # close",
                       "dc, dd = 0, 0  # close")),
    PermiMutant("cycle_head_wrong_residue",
                "the first breaker remembers r = s instead of (s + k) mod 4",
                mutate(permi._cycle_table, "_into(new_post, ((s + k) % 4, 0), head,",
                       "_into(new_post, (s, 0), head,")),
    PermiMutant("prepend_forgets_full_periods",
                "prepending 4 or more vertices forgets the whole periods (X)",
                mutate(permi._prepend, "c = (m // 4) * _PERIOD_C", "c = 0")),
    PermiMutant("copies_before_perms",
                "the copies are emitted first (not Lemma 1's normal form)",
                mutate(permi.permi_optimal,
                       "ops += [Mov(v, target[u]) for u, v in copies]",
                       "ops = [Mov(v, target[u]) for u, v in copies] + ops")),
    PermiMutant("copy_from_original_register",
                "a copy reads u's register, not where the perms moved u's value",
                mutate(permi.permi_optimal, "Mov(v, target[u])", "Mov(v, u)")),
    # -- the judge itself -----------------------------------------------------
    PermiMutant("search_inadmissible_bound",
                "the search's lower bound counts every wrong register as an operation",
                mutate(permi.search_sequence,
                       "return cb + -(-max(0, wrong - cb) // MAX_PERM)",
                       "return max(cb, wrong)")),
    PermiMutant("search_without_perms",
                "the search forgets perms of 4 and 5 registers",
                mutate(permi.search_sequence, "all_ops = _OPS_CACHE[key_]",
                       "all_ops = [o for o in _OPS_CACHE[key_] "
                       "if not hasattr(o, 'pairs') or len(o.pairs) <= 3]")),
]

BY_NAME = {m.name: m for m in MUTANTS}


# ---------------------------------------------------------------------------
# The checks (the same properties as tests/test_permi*.py, on a budget)
# ---------------------------------------------------------------------------


def _pm(edges, **kw) -> ParallelMove:
    return ParallelMove.make([(v, u) for u, v in edges], **kw)


def _all_rtgs(n: int):
    for srcs in itertools.product([None, *range(n)], repeat=n):
        yield [(d, s) for d, s in enumerate(srcs) if s is not None]


def _plain_bfs_length(pm: ParallelMove, preserve: str) -> int:
    """Breadth-first over full states with the real (unmutated) operations:
    judges the search mutants."""
    from collections import deque

    from verified.semantics import step

    universe = list(pm.locations()) + list(pm.temps)
    ops = permi._all_ops(universe)
    if implements(pm, [], "permi", preserve):
        return 0
    seen = {tuple(universe)}
    frontier = deque([((), {})])
    while frontier:
        path, state = frontier.popleft()
        for op in ops:
            child = dict(state)
            step(child, op)
            k = tuple(child.get(r, r) for r in universe)
            if k not in seen:
                seen.add(k)
                if implements(pm, list(path) + [op], "permi", preserve):
                    return len(path) + 1
                frontier.append((path + (op,), child))
    raise AssertionError("unreachable")


def _check_figures(ns) -> None:
    fig1 = [(1, 2), (1, 3), (4, 5), (5, 6), (6, 4)]
    fig2 = [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2), (2, 1)]
    for edges, best in [(fig1, 2), (fig1 + [(1, 1)], 3), (fig2, 2)]:
        pm = _pm(edges)
        ops = ns["permi_optimal"](pm, "loops")
        assert implements(pm, ops, "permi", "loops")
        assert len(ops) == ns["optimal_length"](pm, "loops") == best
        assert ns["search_optimum"](pm, "loops") == best


def _check_lemma_3(ns) -> None:
    """Out-degree-1 RTGs from known component sizes: GREEDY implements and
    has Lemma 3's length (computed here from the sizes)."""
    rng = random.Random(3)
    for _ in range(300):
        sizes = [rng.randint(1, 13) for _ in range(rng.randint(0, 8))]
        labels = list(range(sum(sizes)))
        rng.shuffle(labels)
        edges, pos = [], 0
        for size in sizes:
            vs = labels[pos:pos + size]
            pos += size
            if rng.random() < 0.5:
                edges += [(vs[i], vs[(i + 1) % size]) for i in range(size)]
            else:
                edges += list(zip(vs, vs[1:]))
        x = sum(s // 4 for s in sizes)
        a2 = sum(s % 4 == 2 for s in sizes)
        a3 = sum(s % 4 == 3 for s in sizes)
        pm = _pm(edges, registers=max(len(labels), 1))
        ops = ns["greedy"](pm, "loops")
        assert implements(pm, ops, "permi", "loops")
        assert len(ops) == x + max(-(-(a2 + a3) // 2), -(-(a2 + 2 * a3) // 3))


def _check_exhaustive_4(ns) -> None:
    for n in range(1, 5):
        for moves in _all_rtgs(n):
            pm = ParallelMove.make(moves, registers=n)
            for preserve in ("loops", "all"):
                best = ns["search_optimum"](pm, preserve)
                ops = ns["permi_optimal"](pm, preserve)
                assert implements(pm, ops, "permi", preserve)
                assert len(ops) == ns["optimal_length"](pm, preserve) == best


def _check_random_5_7(ns) -> None:
    rng = random.Random(57)
    for _ in range(60):
        n = rng.randint(5, 7)
        moves = [(d, rng.randrange(n)) for d in range(n) if rng.random() < 0.8]
        pm = ParallelMove.make(moves, registers=n)
        preserve = rng.choice(["loops", "all"])
        best = ns["search_optimum"](pm, preserve)
        ops = ns["permi_optimal"](pm, preserve)
        assert implements(pm, ops, "permi", preserve)
        assert len(ops) == ns["optimal_length"](pm, preserve) == best


def _check_copy_sets(ns) -> None:
    """n = 8..16: the DP against the minimum over every copy set of |C| +
    Lemma 3 (computed with the real, unmutated signature)."""
    rng = random.Random(816)
    done = 0
    while done < 150:
        n = rng.randint(8, 16)
        moves = [(d, rng.randrange(n)) for d in range(n) if rng.random() < 0.9]
        pm = ParallelMove.make(moves, registers=n)
        g = permi.rtg(pm, "loops")
        out = g.out_edges()
        if len(list(itertools.product(*out.values()))) > 2000:
            continue
        best = min(
            permi.greedy_length(permi.signature(list(zip(out, choice))))
            for choice in itertools.product(*out.values())
        )
        ops = ns["permi_optimal"](pm, "loops")
        assert implements(pm, ops, "permi", "loops")
        assert len(ops) == ns["optimal_length"](pm, "loops") == g.copies() + best
        done += 1


def _check_search_against_bfs(ns) -> None:
    rng = random.Random(44)
    for _ in range(40):
        n = rng.randint(2, 4)
        moves = [(d, rng.randrange(n)) for d in range(n) if rng.random() < 0.8]
        pm = ParallelMove.make(moves, registers=n)
        assert ns["search_optimum"](pm, "loops") == _plain_bfs_length(pm, "loops")


def _check_cycle_broken_twice(ns) -> None:
    """The 10-register RTG of tests/test_permi.py whose optimum needs both
    edges of a 2-cycle copied: 4 operations (no sequence of 3 exists: the
    search with max_len=3), not the 5 of keeping the cycle."""
    edges = [(0, 1), (1, 0), (0, 2), (2, 3), (3, 4), (4, 5),
             (1, 6), (6, 7), (7, 8), (8, 9)]
    pm = _pm(edges)
    ops = ns["permi_optimal"](pm, "loops")
    assert implements(pm, ops, "permi", "loops")
    assert len(ops) == ns["optimal_length"](pm, "loops") == 4
    assert ns["search_optimum"](pm, "loops", max_len=3) is None


#: cheapest first: a mutant stops at its first failing check
CHECKS = [
    ("paper figures 1 and 2", _check_figures),
    ("Lemma 3 on out-degree-1 RTGs", _check_lemma_3),
    ("a cycle broken twice, n = 10", _check_cycle_broken_twice),
    ("DP vs every copy set, n = 8..16", _check_copy_sets),
    ("search vs plain BFS", _check_search_against_bfs),
    ("exhaustive n <= 4 vs search", _check_exhaustive_4),
    ("random n = 5..7 vs search", _check_random_5_7),
]


def catch(ns: dict) -> str | None:
    """The first check that fails on the namespace ``ns`` (an assertion or
    any exception, e.g. an ill-formed perm), or None if all pass."""
    for name, check in CHECKS:
        try:
            check(ns)
        except Exception as e:  # noqa: BLE001 - any failure is a catch
            return f"{name} ({type(e).__name__})"
    return None
