"""Every checker must be shown to fail: each core mutant is caught by the
oracle (exhaustive search for the smallest failing register map) and by
Hypothesis (its own search and shrinking), and by the algorithms' own
run-time postcondition when that is switched back in."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutants.core_mutants import MUTANTS
from verified.oracle import PostconditionError, ensure, implements
from verified.semantics import ParallelMove

FAMILIES = {m.family for m in MUTANTS}


def _pm(want) -> ParallelMove:
    return ParallelMove.from_map(want, temps=["t"])


def _oracle_rejects(mutant, pm) -> str | None:
    try:
        ops = mutant.run(pm)
    except Exception as e:  # a crash is also a catch, but say so
        return f"crashed: {type(e).__name__}: {e}"
    verdict = implements(pm, ops, mutant.model)
    return None if verdict.ok else verdict.reason


def test_at_least_five_mutants_per_family():
    for family in ("shuf", "leroy", "windmill", "mincopy", "xchg"):
        assert sum(m.family == family for m in MUTANTS) >= 5, family


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_oracle_catches_mutant(mutant):
    """Exhaustive search, smallest register count first: the oracle must
    reject the mutant's output (not merely see it crash) on some map with
    at most 4 registers."""
    for n in range(1, 5):
        for want in itertools.product(range(n), repeat=n):
            reason = _oracle_rejects(mutant, _pm(want))
            if reason and not reason.startswith("crashed"):
                print(f"{mutant.name}: caught on want={list(want)}: {reason}")
                return
    pytest.fail(f"the oracle never rejected {mutant.name} on n <= 4")


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_hypothesis_catches_mutant(mutant):
    """Hypothesis, with no hint of where the bug is, must falsify
    "the mutant implements every parallel move"."""

    @settings(max_examples=2000, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(1, 6).flatmap(
        lambda n: st.lists(st.integers(0, n - 1), min_size=n, max_size=n)))
    def prop(want):
        assert _oracle_rejects(mutant, _pm(want)) is None

    with pytest.raises(AssertionError):
        prop()


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_postcondition_catches_mutant(mutant):
    """The shared run-time postcondition (oracle.ensure, which the real
    algorithms call) rejects the mutant's output on its failing input."""
    for n in range(1, 5):
        for want in itertools.product(range(n), repeat=n):
            pm = _pm(want)
            try:
                ops = mutant.run(pm)
            except Exception:
                continue
            try:
                ensure(pm, ops, mutant.model, algorithm=mutant.name)
            except PostconditionError:
                return
    pytest.fail(f"ensure never rejected {mutant.name}")
