"""The ``trace=`` hooks of shuf, xchg, windmill, mincopy, leroy and
leroy_iterative: exact traces on small moves (golden), no effect on the
output, and every traced run on small n agreeing with its proof's step
relation (the fast part of tests/proofs/test_proofs_symbolic.py and
tests/proofs/test_leroy_refinement.py, so that ``make mutation`` runs it
against mutants of verified/algorithms/)."""

from __future__ import annotations

import pytest

from proofs import leroy as pl
from proofs import parmove as pw
from proofs import xchg as px
from verified.algorithms.leroy import leroy, leroy_iterative
from verified.algorithms.shuf import shuf
from verified.algorithms.windmill import mincopy, windmill
from verified.algorithms.xchg import xchg
from verified.cases.moves import exhaustive_cases, register_maps
from verified.core.semantics import Mov, ParallelMove, Swap

#: r0 <- r1, r1 <- r2, r2 <- r0, r3 <- r0: a 3-cycle with a blade
SRCS = [1, 2, 0, 0]


def test_xchg_trace_golden():
    steps: list = []
    assert xchg(ParallelMove.from_map(SRCS), trace=steps) == [Mov(3, 0), Swap(0, 1), Swap(2, 1)]
    assert [(s.label, s.at, s.d0, sorted(s.pending), s.emitted) for s in steps] == [
        ("start", None, None, [0, 1, 2, 3], 0), ("kahn", 3, None, [0, 1, 2], 1),
        ("kahn_end", None, None, [0, 1, 2], 1), ("between", 0, 0, [0, 1, 2], 1),
        ("walk", 0, 0, [0, 1, 2], 1), ("walk", 2, 0, [1, 2], 2), ("walk", 1, 0, [1], 3),
        ("walk", 0, 0, [], 3), ("between", 1, 1, [], 3), ("between", 2, 2, [], 3),
        ("between", 3, 3, [], 3), ("done", None, None, [], 3)]
    assert steps[0].ready == (3,) and steps[5].alias == {0: 1}


def test_windmill_and_mincopy_trace_golden():
    pm = ParallelMove.from_map(SRCS, temps=[4])
    steps: list = []
    assert windmill(pm, trace=steps) == [Mov(3, 0), Mov(4, 2), Mov(2, 0), Mov(0, 1), Mov(1, 4)]
    assert [(s.label, s.at, sorted(s.unwritten), s.axle, s.saved, s.hole, s.emitted)
            for s in steps] == [
        ("kahn", 3, [0, 1, 2], (), None, None, 1),
        ("start", 2, [0, 1, 2], (2, 1, 0), 4, 2, 2),
        ("axle", 2, [0, 1], (2, 1, 0), 4, 0, 3),
        ("axle", 0, [1], (2, 1, 0), 4, 1, 4),
        ("axle", 1, [], (), None, None, 5)]
    steps = []
    assert mincopy(pm, trace=steps) == [Mov(3, 0), Mov(0, 1), Mov(1, 2), Mov(2, 3)]
    assert [(s.label, s.at, s.axle, s.saved, s.hole, s.emitted) for s in steps] == [
        ("kahn", 3, (), None, None, 1), ("start", 0, (0, 2, 1), 3, 0, 1),  # saved in r3
        ("axle", 0, (0, 2, 1), 3, 1, 2), ("axle", 1, (0, 2, 1), 3, 2, 3),
        ("axle", 2, (), None, None, 4)]


def test_shuf_trace_golden():
    steps: list = []
    out = shuf(ParallelMove.from_map([1, 0]), trace=steps)
    assert out == [Swap(1, 0)]
    assert [(None if s.action is None else s.action.kind, s.forward) for s in steps] == [
        (None, (0b10, 0b01)), ("swap", (0, 0))]


def test_leroy_trace_golden():
    pm = ParallelMove.from_map(SRCS, temps=[4])
    steps: list = []
    assert leroy(pm, trace=steps) == [Mov(4, 1), Mov(1, 2), Mov(2, 0), Mov(3, 0), Mov(0, 4)]
    assert [(s.rule, s.move, s.stack, s.emitted) for s in steps] == [
        ("start", 0, (0,), 0), ("push", 2, (0, 2), 0), ("push", 1, (0, 2, 1), 0),
        ("loop", 0, (0, 2, 1), 1), ("pop", 1, (0, 2), 2), ("pop", 2, (0,), 3),
        ("push", 3, (0, 3), 3), ("pop", 3, (0,), 4), ("last", 0, (), 5)]
    again: list = []
    assert leroy_iterative(pm, trace=again) == leroy(pm) and again == steps


@pytest.mark.parametrize("fn", [xchg, shuf])
def test_swap_model_trace_changes_nothing(fn):
    for n in range(1, 4):
        for srcs in register_maps(n):
            pm = ParallelMove.from_map(srcs)
            assert fn(pm, trace=[]) == fn(pm)


@pytest.mark.parametrize("fn", [windmill, mincopy, leroy, leroy_iterative])
def test_temp_model_trace_changes_nothing(fn):
    for n in range(1, 4):
        for srcs in register_maps(n):
            pm = ParallelMove.from_map(srcs, temps=[n])
            assert fn(pm, trace=[]) == fn(pm)


def test_xchg_runs_agree_with_the_proof_small_n():
    for n in range(1, 4):
        for srcs in register_maps(n):
            steps: list = []
            out = xchg(ParallelMove.from_map(srcs), trace=steps)
            assert px.agrees(list(srcs), steps, out) == [], srcs


@pytest.mark.parametrize("fn", [windmill, mincopy])
def test_windmill_runs_agree_with_the_proof_small_n(fn):
    for n in range(1, 4):
        for srcs in register_maps(n):
            steps: list = []
            out = fn(ParallelMove.from_map(srcs, temps=[n]), trace=steps)
            assert pw.windmill_agrees(list(srcs), steps, out, fn is mincopy) == [], srcs


def test_leroy_runs_refine_the_rules_small_n():
    for case in exhaustive_cases(4):
        assert pl.refinement_problem(*pl._pm(case), (leroy, leroy_iterative)) == ""
