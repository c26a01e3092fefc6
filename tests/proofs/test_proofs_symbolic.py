"""The symbolic whole-algorithm proofs (proofs/xchg.py section 3,
proofs/parmove.py section 3) model the algorithms' steps in Z3.  Here the
real Python algorithms run (exhaustively on small n, on random inputs
beyond) through their ``trace=`` hooks: the Python twin of each invariant
holds at every step, the Z3 invariant holds on the same concrete states,
and the Z3 step relation maps each state to exactly the next state of the
real run (states compared, not only the emitted operations).  Mutants of
the algorithms' steps and of the hooks' labels are rejected (a list of
problems, not an exception).  Leroy's refinement is
tests/proofs/test_leroy_refinement.py."""

from __future__ import annotations

import random

import pytest
import z3

import mutants
from mutants.core import BY_NAME as CORE
from mutants.traces import TRACE_WINDMILL, TRACE_XCHG
from proofs import COUNTEREXAMPLE, PROVED
from proofs import xchg as px
from verified.algorithms import xchg
from verified.cases.moves import register_maps
from verified.core.semantics import ParallelMove


def _random_srcs(rng, n):
    kind = rng.random()
    if kind < 0.3:  # a permutation: cycles only
        srcs = list(range(n))
        rng.shuffle(srcs)
        return srcs
    return [rng.randrange(n) for _ in range(n)]


def _xchg_run(srcs, fn=xchg.xchg):
    steps: list = []
    out = fn(ParallelMove.from_map(srcs), trace=steps)
    return out, steps


def test_xchg_real_run_agrees_with_z3_at_every_step():
    rng = random.Random(5)
    inputs = [list(m) for n in range(1, 4) for m in register_maps(n)]
    inputs += [_random_srcs(rng, rng.randint(4, 7)) for _ in range(50)]
    steps = 0
    for srcs in inputs:
        out, trace = _xchg_run(srcs)
        assert px.agrees(srcs, trace, out) == [], srcs
        steps += len(trace)
    assert steps > 600


def test_xchg_trace_changes_nothing():
    for n in range(1, 5):
        for srcs in register_maps(n):
            pm = ParallelMove.from_map(srcs)
            assert xchg.xchg(pm, trace=[]) == xchg.xchg(pm)


def test_xchg_python_invariant_can_fail():
    srcs = [1, 2, 0]
    out, trace = _xchg_run(srcs)
    st = px.snapshot(srcs, trace[0], out, 0)
    st = dict(st, cur=[1, 1, 2])            # pending r0 does not hold its own value
    assert "K3" in px.invariant_py(srcs, st)
    walk = [px.snapshot(srcs, t, out, 0) for t in trace if t.label == "walk" and t.alias]
    st = dict(walk[0], alias={})           # forget the alias update
    assert px.invariant_py(srcs, st)


def _xchg_rejected(fn):
    for n in range(1, 5):
        for srcs in register_maps(n):
            out, trace = _xchg_run(list(srcs), fn)
            problems = px.agrees(list(srcs), trace, out)
            assert isinstance(problems, list)
            if problems:
                return srcs, problems
    return None


@pytest.mark.parametrize("name", ["xchg_no_alias_update", "xchg_alias_off_by_one",
                                  "xchg_swap_on_tree_edge", "xchg_move_in_cycle",
                                  "xchg_release_early"])
def test_xchg_agreement_rejects_wrong_steps(name):
    assert _xchg_rejected(mutants.run(CORE[name])), name


@pytest.mark.parametrize("mutant", TRACE_XCHG, ids=lambda m: m.name)
def test_xchg_agreement_rejects_wrong_trace_labels(mutant):
    fn = mutants.run(mutant)
    for srcs in register_maps(3):  # the output is unchanged: only the trace lies
        assert fn(ParallelMove.from_map(srcs)) == xchg.xchg(ParallelMove.from_map(srcs))
    assert _xchg_rejected(fn), mutant.name


def test_xchg_symbolic_small_n_and_mutants():
    assert px.xchg_symbolic(4)[0] == PROVED
    assert px.xchg_symbolic(3, mutant="no_alias_update")[0] == COUNTEREXAMPLE
    assert px.xchg_symbolic(3, mutant="release_early")[0] == COUNTEREXAMPLE


# -- windmill -------------------------------------------------------------------

from proofs import parmove as pp  # noqa: E402
from verified.algorithms import windmill as parmove  # noqa: E402


import pytest  # noqa: E402


@pytest.mark.parametrize("name", ["windmill", "mincopy"])
def test_windmill_trace_is_the_real_algorithm_and_agrees_with_z3(name):
    reuse = name == "mincopy"
    rng = random.Random(7)
    steps = 0
    for _ in range(60):
        n = rng.randint(1, 7)
        srcs = _random_srcs(rng, n)
        trace = list(pp.windmill_trace(srcs, reuse_blade=reuse))
        real = getattr(parmove, name)(ParallelMove.from_map(srcs, temps=[n]))
        assert (trace[-1][1]["ops"] if trace else []) == real
        w = max(1, n.bit_length())
        sv = [z3.BitVecVal(s, w) for s in srcs]
        prev = {"mode": "kahn", "P": {d for d in range(n) if srcs[d] != d}, "A": set(),
                "c0": 0, "x": 0, "b": n, "cur": list(range(n + 1))}
        for label, st in [("init", prev)] + trace:
            assert pp.windmill_invariant_py(srcs, st) == [], (srcs, label, st)
            P = [z3.BoolVal(y in st["P"]) for y in range(n)]
            cur = [z3.BitVecVal(c % (1 << w), w) for c in st["cur"]]
            if st["mode"] == "kahn":
                zinv = pp.wm_inv_kahn(P, cur, sv, n)
            else:
                A = [z3.BoolVal(y in st["A"]) for y in range(n)]
                b = st["b"] if st["b"] == n else z3.BitVecVal(st["b"], w)
                zinv = pp.wm_inv_axle(P, A, cur, sv, n, st["c0"], st["x"], b)
            assert z3.is_true(z3.simplify(zinv)), (srcs, label, st)
            if label != "init":
                assert pp.windmill_z3_agrees(srcs, prev, label, st, reuse), (
                    srcs, label, prev, st)
                steps += 1
            prev = st
        assert prev["mode"] == "kahn" and not prev["P"]
    assert steps > 150
    if reuse:  # some axles did start from a blade copy
        assert any(lbl[3] != len(srcs_) for srcs_, lbl in _starts(rng))


def _starts(rng):
    for _ in range(40):
        n = rng.randint(2, 6)
        srcs = _random_srcs(rng, n)
        for lbl, _ in pp.windmill_trace(srcs, reuse_blade=True):
            if isinstance(lbl, tuple) and lbl[0] == "start":
                yield srcs, lbl


def test_windmill_python_invariant_can_fail():
    srcs = [1, 2, 0]
    trace = list(pp.windmill_trace(srcs))
    label, st = trace[0]
    assert label[0] == "start"
    assert "A1" in pp.windmill_invariant_py(srcs, dict(st, cur=[0, 1, 2, 1]))


def test_windmill_symbolic_small_n_and_mutants():
    assert pp.windmill_symbolic(4)[0] == PROVED
    assert pp.windmill_symbolic(3, mutant="no_save")[0] == COUNTEREXAMPLE
    assert pp.windmill_symbolic(3, mutant="restore_from_axle")[0] == COUNTEREXAMPLE
    mc = dict(algorithm="mincopy")
    assert pp.windmill_symbolic(4, **mc)[0] == PROVED
    assert pp.windmill_symbolic(3, mutant="copy_is_source", **mc)[0] == COUNTEREXAMPLE
    assert pp.windmill_symbolic(3, mutant="restore_from_axle", **mc)[0] == COUNTEREXAMPLE
