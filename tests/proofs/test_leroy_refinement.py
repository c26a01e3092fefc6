"""Leroy: the rule system for every n (proofs/leroy.py) and the check that
the real ``leroy`` and ``leroy_iterative`` only take its rules, stepped
through their ``trace=`` hook (the refinement; tested, not proved)."""

from __future__ import annotations

import sys

import pytest

import mutants
from mutants.core import BY_NAME as CORE
from mutants.leroy import PROOF, TRACE, TRACE_STEPS
from proofs import leroy as pl
from proofs.common import PROVED, REFUTED
from verified.algorithms.leroy import TO_MOVE, Step, leroy, leroy_iterative
from verified.cases.moves import exhaustive_cases, random_cases
from verified.core.semantics import Mov, ParallelMove


def _pm(case):
    return ParallelMove.make(list(case.moves), registers=case.registers,
                             temps=[case.registers])


def _problems(fn, pm, reader="python"):
    out, steps = pl.run_traced(fn, pm)
    return pl.refines(pm, steps, out, lambda _s: pm.registers, reader=reader)


# -- the rule system, every n --------------------------------------------------


def test_rule_system_lemmas_proved_for_every_n():
    # in a fresh process, as ``python -m proofs`` asks them: Z3's quantifier
    # instantiation depends on the terms an earlier test created in this
    # process (after tests/proofs/test_harness.py the push lemma can come
    # out unknown here, never refuted, while the proofs run proves it)
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", "import json; from proofs import leroy; "
         "print(json.dumps(leroy.unbounded_claims()))"],
        capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = json.loads(out.stdout)
    assert [r["result"] for r in rows] == [PROVED] * 10, rows
    assert all(r["n"] is None for r in rows)
    assert any("progress" in r["claim"] for r in rows)
    assert any("final state" in r["claim"] for r in rows)


def test_planted_proof_bugs_are_refuted():
    rows = pl.mutant_claims()
    assert len(rows) == len(PROOF) >= 5
    assert all(r["result"] == REFUTED and r["expect"] == REFUTED for r in rows), rows
    assert any("proofs_leroy_loop_ghost" in r["claim"] for r in rows)


# -- the trace hook ------------------------------------------------------------


def test_trace_is_off_by_default_and_changes_nothing():
    for case in exhaustive_cases(4):
        pm = _pm(case)
        for fn in (leroy, leroy_iterative):
            steps: list = []
            assert fn(pm, trace=steps) == fn(pm)


def test_trace_loop_then_push_before_pop():
    """r0 <- r1, r1 <- r0, r2 <- r1 (temporary r3): the walk closes the
    cycle (loop) and then pushes another reader of the same destination
    before it pops: why ``loop`` is a rule of its own (proofs/leroy.py)."""
    pm = ParallelMove.make([(0, 1), (1, 0), (2, 1)], registers=3, temps=[3])
    out, steps = pl.run_traced(leroy, pm)
    assert out == [Mov(3, 1), Mov(2, 1), Mov(1, 0), Mov(0, 3)]
    assert [(s.rule, s.move) for s in steps] == [
        ("start", 0), ("push", 1), ("loop", 0), ("push", 2), ("pop", 2), ("pop", 1),
        ("last", 0)]
    assert steps[2] == Step("loop", 0, (1, 1, 0), (3, 0, 1), (0, 1), 1)
    assert pl.run_traced(leroy_iterative, pm) == (out, steps)
    assert pl.refines(pm, steps, out, lambda _s: 3) == []


# -- the refinement ------------------------------------------------------------


def test_refinement_exhaustive_small_n():
    """Every move on n <= 5 registers (partial maps, self-moves included);
    ``python -m proofs`` runs n <= 6."""
    count = 0
    for case in exhaustive_cases(5):
        assert pl.refinement_problem(*pl._pm(case), (leroy, leroy_iterative)) == ""
        count += 1
    assert count == 8476


@pytest.mark.parametrize("n", [7, 12, 30, 64])
def test_refinement_random_larger(n):
    for case in random_cases(n, 40, seed="test-leroy-refinement"):
        assert pl.refinement_problem(*pl._pm(case), (leroy, leroy_iterative)) == ""


def test_refinement_long_chain_iterative():
    n = sys.getrecursionlimit() + 100  # deeper than leroy can go: leroy_iterative only
    pm = ParallelMove.make([(d, d + 1) for d in range(n - 1)] + [(n - 1, 0)],
                           registers=n, temps=[n])
    assert _problems(leroy_iterative, pm) == []


def test_refinement_z3_reading():
    for n in (2, 4, 6):
        for case in random_cases(n, 4, seed="test-leroy-z3"):
            assert _problems(leroy, _pm(case), reader="z3") == []


def _rejected_somewhere(fn, max_n=4, reader="python"):
    for case in exhaustive_cases(max_n):
        pm = _pm(case)
        out, steps = pl.run_traced(fn, pm)  # a crash of the mutant fails the test
        problems = pl.refines(pm, steps, out, lambda _s: pm.registers, TO_MOVE, reader=reader)
        assert isinstance(problems, list)
        if problems:
            return case, problems
    return None


@pytest.mark.parametrize("mutant", TRACE, ids=lambda m: m.name)
def test_trace_mutants_rejected(mutant):
    """A wrong label or a step reported out of place: the output is the same
    (the oracle cannot see it), the refinement check rejects it."""
    fn = mutants.run(mutant)
    real = leroy if mutant.entry == "leroy" else leroy_iterative
    for case in exhaustive_cases(3):
        assert fn(_pm(case)) == real(_pm(case))
    caught = _rejected_somewhere(fn)
    assert caught, mutant.name


@pytest.mark.parametrize("name", TRACE_STEPS)
def test_wrong_steps_rejected(name):
    caught = _rejected_somewhere(mutants.run(CORE[name]))
    assert caught, name


def test_z3_reading_rejects_a_mislabelled_trace():
    fn = mutants.run(next(m for m in TRACE if m.name == "leroy_trace_push_as_start"))
    assert _rejected_somewhere(fn, max_n=3, reader="z3")


def test_a_malformed_trace_is_a_rejection_not_an_exception():
    pm = ParallelMove.make([(0, 1), (1, 0)], registers=2, temps=[2])
    out, steps = pl.run_traced(leroy, pm)
    bad = [*steps[:1], Step("push", 7, (9,), (), (42,), 99)]
    assert pl.refines(pm, bad, out, lambda _s: 2)
    assert pl.refines(pm, [Step("jump", 0, (0, 0), (1, 0), (), 0)], out, lambda _s: 2) == [
        "step 0 ('jump'): not a rule of the system"]
    assert pl.refines(pm, steps[:-1], out, lambda _s: 2)  # stops before the end
