"""Hypothesis hunts for an RTG on which GREEDY or the DP beats or misses the
brute-force optimum (verified.search.search_optimum), in either contract,
with and without dead registers the moves do not name."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified.algorithms import copyset, greedy, search
from verified.core.oracle import implements
from verified.core.semantics import ParallelMove


@st.composite
def requests(draw, max_n=6):
    n = draw(st.integers(1, max_n))
    srcs = draw(st.lists(st.one_of(st.none(), st.integers(0, n - 1)),
                         min_size=n, max_size=n))
    extra = draw(st.integers(0, 1))
    preserve = draw(st.sampled_from(["loops", "all"]))
    moves = [(d, s) for d, s in enumerate(srcs) if s is not None]
    return ParallelMove.make(moves, registers=n + extra), preserve


@st.composite
def out_degree_1(draw, max_n=7):
    """A random permutation of 1..max_n registers with some edges dropped
    (so paths appear): every out-degree-1 RTG arises this way."""
    n = draw(st.integers(1, max_n))
    perm = draw(st.permutations(range(n)))
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    moves = [(perm[u], u) for u in range(n) if keep[u]]
    return ParallelMove.make(moves, registers=n)


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_dp_is_the_search_optimum(req):
    pm, preserve = req
    best = search.search_optimum(pm, preserve, max_len=10)
    ops = copyset.permi_optimal(pm, preserve)
    assert implements(pm, ops, "permi", preserve)
    assert copyset.optimal_length(pm, preserve) == best
    assert len(ops) == best


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(out_degree_1())
def test_greedy_is_the_search_optimum(pm):
    best = search.search_optimum(pm, "loops", max_len=10)
    ops = greedy.greedy(pm)
    assert implements(pm, ops, "permi", "loops")
    assert len(ops) == best == greedy.greedy_length(greedy.signature(pm))
