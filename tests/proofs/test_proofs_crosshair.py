"""CrossHair through Hypothesis (hypothesis-crosshair backend) on the core
properties, over the list-shaped targets of ``proofs/crosshair_targets.py``;
the full `crosshair check` runs are `make crosshair`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofs import crosshair_targets as T
from verified.core.oracle import implements
from verified.core.semantics import sequence

srcs_lists = st.integers(1, 4).flatmap(
    lambda n: st.lists(st.integers(0, n - 1), min_size=n, max_size=n))

ch = settings(backend="crosshair", max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))


def _ok(target, srcs, model: str) -> bool:
    return implements(T.move_of(srcs, model), sequence(target(srcs)), model).ok


@ch
@given(srcs_lists)
def test_crosshair_shuf_implements(srcs):
    assert _ok(T.shuf_srcs, srcs, "swap")


@ch
@given(srcs_lists)
def test_crosshair_leroy_implements(srcs):
    assert _ok(T.leroy_srcs, srcs, "temp")


@ch
@given(srcs_lists)
def test_crosshair_xchg_implements(srcs):
    assert _ok(T.xchg_srcs, srcs, "swap")


def test_crosshair_backend_finds_the_published_xchg_bug():
    @settings(backend="crosshair", max_examples=200, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(srcs_lists)
    def prop(srcs):
        assert _ok(T.xchg_as_published_srcs, srcs, "swap")

    with pytest.raises(AssertionError):
        prop()
