"""CrossHair through Hypothesis (hypothesis-crosshair backend) on the core
properties; the full `crosshair check` runs are `make crosshair`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified.oracle import implements
from verified.parmove import leroy_srcs, temp_move, triples_to_ops
from verified.semantics import ParallelMove
from verified.shuf import actions_to_ops, shuf_srcs
from verified.xchg import xchg_as_published_srcs, xchg_srcs

srcs_lists = st.integers(1, 4).flatmap(
    lambda n: st.lists(st.integers(0, n - 1), min_size=n, max_size=n))

ch = settings(backend="crosshair", max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))


@ch
@given(srcs_lists)
def test_crosshair_shuf_implements(srcs):
    assert implements(ParallelMove.from_map(srcs), actions_to_ops(shuf_srcs(srcs)), "swap").ok


@ch
@given(srcs_lists)
def test_crosshair_leroy_implements(srcs):
    assert implements(temp_move(srcs), triples_to_ops(leroy_srcs(srcs)), "temp").ok


@ch
@given(srcs_lists)
def test_crosshair_xchg_implements(srcs):
    assert implements(ParallelMove.from_map(srcs), triples_to_ops(xchg_srcs(srcs)), "swap").ok


def test_crosshair_backend_finds_the_published_xchg_bug():
    @settings(backend="crosshair", max_examples=200, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(srcs_lists)
    def prop(srcs):
        ops = triples_to_ops(xchg_as_published_srcs(srcs))
        assert implements(ParallelMove.from_map(srcs), ops, "swap").ok

    with pytest.raises(AssertionError):
        prop()
