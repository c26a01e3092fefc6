"""Every checker must be shown to fail: each core mutant is caught by the
oracle (exhaustive search for the smallest failing register map) and by
Hypothesis (its own search and shrinking), and by the algorithms' own
run-time postcondition when that is switched back in."""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mutants
from mutants.core import MUTANTS
from verified import cases
from verified.core.oracle import PostconditionError, ensure, implements
from verified.core.semantics import ParallelMove

FAMILIES = {m.family for m in MUTANTS}


def _pm(want) -> ParallelMove:
    return ParallelMove.from_map(want, temps=["t"])


def _oracle_rejects(mutant, pm) -> str | None:
    try:
        ops = mutants.run(mutant)(pm)
    except Exception as e:  # a crash is also a catch, but say so
        return f"crashed: {type(e).__name__}: {e}"
    verdict = implements(pm, ops, mutant.model)
    return None if verdict.ok else verdict.reason


def test_at_least_five_mutants_per_family():
    for family in ("shuf", "leroy", "windmill", "mincopy", "xchg"):
        assert sum(m.family == family for m in MUTANTS) >= 5, family


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_oracle_catches_mutant_on_its_witness(mutant):
    """Exhaustive search, smallest register count first, then fewest
    non-loop moves: the oracle must reject the mutant's output (not merely
    see it crash), and the smallest such map is the catalogue's witness."""
    for n in range(1, 5):
        caught = [want for want in cases.register_maps(n)
                  if (r := _oracle_rejects(mutant, _pm(want))) and not r.startswith("crashed")]
        if caught:
            smallest = min(caught, key=lambda w: (sum(d != s for d, s in enumerate(w)), w))
            print(f"{mutant.name}: caught on want={list(smallest)}")
            assert smallest == mutant.witness
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
        for want in cases.register_maps(n):
            pm = _pm(want)
            try:
                ops = mutants.run(mutant)(pm)
            except Exception:
                continue
            try:
                ensure(pm, ops, mutant.model, algorithm=mutant.name)
            except PostconditionError:
                return
    pytest.fail(f"ensure never rejected {mutant.name}")
