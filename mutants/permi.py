"""Mutants of the permi algorithms (GREEDY in ``greedy.py``, the copy-set
DP in ``copyset.py``) and of the search that judges them (``search.py``),
and the checks that must catch each one.

Each mutant is one snippet of the real source replaced (the engine in
``mutants/__init__.py``); the three modules are executed together, so a
mutated GREEDY is what ``permi_optimal`` calls, and nothing catches the
mutant by its own run-time postconditions: the checks below must.  Every
check returns a **rejection** (why the output is wrong, str) or None; an
exception raised by the mutated code is a crash, which ``catch`` reports
apart and the tests do not count as a catch.
``tests/permi/test_permi_mutants.py`` asserts that every mutant is rejected
and that the real modules pass every check.
"""

from __future__ import annotations

import itertools
import random
import types
from collections import deque

from verified import cases
from verified.algorithms import copyset, greedy, search
from verified.core.oracle import implements
from verified.core.semantics import ParallelMove, step

from . import Mutant, load

GREEDY, COPYSET, SEARCH = greedy.__name__, copyset.__name__, search.__name__
PERMI = (GREEDY, COPYSET, SEARCH)


def _m(name: str, why: str, module: str, scope: str, old: str, new: str) -> Mutant:
    return Mutant(name, module, old, new, why, family="permi", scope=scope,
                  with_modules=tuple(m for m in PERMI if m != module), model="permi")


def real() -> types.SimpleNamespace:
    """The unmutated modules, as one namespace (what the checks run on)."""
    merged: dict = {}
    for m in (greedy, copyset, search):
        merged.update(vars(m))
    return types.SimpleNamespace(**merged)


MUTANTS = [
    # -- GREEDY ---------------------------------------------------------------
    _m("permi5_reduces_by_5",
       "step 2 believes one 5-register perm shortens a cycle by 5",
       GREEDY, "greedy_edges", "cyc = cyc[:1] + cyc[MAX_PERM:]",
                       "cyc = cyc[:1] + cyc[MAX_PERM + 1:]"),
    _m("greedy_skips_step_3",
       "no permi23 for a 2-cycle with a 3-cycle",
       GREEDY, "greedy_edges", "while twos and threes:", "while False:"),
    _m("greedy_skips_step_4",
       "2-cycles are resolved one per perm, never in pairs",
       GREEDY, "greedy_edges", "while len(twos) >= 2:", "while False:"),
    _m("greedy_step_5_transposition_reversed",
       "the 3-cycle shortened in step 5 is left as the wrong 2-cycle",
       GREEDY, "greedy_edges", "two = [b[0], b[2]]", "two = [b[1], b[2]]"),
    _m("greedy_path_wrong_way",
       "paths completed against the data flow",
       GREEDY, "greedy_edges", "    for cyc, _ in _paths_and_cycles(edges):\n",
                       "    for cyc, _ in _paths_and_cycles(edges):\n"
                       "        cyc = cyc[::-1]\n"),
    # -- the DP ---------------------------------------------------------------
    _m("dp_cost_correction_at_new_size",
       "Lemma 14's cost correction indexed by the new root-path size",
       COPYSET, "_rooted", "cc = c2 + _DC[s2]", "cc = c2 + _DC[s]"),
    _m("dp_diff_correction_at_new_size",
       "Lemma 14's diff correction indexed by the new root-path size",
       COPYSET, "_rooted", "dd = d2 + _DD[s2]", "dd = d2 + _DD[s]"),
    _m("dp_root_path_size_not_advanced",
       "adding v on top of its child's root path keeps the size mod 4",
       COPYSET, "_rooted", "s = (s2 + 1) % 4", "s = s2"),
    _m("dp_tree_keeps_first_child",
       "every tree vertex keeps its first out-edge (no choice)",
       COPYSET, "_rooted", "for j, c in enumerate(children):",
                       "for j, c in enumerate(children[:1]):"),
    _m("dp_cost1_only",
       "Lemma 7 without the a3 > a2 branch (cost1 used for every diff)",
       COPYSET, "_best", "(c + max(0, -d))", "(c)"),
    _m("dp_floor",
       "Lemma 7 rounds the table value down",
       COPYSET, "_best", "-(-(c + max(0, -d)) // 6)", "((c + max(0, -d)) // 6)"),
    _m("cycle_never_broken",
       "a cycle vertex always keeps its cycle edge (no breakers)",
       COPYSET, "_cycle_table", "if bk is not None:", "if False:"),
    _m("cycle_wrap_not_closed",
       "the wrap-around segment's tail is never paid for",
       COPYSET, "_cycle_table", "dc, dd = _prepend(r, m)  # close",
                       "dc, dd = 0, 0  # close"),
    _m("cycle_head_wrong_residue",
       "the first breaker remembers r = s instead of (s + k) mod 4",
       COPYSET, "_cycle_table", "_into(new_post, ((s + k) % 4, 0), head,",
                       "_into(new_post, (s, 0), head,"),
    _m("prepend_forgets_full_periods",
       "prepending 4 or more vertices forgets the whole periods (X)",
       COPYSET, "_prepend", "c = (m // 4) * _PERIOD_C", "c = 0"),
    _m("pareto_keeps_only_the_cheapest",
       "a table keeps only its cheapest entry (dominance judged by cost alone, "
       "as if diff never mattered)",
       COPYSET, "_pareto", "if best is None or c - d < best:", "if best is None:"),
    _m("copies_before_perms",
       "the copies are emitted first (not Lemma 1's normal form)",
       COPYSET, "permi_optimal", "ops += [Mov(v, target[u]) for u, v in copies]",
                       "ops = [Mov(v, target[u]) for u, v in copies] + ops"),
    _m("copy_from_original_register",
       "a copy reads u's register, not where the perms moved u's value",
       COPYSET, "permi_optimal", "Mov(v, target[u])", "Mov(v, u)"),
    # -- the judge itself -----------------------------------------------------
    _m("search_inadmissible_bound",
       "the search's lower bound counts every wrong register as an operation",
       SEARCH, "search_sequence", "return cb + -(-max(0, wrong - cb) // MAX_PERM)",
                       "return max(cb, wrong)"),
    _m("search_without_perms",
       "the search forgets perms of 4 and 5 registers",
       SEARCH, "search_sequence", "all_ops = _OPS_CACHE[key_]",
                       "all_ops = [o for o in _OPS_CACHE[key_] "
                       "if not hasattr(o, 'pairs') or len(o.pairs) <= 3]"),
]

BY_NAME = {m.name: m for m in MUTANTS}


# ---------------------------------------------------------------------------
# The checks (the same properties as tests/permi/, on a budget).  Each
# returns why the namespace's output is wrong, or None.
# ---------------------------------------------------------------------------


def _pm(edges, **kw) -> ParallelMove:
    return ParallelMove.make([(v, u) for u, v in edges], **kw)


def _plain_bfs_length(pm: ParallelMove, preserve: str) -> int:
    """Breadth-first over full states with the real (unmutated) operations:
    judges the search mutants."""
    universe = list(pm.locations()) + list(pm.temps)
    ops = search._all_ops(universe)
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
    raise AssertionError("unreachable: the BFS explores every state")


def _judge(ns, pm: ParallelMove, preserve: str, best: int | None = None,
           entry: str = "permi_optimal") -> str | None:
    """The output of ``entry`` must implement ``pm`` and have the DP's
    length (and ``best`` when given, the search's or the formula's)."""
    ops = getattr(ns, entry)(pm, preserve)
    verdict = implements(pm, ops, "permi", preserve)
    if not verdict.ok:
        return f"{entry} on {pm}: {verdict.reason}"
    dp = ns.optimal_length(pm, preserve)
    if len(ops) != dp:
        return f"{entry} on {pm}: {len(ops)} operations, the DP says {dp}"
    if best is not None and dp != best:
        return f"on {pm}: the DP says {dp}, the optimum is {best}"
    return None


def _check_figures(ns) -> str | None:
    fig1 = [(1, 2), (1, 3), (4, 5), (5, 6), (6, 4)]
    fig2 = [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2), (2, 1)]
    for edges, best in [(fig1, 2), (fig1 + [(1, 1)], 3), (fig2, 2)]:
        pm = _pm(edges)
        if why := _judge(ns, pm, "loops", best):
            return why
        if (found := ns.search_optimum(pm, "loops")) != best:
            return f"the search finds {found} on {pm}, the paper says {best}"
    return None


def _check_lemma_3(ns) -> str | None:
    """Out-degree-1 RTGs from known component sizes: GREEDY implements and
    has Lemma 3's length (computed here from the sizes)."""
    rng = random.Random(3)
    for _ in range(300):
        edges, (x, a2, a3), labels = cases.out_degree_1_rtg(rng)
        pm = _pm(edges, registers=max(labels, 1))
        ops = ns.greedy(pm, "loops")
        verdict = implements(pm, ops, "permi", "loops")
        if not verdict.ok:
            return f"greedy on {pm}: {verdict.reason}"
        lemma3 = x + max(-(-(a2 + a3) // 2), -(-(a2 + 2 * a3) // 3))
        if len(ops) != lemma3:
            return f"greedy on {pm}: {len(ops)} operations, Lemma 3 says {lemma3}"
    return None


def _check_exhaustive_4(ns) -> str | None:
    for n in range(1, 5):
        for case in cases.exhaustive_cases(n, smallest=n):
            pm = ParallelMove.make(case.moves, registers=n)
            for preserve in ("loops", "all"):
                if why := _judge(ns, pm, preserve, ns.search_optimum(pm, preserve)):
                    return why
    return None


def _check_random_5_7(ns) -> str | None:
    rng = random.Random(57)
    for _ in range(60):
        n = rng.randint(5, 7)
        pm = ParallelMove.make(cases.random_moves(rng, n, 0.8), registers=n)
        preserve = rng.choice(["loops", "all"])
        if why := _judge(ns, pm, preserve, ns.search_optimum(pm, preserve)):
            return why
    return None


def _check_copy_sets(ns) -> str | None:
    """n = 8..16: the DP against the minimum over every copy set of |C| +
    Lemma 3 (computed with the real, unmutated signature)."""
    rng = random.Random(816)
    done = 0
    while done < 150:
        n = rng.randint(8, 16)
        pm = ParallelMove.make(cases.random_moves(rng, n, 0.9), registers=n)
        g = greedy.rtg(pm, "loops")
        out = g.out_edges()
        if len(list(itertools.product(*out.values()))) > 2000:
            continue
        best = g.copies() + min(
            greedy.greedy_length(greedy.signature(list(zip(out, choice))))
            for choice in itertools.product(*out.values())
        )
        if why := _judge(ns, pm, "loops", best):
            return why
        done += 1
    return None


def _check_search_against_bfs(ns) -> str | None:
    rng = random.Random(44)
    for _ in range(40):
        n = rng.randint(2, 4)
        pm = ParallelMove.make(cases.random_moves(rng, n, 0.8), registers=n)
        found, bfs = ns.search_optimum(pm, "loops"), _plain_bfs_length(pm, "loops")
        if found != bfs:
            return f"the search finds {found} on {pm}, breadth-first search {bfs}"
    return None


def _check_cycle_broken_twice(ns) -> str | None:
    """The 10-register RTG of tests/permi/test_permi.py whose optimum needs
    both edges of a 2-cycle copied: 4 operations (no sequence of 3 exists:
    the search with max_len=3), not the 5 of keeping the cycle."""
    edges = [(0, 1), (1, 0), (0, 2), (2, 3), (3, 4), (4, 5),
             (1, 6), (6, 7), (7, 8), (8, 9)]
    pm = _pm(edges)
    if why := _judge(ns, pm, "loops", 4):
        return why
    if (found := ns.search_optimum(pm, "loops", max_len=3)) is not None:
        return f"the search finds {found} operations on {pm}; none of 3 exists"
    return None


def _check_cost_against_diff(ns) -> str | None:
    """A 17-register RTG under "all" whose optimum (9, the minimum over all
    36 copy sets, computed here) needs a copy set that is not the cheapest
    in 6*cost1 but has the smaller cost - diff: it catches a DP whose tables
    forget that trade-off (found by a random search against
    ``pareto_keeps_only_the_cheapest``, which answers 10)."""
    moves = [(1, 3), (2, 8), (3, 6), (4, 7), (5, 16), (6, 8), (7, 6), (8, 6), (9, 12),
             (10, 3), (11, 2), (12, 0), (13, 5), (14, 9), (15, 1), (16, 8)]
    pm = ParallelMove.make(moves, registers=17)
    g = greedy.rtg(pm, "all")
    out = g.out_edges()
    best = g.copies() + min(
        greedy.greedy_length(greedy.signature(list(zip(out, choice))))
        for choice in itertools.product(*out.values()))
    return _judge(ns, pm, "all", best)


#: cheapest first: a mutant stops at its first rejecting check
CHECKS = [
    ("paper figures 1 and 2", _check_figures),
    ("Lemma 3 on out-degree-1 RTGs", _check_lemma_3),
    ("a cycle broken twice, n = 10", _check_cycle_broken_twice),
    ("cost against diff, n = 17", _check_cost_against_diff),
    ("DP vs every copy set, n = 8..16", _check_copy_sets),
    ("search vs plain BFS", _check_search_against_bfs),
    ("exhaustive n <= 4 vs search", _check_exhaustive_4),
    ("random n = 5..7 vs search", _check_random_5_7),
]


def catch(ns) -> tuple[str, str] | None:
    """The first check that rejects the namespace ``ns`` (``real()`` or
    ``load(mutant)``), as ("rejected" | "crashed", "check: why"), or None
    if every check accepts it.  Only "rejected" is a catch."""
    for name, check in CHECKS:
        try:
            why = check(ns)
        except Exception as e:  # noqa: BLE001 - the mutated code crashed
            return "crashed", f"{name}: {type(e).__name__}: {e}"
        if why is not None:
            return "rejected", f"{name}: {why}"
    return None


def catch_mutant(mutant: Mutant) -> tuple[str, str] | None:
    return catch(load(mutant))
